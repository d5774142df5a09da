//! Every curation verb through the library: what it changes, that `updated_at` moves only
//! on a real change, and that an error leaves the store exactly as it was.

mod curate_support;

use curate_support::*;
use memlens::curate::{Change, CurateError, Edit, FieldValue, apply_at, track_read};
use memlens::model::{Scope, Status, Timestamp, feel_index};
use memlens::store::Store;

fn now() -> Timestamp {
    at("2026-05-06T07:08:09.010Z")
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn set(store: &Store, id: &str, assignments: &[&str]) -> Result<(), CurateError> {
    let values = assignments
        .iter()
        .map(|a| FieldValue::parse_assignment(a))
        .collect::<Result<Vec<_>, _>>()?;
    apply_at(store, &Change::edit([id], Edit::Set(values)), now()).map(|_| ())
}

/// Runs a change that must fail, and checks the store did not change at all.
fn refused(store: &Store, change: &Change) -> CurateError {
    let before = snapshot(store);
    let err = apply_at(store, change, now()).expect_err("the change must be refused");
    assert_eq!(snapshot(store), before, "store changed after: {err}");
    err
}

fn three() -> (tempfile::TempDir, Store) {
    let (dir, store) = temp_store();
    seed(&store, &[memory("a"), memory("b"), memory("c")]);
    (dir, store)
}

#[test]
fn set_changes_every_settable_field_and_moves_updated_at_of_that_memory_only() {
    let (_dir, store) = three();
    let untouched = snapshot(&store)[1].clone();
    set(
        &store,
        "a",
        &[
            "title=  New title ",
            "body=new body\nsecond line",
            "type=gotcha",
            "scope=module",
            "module=search",
            "status=proposed",
            "tags= x, y,x,,z",
            "weight=0.9",
            "trust=0.1",
            "trust_level=Restricted",
            "confidence=0.33",
            "feel_humor=0.7",
            "feel_valence=-0.5",
            "rem_visits=4",
        ],
    )
    .unwrap();
    let m = get(&store, "a");
    assert_eq!(m.title.as_deref(), Some("New title"));
    assert_eq!(m.body, "new body\nsecond line");
    assert_eq!(m.memory_type, "gotcha");
    assert_eq!(
        (m.scope, m.module.as_deref()),
        (Scope::Module, Some("search"))
    );
    assert_eq!(m.status, Status::Proposed);
    assert_eq!(m.tags, ["x", "y", "z"]);
    assert_eq!((m.weight, m.trust, m.confidence), (0.9, 0.1, Some(0.33)));
    assert_eq!(m.trust_level, Some(memlens::model::TrustLevel::Restricted));
    assert_eq!(m.feel[feel_index("humor").unwrap()], Some(0.7));
    assert_eq!(m.feel[feel_index("valence").unwrap()], Some(-0.5));
    assert_eq!(m.rem_visits, Some(4));
    assert_eq!(m.updated_at, now());
    assert_eq!(m.created_at, long_ago());
    assert_eq!(snapshot(&store)[1], untouched, "memory b must not change");
}

#[test]
fn empty_values_unscore_and_remove_optional_fields() {
    let (_dir, store) = temp_store();
    seed(&store, &[full_memory("a", "b"), memory("b")]);
    set(
        &store,
        "a",
        &["feel_humor=", "confidence=", "rem_visits=", "tags="],
    )
    .unwrap();
    let m = get(&store, "a");
    assert_eq!(m.feel[feel_index("humor").unwrap()], None);
    assert_eq!(m.feel[feel_index("valence").unwrap()], Some(-0.3));
    assert_eq!((m.confidence, m.rem_visits), (None, None));
    assert!(m.tags.is_empty());
    set(&store, "b", &["title="]).unwrap();
    assert_eq!(get(&store, "b").title, None);
}

#[test]
fn setting_the_same_values_again_is_a_no_op_that_keeps_updated_at() {
    let (_dir, store) = three();
    let before = snapshot(&store);
    let applied = apply_at(
        &store,
        &Change::edit(["a"], Edit::Set(vec![FieldValue::Weight(0.5)])),
        now(),
    )
    .unwrap();
    assert!(applied.is_no_op());
    assert_eq!(applied.unchanged, ["a"]);
    assert_eq!(snapshot(&store), before);
}

#[test]
fn invalid_results_and_unknown_ids_are_refused_without_any_change() {
    let (_dir, store) = three();
    let set_change = |id: &str, v: FieldValue| Change::edit([id], Edit::Set(vec![v]));
    let e = refused(&store, &set_change("a", FieldValue::Scope(Scope::Module)));
    assert!(
        matches!(&e, CurateError::Invalid { id, errors } if id == "a" && errors[0].field == "module")
    );
    assert!(e.is_usage());
    // a new memory breaking a rule is named by the rule, not by an id it may only have
    // been given on the way
    let mut new = memlens::model::Memory::new("01KMADEUPID", "a body", now());
    new.scope = Scope::Module;
    let e = refused(&store, &Change::Create(Box::new(new)));
    assert!(matches!(&e, CurateError::InvalidNew(errors) if errors[0].field == "module"));
    assert!(e.is_usage());
    assert!(!e.to_string().contains("01KMADEUPID"), "{e}");
    assert!(
        e.to_string().starts_with("the memory cannot be created: "),
        "{e}"
    );
    // a blank body is a memory too (SPEC §2), so it is not refused; a wrong weight is
    let e = refused(&store, &set_change("a", FieldValue::Weight(1.5)));
    assert!(e.to_string().contains("weight"), "{e}");
    let e = refused(&store, &set_change("nope", FieldValue::Weight(0.1)));
    assert!(matches!(&e, CurateError::UnknownId(id) if id == "nope"));
    assert!(!e.is_usage());
    // An unknown id among many aborts the whole change, including the memories before it.
    let e = refused(
        &store,
        &Change::edit(["a", "b", "ghost", "c"], Edit::Approve),
    );
    assert!(matches!(&e, CurateError::UnknownId(id) if id == "ghost"));
    let e = refused(&store, &Change::edit(Vec::<String>::new(), Edit::Approve));
    assert!(matches!(e, CurateError::NoIds));
}

#[test]
fn approve_validates_and_records_a_human_and_skips_the_already_approved() {
    let (_dir, store) = three();
    let mut c = get(&store, "c");
    c.status = Status::Validated;
    c.extra.insert("validated_by".into(), "human".into());
    seed(&store, &[c.clone()]);
    let applied = apply_at(&store, &Change::edit(["a", "b", "c"], Edit::Approve), now()).unwrap();
    assert_eq!(applied.unchanged, ["c"]);
    for id in ["a", "b"] {
        let m = get(&store, id);
        assert_eq!(m.status, Status::Validated);
        assert_eq!(m.extra["validated_by"], "human");
        assert_eq!(m.updated_at, now());
    }
    assert_eq!(
        get(&store, "c"),
        c,
        "the approved memory keeps its updated_at"
    );
}

#[test]
fn reject_keeps_the_reason_as_stale_reason_and_needs_one() {
    let (_dir, store) = three();
    let reject = |reason: &str| Edit::Reject {
        reason: reason.into(),
    };
    apply_at(
        &store,
        &Change::edit(["a", "b"], reject("superseded by c")),
        now(),
    )
    .unwrap();
    for id in ["a", "b"] {
        let m = get(&store, id);
        assert_eq!(m.status, Status::Rejected);
        assert_eq!(m.extra["stale_reason"], "superseded by c");
        assert_eq!(m.updated_at, now());
    }
    let e = refused(&store, &Change::edit(["c"], reject(" ")));
    assert!(matches!(e, CurateError::MissingReason));
}

#[test]
fn rating_adds_to_sum_and_count_and_moves_the_bayesian_score() {
    let (_dir, store) = three();
    for (i, n) in [5u8, 4, 5, 1].into_iter().enumerate() {
        let t = Timestamp(now().0 + i as i64);
        // four raters: one rater's second rating replaces the first
        let rate = Edit::RateAs {
            rater: format!("rater {i}"),
            rating: n,
        };
        apply_at(&store, &Change::edit(["a"], rate), t).unwrap();
        assert_eq!(get(&store, "a").updated_at, t);
    }
    let m = get(&store, "a");
    assert_eq!((m.rating_sum, m.rating_count), (15, 4));
    assert_eq!(m.rating_bayesian(), (15.0 + 15.0) / 9.0);
    for bad in [0u8, 6] {
        let e = refused(&store, &Change::edit(["a"], Edit::Rate(bad)));
        assert!(
            e.is_usage() && e.to_string().contains(&bad.to_string()),
            "{e}"
        );
    }
}

#[test]
fn delete_is_soft_with_a_reason_and_restore_takes_it_back() {
    let (_dir, store) = three();
    let delete = Edit::Delete {
        reason: Some("duplicate".into()),
    };
    apply_at(&store, &Change::edit(["a", "b"], delete), now()).unwrap();
    let a = get(&store, "a");
    assert_eq!(a.deleted_at, Some(now()));
    assert_eq!(a.deleted_reason.as_deref(), Some("duplicate"));
    assert_eq!(a.updated_at, now());
    let later = at("2026-06-01T00:00:00Z");
    let applied = apply_at(&store, &Change::edit(["a", "c"], Edit::Restore), later).unwrap();
    assert_eq!(applied.unchanged, ["c"], "c was never deleted");
    let a = get(&store, "a");
    assert_eq!((a.deleted_at, a.deleted_reason), (None, None));
    assert_eq!(a.updated_at, later);
    assert!(get(&store, "b").is_deleted());
    assert_eq!(get(&store, "c").updated_at, long_ago());
}

#[test]
fn purge_removes_for_good_but_links_held_by_others_stay() {
    let (_dir, store) = temp_store();
    seed(&store, &[full_memory("a", "b"), memory("b"), memory("c")]);
    let e = refused(
        &store,
        &Change::Purge {
            ids: ids(&["b", "ghost"]),
        },
    );
    assert!(matches!(e, CurateError::UnknownId(_)));
    apply_at(
        &store,
        &Change::Purge {
            ids: ids(&["b", "c", "b"]),
        },
        now(),
    )
    .unwrap();
    assert!(!exists(&store, "b") && !exists(&store, "c"));
    let a = get(&store, "a");
    assert_eq!(a.relationships[0].target, "b", "the dangling link is kept");
    assert!(linked(&store, "a").is_empty(), "and no longer counted");
}

#[test]
fn link_is_undirected_stored_once_and_linking_again_only_changes_the_kind() {
    let (_dir, store) = three();
    let link = |a: &str, b: &str, kind: &str| Change::Link {
        a: a.into(),
        b: b.into(),
        kind: kind.into(),
    };
    apply_at(&store, &link("a", "b", ""), now()).unwrap();
    let a = get(&store, "a");
    assert_eq!(a.relationships.len(), 1);
    assert_eq!(
        (
            a.relationships[0].target.as_str(),
            a.relationships[0].kind.as_str()
        ),
        ("b", "related")
    );
    assert_eq!(a.updated_at, now());
    assert!(get(&store, "b").relationships.is_empty());
    assert_eq!(get(&store, "b").updated_at, long_ago());
    assert_eq!(linked(&store, "a"), ["b"]);
    assert_eq!(linked(&store, "b"), ["a"]);

    let before = snapshot(&store);
    let again = apply_at(
        &store,
        &link("b", "a", "related"),
        at("2026-07-01T00:00:00Z"),
    )
    .unwrap();
    assert!(again.is_no_op());
    assert_eq!(snapshot(&store), before);

    let later = at("2026-08-01T00:00:00Z");
    apply_at(&store, &link("b", "a", "supersedes"), later).unwrap();
    let a = get(&store, "a");
    assert_eq!(
        a.relationships.len(),
        1,
        "the link stays on the side that held it"
    );
    assert_eq!(a.relationships[0].kind, "supersedes");
    assert_eq!(a.updated_at, later);
    assert!(get(&store, "b").relationships.is_empty());

    // no kind given: the link already there keeps its kind, and nothing changes
    let before = snapshot(&store);
    let blank = apply_at(&store, &link("a", "b", " "), at("2026-09-01T00:00:00Z")).unwrap();
    assert!(blank.is_no_op());
    assert_eq!(snapshot(&store), before);

    assert!(matches!(
        refused(&store, &link("a", "a", "x")),
        CurateError::SelfLink(_)
    ));
    assert!(
        matches!(refused(&store, &link("a", "ghost", "x")), CurateError::UnknownId(id) if id == "ghost")
    );
    assert!(
        matches!(refused(&store, &link("ghost", "a", "x")), CurateError::UnknownId(id) if id == "ghost")
    );
}

#[test]
fn unlink_removes_the_link_whichever_side_holds_it() {
    let (_dir, store) = three();
    let mut b = get(&store, "b");
    b.relationships.push(memlens::model::Relationship {
        target: "a".into(),
        kind: "related".into(),
        strength: None,
    });
    let mut a = get(&store, "a");
    a.relationships.push(memlens::model::Relationship {
        target: "b".into(),
        kind: "blocks".into(),
        strength: None,
    });
    seed(&store, &[a, b]);
    let unlink = |a: &str, b: &str| Change::Unlink {
        a: a.into(),
        b: b.into(),
    };
    let applied = apply_at(&store, &unlink("b", "a"), now()).unwrap();
    assert_eq!(applied.changed().len(), 2);
    for id in ["a", "b"] {
        let m = get(&store, id);
        assert!(m.relationships.is_empty(), "{id} still holds a link");
        assert_eq!(m.updated_at, now());
        assert!(linked(&store, id).is_empty());
    }
    assert!(matches!(
        refused(&store, &unlink("a", "b")),
        CurateError::NotLinked { .. }
    ));
    assert!(
        matches!(refused(&store, &unlink("a", "ghost")), CurateError::UnknownId(id) if id == "ghost")
    );
}

#[test]
fn unlink_clears_a_dangling_link_to_a_purged_memory() {
    let (_dir, store) = temp_store();
    seed(&store, &[full_memory("a", "gone")]);
    apply_at(
        &store,
        &Change::Unlink {
            a: "gone".into(),
            b: "a".into(),
        },
        now(),
    )
    .unwrap();
    assert!(get(&store, "a").relationships.is_empty());
}

#[test]
fn bulk_edits_apply_to_every_memory_in_one_change() {
    let (_dir, store) = three();
    let all = ["a", "b", "c"];
    let applied = apply_at(
        &store,
        &Change::edit(all, Edit::Tag(vec!["gamma".into(), "alpha".into()])),
        now(),
    )
    .unwrap();
    assert_eq!(applied.changed().len(), 3);
    for id in all {
        assert_eq!(get(&store, id).tags, ["alpha", "beta", "gamma"]);
    }
    let set_type = Edit::Set(vec![FieldValue::Type("convention".into())]);
    apply_at(&store, &Change::edit(["a", "c"], set_type), now()).unwrap();
    assert_eq!(get(&store, "c").memory_type, "convention");
    assert_eq!(get(&store, "b").memory_type, "note");
    apply_at(
        &store,
        &Change::edit(all, Edit::Untag(vec!["alpha".into()])),
        now(),
    )
    .unwrap();
    for id in all {
        assert_eq!(get(&store, id).tags, ["beta", "gamma"]);
    }
    let e = refused(
        &store,
        &Change::edit(["a", "b", "zzz"], Edit::Tag(vec!["t".into()])),
    );
    assert!(matches!(e, CurateError::UnknownId(_)));
}

#[test]
fn a_tracked_read_counts_without_moving_updated_at() {
    let (_dir, store) = three();
    let before = get(&store, "a");
    let after = track_read(&store, "a").unwrap();
    assert_eq!(after.read_count, before.read_count + 1);
    assert!(after.last_read_at.is_some_and(|t| t > long_ago()));
    assert_eq!(after.updated_at, before.updated_at);
    assert_eq!(get(&store, "a"), after);
    let e = track_read(&store, "ghost").unwrap_err();
    assert!(matches!(e, CurateError::UnknownId(_)));
}

#[test]
fn the_real_clock_moves_updated_at_forward() {
    let (_dir, store) = three();
    memlens::curate::apply(&store, &Change::edit(["a"], Edit::Approve)).unwrap();
    assert!(get(&store, "a").updated_at > long_ago());
}

/// Superseding one of a linked pair makes the pair's one link the `superseded_by` link
/// the old memory holds, whichever side held it and whatever its kind; undo gives back
/// the link as it was.
#[test]
fn supersede_turns_the_pairs_link_into_superseded_by_on_the_old_memory() {
    use memlens::curate::undo;
    for holder in ["a", "b"] {
        let (_dir, store) = three();
        let other = if holder == "a" { "b" } else { "a" };
        let link = Change::Link {
            a: holder.into(),
            b: other.into(),
            kind: "duplicates".into(),
        };
        apply_at(&store, &link, now()).unwrap();
        let before = snapshot(&store);
        let applied = apply_at(
            &store,
            &Change::Supersede {
                keep: "a".into(),
                old: "b".into(),
            },
            now(),
        )
        .unwrap();
        let (a, b) = (get(&store, "a"), get(&store, "b"));
        let kinds = |m: &memlens::model::Memory| -> Vec<(String, String)> {
            m.relationships
                .iter()
                .map(|r| (r.target.clone(), r.kind.clone()))
                .collect()
        };
        assert_eq!(
            kinds(&b),
            vec![("a".to_string(), "superseded_by".to_string())],
            "held by {holder}"
        );
        assert!(kinds(&a).is_empty(), "held by {holder}: {:?}", kinds(&a));
        assert_eq!(b.status, Status::Deprecated);
        undo(&store, &applied.undo).unwrap();
        assert_eq!(snapshot(&store), before, "held by {holder}: undo");
    }
}

/// A supersede in favour of the memory the other already supersedes is refused (both
/// would end deprecated), and so is one of or by a soft-deleted memory, as a merge is;
/// the store is left as it was.
#[test]
fn supersede_refuses_a_cycle_and_deleted_memories() {
    let (_dir, store) = three();
    let supersede = |keep: &str, old: &str| Change::Supersede {
        keep: keep.into(),
        old: old.into(),
    };
    apply_at(&store, &supersede("a", "b"), now()).unwrap();
    let err = refused(&store, &supersede("b", "a"));
    assert!(matches!(err, CurateError::SupersedeCycle { .. }), "{err}");
    apply_at(
        &store,
        &Change::edit(["c"], Edit::Delete { reason: None }),
        now(),
    )
    .unwrap();
    for (keep, old) in [("a", "c"), ("c", "a")] {
        let err = refused(&store, &supersede(keep, old));
        assert!(
            matches!(err, CurateError::SupersedeDeleted(ref id) if id == "c"),
            "{err}"
        );
    }
}

/// The confidentiality level is set by name or number, unset by an empty value, and a
/// level that is not one is refused naming the levels.
#[test]
fn set_takes_the_confidentiality_level_by_name_or_number() {
    use memlens::model::TrustLevel;
    let (_dir, store) = three();
    set(&store, "a", &["trust_level=2"]).unwrap();
    assert_eq!(get(&store, "a").trust_level, Some(TrustLevel::Internal));
    set(&store, "a", &["trust_score=secret"]).unwrap();
    assert_eq!(get(&store, "a").trust_level, Some(TrustLevel::Secret));
    set(&store, "a", &["trust_level="]).unwrap();
    assert_eq!(get(&store, "a").trust_level, None);
    let values = vec![FieldValue::parse_assignment("trust_level=7")];
    let err = values.into_iter().next().unwrap().expect_err("not a level");
    assert!(err.to_string().contains("public, internal"), "{err}");
    assert!(err.is_usage());
}
