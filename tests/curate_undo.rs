//! Undo: several levels deep, bulk changes included, back to the exact previous records;
//! refused when a memory changed since; and a property test over random sessions.

mod curate_support;

use curate_support::*;
use memlens::curate::{Change, CurateError, Edit, FieldValue, UndoStack, apply_at, track_read};
use memlens::model::{Memory, Relationship, Scope, Status, Timestamp, feel_index};
use memlens::store::Store;
use proptest::prelude::*;

fn t(n: i64) -> Timestamp {
    Timestamp(at("2026-05-01T00:00:00Z").0 + n * 1_000_000_000)
}

#[test]
fn several_levels_of_undo_including_bulk_and_purge_restore_every_field() {
    let (_dir, store) = temp_store();
    seed(&store, &[full_memory("a", "b"), memory("b"), memory("c")]);
    let original = snapshot(&store);
    let mut stack = UndoStack::default();
    let steps = [
        Change::edit(["a", "b", "c"], Edit::Approve),
        Change::edit(["a"], Edit::Rate(2)),
        Change::link("c", "b"),
        Change::edit(
            ["b", "c"],
            Edit::Delete {
                reason: Some("old".into()),
            },
        ),
        Change::Purge {
            ids: vec!["a".into(), "c".into()],
        },
    ];
    let mut states = vec![original.clone()];
    for (i, change) in steps.iter().enumerate() {
        stack.apply_at(&store, change, t(i as i64)).unwrap();
        states.push(snapshot(&store));
    }
    assert_eq!(stack.len(), steps.len());
    assert!(!exists(&store, "a"));
    states.pop();
    while let Some(expected) = states.pop() {
        stack.undo(&store).unwrap();
        assert_eq!(snapshot(&store), expected);
    }
    assert_eq!(snapshot(&store), original);
    assert!(matches!(
        stack.undo(&store),
        Err(CurateError::NothingToUndo(_))
    ));
}

#[test]
fn undoing_a_link_makes_it_disappear_from_both_sides() {
    let (_dir, store) = temp_store();
    seed(&store, &[memory("a"), memory("b")]);
    let mut stack = UndoStack::default();
    stack
        .apply_at(&store, &Change::link("a", "b"), t(1))
        .unwrap();
    assert_eq!(linked(&store, "b"), ["a"]);
    stack.undo(&store).unwrap();
    assert!(linked(&store, "a").is_empty() && linked(&store, "b").is_empty());
    assert_eq!(get(&store, "a"), memory("a"));
}

#[test]
fn undo_is_refused_when_the_memory_changed_since_and_nothing_is_written() {
    let (_dir, store) = temp_store();
    seed(&store, &[memory("a"), memory("b"), memory("c")]);
    let mut stack = UndoStack::default();
    stack
        .apply_at(&store, &Change::edit(["c"], Edit::Rate(5)), t(1))
        .unwrap();
    stack
        .apply_at(&store, &Change::edit(["a", "b"], Edit::Approve), t(2))
        .unwrap();
    // Someone else edits `a` outside this history.
    let retitle = Edit::Set(vec![FieldValue::Title(Some("theirs".into()))]);
    apply_at(&store, &Change::edit(["a"], retitle), t(3)).unwrap();
    let before = snapshot(&store);
    let e = stack.undo(&store).unwrap_err();
    assert!(
        matches!(&e, CurateError::Conflict { id, .. } if id == "a"),
        "{e}"
    );
    assert!(!e.is_usage());
    assert_eq!(snapshot(&store), before, "b must not be half-undone");
    assert_eq!(get(&store, "b").status, Status::Validated);
    // The conflicting change is dropped; the one before it still undoes.
    assert_eq!(stack.len(), 1);
    stack.undo(&store).unwrap();
    assert_eq!(get(&store, "c"), memory("c"));
    assert_eq!(get(&store, "a").title.as_deref(), Some("theirs"));
}

#[test]
fn reads_since_a_change_do_not_block_its_undo_and_are_kept() {
    let (_dir, store) = temp_store();
    seed(&store, &[memory("a")]);
    let mut stack = UndoStack::default();
    stack
        .apply_at(&store, &Change::edit(["a"], Edit::Approve), t(1))
        .unwrap();
    let read = track_read(&store, "a").unwrap();
    stack.undo(&store).unwrap();
    let a = get(&store, "a");
    assert_eq!(a.status, Status::Draft);
    assert_eq!(a.updated_at, long_ago());
    assert_eq!((a.read_count, a.last_read_at), (1, read.last_read_at));
}

#[test]
fn undoing_a_merge_gives_back_the_reads_it_summed_and_keeps_the_ones_since() {
    let (_dir, store) = temp_store();
    let (mut a, mut b) = (memory("a"), memory("b"));
    a.read_count = 2;
    b.read_count = 5;
    seed(&store, &[a, b]);
    let original = snapshot(&store);
    let mut stack = UndoStack::default();
    let merge = Change::Merge {
        into: "a".into(),
        from: vec!["b".into()],
    };
    stack.apply_at(&store, &merge, t(1)).unwrap();
    assert_eq!(get(&store, "a").read_count, 7);
    let read = track_read(&store, "a").unwrap();
    stack.undo(&store).unwrap();
    let a = get(&store, "a");
    assert_eq!((a.read_count, a.last_read_at), (3, read.last_read_at));
    assert!(get(&store, "b").deleted_at.is_none());
    // redo merges again, the read still counted
    stack.redo(&store).unwrap();
    assert_eq!(get(&store, "a").read_count, 8);
    stack.undo(&store).unwrap();
    assert_ne!(snapshot(&store), original, "the read since stays");
    assert_eq!(get(&store, "b"), {
        let mut b = memory("b");
        b.read_count = 5;
        b
    });
}

#[test]
fn redo_applies_the_undone_change_again_until_a_new_change_is_made() {
    let (_dir, store) = temp_store();
    seed(&store, &[memory("a")]);
    let mut stack = UndoStack::default();
    stack
        .apply_at(&store, &Change::edit(["a"], Edit::Rate(4)), t(1))
        .unwrap();
    let rated = snapshot(&store);
    stack.undo(&store).unwrap();
    stack.redo(&store).unwrap();
    assert_eq!(snapshot(&store), rated);
    stack.undo(&store).unwrap();
    stack
        .apply_at(&store, &Change::edit(["a"], Edit::Restore), t(2))
        .unwrap(); // no-op
    assert!(stack.next_redo().is_some(), "a no-op change keeps the redo");
    stack
        .apply_at(&store, &Change::edit(["a"], Edit::Approve), t(3))
        .unwrap();
    assert!(matches!(
        stack.redo(&store),
        Err(CurateError::NothingToUndo(_))
    ));
    // A redo is refused, like an undo, when the memory changed in between.
    stack.undo(&store).unwrap();
    apply_at(&store, &Change::edit(["a"], Edit::Rate(1)), t(4)).unwrap();
    let e = stack.redo(&store).unwrap_err();
    assert!(e.to_string().starts_with("cannot redo"), "{e}");
    assert_eq!(get(&store, "a").status, Status::Draft);
}

#[test]
fn the_history_forgets_the_oldest_change_beyond_its_depth() {
    let (_dir, store) = temp_store();
    seed(&store, &[memory("a")]);
    let mut stack = UndoStack::new(2);
    for i in 0..3 {
        // three raters: one rater's repeated rating would change nothing
        let rate = Edit::RateAs {
            rater: format!("rater {i}"),
            rating: 3,
        };
        stack
            .apply_at(&store, &Change::edit(["a"], rate), t(i))
            .unwrap();
    }
    assert_eq!(stack.len(), 2);
    stack.undo(&store).unwrap();
    stack.undo(&store).unwrap();
    assert_eq!(get(&store, "a").rating_count, 1);
    assert!(stack.undo(&store).is_err());
}

// ---- property test: random sessions undo to the exact original ----

const TYPES: [&str; 3] = ["note", "decision", "gotcha"];
const TAGS: [&str; 4] = ["a", "b", "c", "d"];

fn arb_memory(i: usize, n: usize) -> impl Strategy<Value = Memory> {
    (
        (
            proptest::option::of("[a-z ]{1,12}"),
            0..TYPES.len(),
            0..Status::ALL.len(),
        ),
        (
            proptest::sample::subsequence(TAGS.to_vec(), 0..=3),
            0u32..4,
            0u32..20,
        ),
        (
            proptest::option::of(0.0f64..=1.0),
            any::<bool>(),
            proptest::option::of(-1.0f64..=1.0),
        ),
        proptest::collection::vec((0..n, "[a-z]{1,6}"), 0..3),
    )
        .prop_map(
            move |((title, ty, status), (tags, count, extra), (humor, deleted, valence), links)| {
                let id = format!("m{i}");
                let mut m = Memory::new(
                    id.clone(),
                    format!("body {i} {extra}"),
                    Timestamp(i as i64 * 1_000),
                );
                m.title = title;
                m.memory_type = TYPES[ty].into();
                m.status = Status::ALL[status];
                m.tags = tags.into_iter().map(String::from).collect();
                m.rating_count = count;
                m.rating_sum = count * 3;
                m.feel[feel_index("humor").unwrap_or(0)] = humor;
                m.feel[feel_index("valence").unwrap_or(0)] = valence;
                if deleted {
                    m.deleted_at = Some(Timestamp(5_000));
                    m.deleted_reason = Some("dup".into());
                }
                if extra % 3 == 0 {
                    m.scope = Scope::Module;
                    m.module = Some("core".into());
                    m.extra
                        .insert("validated_by".into(), serde_json::Value::Null);
                }
                for (target, kind) in links {
                    let target = format!("m{target}");
                    if target != id && !m.relationships.iter().any(|r| r.target == target) {
                        m.relationships.push(Relationship {
                            target,
                            kind,
                            strength: None,
                        });
                    }
                }
                m
            },
        )
}

fn arb_store() -> impl Strategy<Value = Vec<Memory>> {
    (2usize..6).prop_flat_map(|n| (0..n).map(|i| arb_memory(i, n + 1)).collect::<Vec<_>>())
}

/// One curation action on memory indexes; index == number of memories is an unknown id.
fn arb_action() -> impl Strategy<Value = (u8, Vec<usize>, u8, usize)> {
    (
        0u8..13,
        proptest::collection::vec(0usize..7, 1..4),
        1u8..=5,
        0usize..4,
    )
}

fn to_change((verb, who, n, pick): (u8, Vec<usize>, u8, usize), count: usize) -> Change {
    let ids: Vec<String> = who.iter().map(|&i| format!("m{}", i.min(count))).collect();
    let tag = TAGS[pick].to_string();
    let edit = match verb {
        0 => Edit::Approve,
        1 => Edit::Reject {
            reason: format!("reason {n}"),
        },
        2 => Edit::Rate(n),
        3 => Edit::Delete {
            reason: (n % 2 == 0).then(|| "why".to_string()),
        },
        4 => Edit::Restore,
        5 => Edit::Tag(vec![tag]),
        6 => Edit::Untag(vec![tag]),
        7 => Edit::Set(vec![
            FieldValue::Type(TYPES[pick % TYPES.len()].into()),
            FieldValue::Feel(
                feel_index("humor").unwrap_or(0),
                (n > 2).then_some(f64::from(n) / 5.0),
            ),
        ]),
        8 => return Change::Purge { ids },
        9 => {
            return Change::Link {
                a: ids[0].clone(),
                b: format!("m{}", pick.min(count)),
                kind: ["related", "blocks", ""][usize::from(n) % 3].into(),
            };
        }
        10 => {
            return Change::Unlink {
                a: ids[0].clone(),
                b: format!("m{}", pick.min(count)),
            };
        }
        11 => {
            return Change::Merge {
                into: format!("m{}", pick.min(count)),
                from: ids,
            };
        }
        _ => Edit::Set(vec![FieldValue::Scope(Scope::Module)]),
    };
    Change::Edit { ids, edit }
}

fn run_session(
    memories: &[Memory],
    actions: &[(u8, Vec<usize>, u8, usize)],
) -> Result<(), TestCaseError> {
    let (_dir, store) = temp_store();
    seed(&store, memories);
    let original = snapshot(&store);
    let mut stack = UndoStack::new(1000);
    let mut changes = 0;
    for (step, action) in actions.iter().enumerate() {
        let change = to_change(action.clone(), memories.len());
        let before = snapshot(&store);
        match stack.apply_at(&store, &change, Timestamp(1_000_000 + step as i64)) {
            Ok(applied) => {
                changes += usize::from(!applied.is_no_op());
                prop_assert_eq!(applied.is_no_op(), snapshot(&store) == before);
            }
            Err(_) => prop_assert_eq!(snapshot(&store), before.clone()),
        }
    }
    prop_assert_eq!(stack.len(), changes);
    for _ in 0..changes {
        stack
            .undo(&store)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    prop_assert_eq!(snapshot(&store), original);
    prop_assert!(stack.undo(&store).is_err());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_session_of_changes_undoes_to_the_exact_original_records(
        memories in arb_store(),
        actions in proptest::collection::vec(arb_action(), 1..14),
    ) {
        run_session(&memories, &actions)?;
    }
}

#[test]
fn store_helper_sanity_the_snapshot_sees_a_change() {
    let (_dir, store): (_, Store) = temp_store();
    seed(&store, &[memory("a")]);
    let before = snapshot(&store);
    apply_at(&store, &Change::edit(["a"], Edit::Rate(1)), t(0)).unwrap();
    assert_ne!(snapshot(&store), before);
}
