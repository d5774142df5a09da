//! A hivelore project curated in place (`--hivelore`): every curation verb on a copy
//! of the real fixtures, then the files read the way hivelore's loader reads them —
//! statuses, `related_ids` on both sides, `usage.json` counts, soft-deleted memories
//! not served, restored ones served again — and every file no change named left byte
//! for byte as it was.

mod exchange_support;
mod project_support;

use memlens::curate::{Change, Edit, FieldValue, apply, track_read};
use memlens::project::Project;
use memlens::store::Store;
use project_support::{TempProject, load, reads};
use std::collections::BTreeSet;

const A: &str = "2026-05-04-gotcha-auto-promote-ignores-config-minreads";
const B: &str = "2026-06-02-architecture-cli-command-surface";
const C: &str = "2026-06-02-architecture-core-pure-domain-layer";
const D: &str = "2026-04-25-decision-esm-only";
const E: &str = "2026-04-25-gotcha-tsup-externals-required";
const F: &str = "2026-04-27-decision-zod-error-formatting-no-direct-import";
const G: &str = "2026-04-27-gotcha-embeddings-load-error-double-print";
const H: &str = "2026-04-27-gotcha-mcp-exports-package-json";
const I: &str = "2026-05-02-attempt-crosspackage-deps-with-xyz-ranges";
const J: &str = "2026-05-02-gotcha-getbriefing-semantic-hits-silently-dropped-byid";

fn open(project: &TempProject) -> Store {
    let p = Project::locate(&project.root).unwrap();
    p.open(&|_| {}).unwrap().0
}

/// The files whose bytes differ between two snapshots.
fn changed_files(
    before: &std::collections::BTreeMap<String, Vec<u8>>,
    after: &std::collections::BTreeMap<String, Vec<u8>>,
) -> BTreeSet<String> {
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter(|n| before.get(*n) != after.get(*n))
        .map(|n| {
            n.rsplit('/')
                .next()
                .unwrap()
                .trim_end_matches(".md")
                .to_string()
        })
        .collect()
}

#[test]
fn every_verb_is_written_through_as_hivelore_reads_it() {
    let Some(project) = TempProject::new("verbs") else {
        return;
    };
    let original = project.snapshot();
    let store = open(&project);
    assert_eq!(
        project.snapshot(),
        original,
        "opening writes no memory file"
    );

    // approve a deprecated memory, reject another, retag a third
    let deprecated = "2026-05-04-gotcha-mem-save-scope-overridden-by-defaultscope";
    apply(&store, &Change::edit([deprecated], Edit::Approve)).unwrap();
    apply(
        &store,
        &Change::edit(
            [D],
            Edit::Reject {
                reason: "no longer true".into(),
            },
        ),
    )
    .unwrap();
    let tags = vec![FieldValue::Tags(vec!["esm".into(), "build".into()])];
    apply(&store, &Change::edit([E], Edit::Set(tags))).unwrap();
    // what hivelore has no field for changes no file
    apply(&store, &Change::edit([F], Edit::Rate(5))).unwrap();
    let title = vec![FieldValue::Title(Some("A title of my own".into()))];
    apply(&store, &Change::edit([F], Edit::Set(title))).unwrap();
    // link with a kind, delete, purge, read
    apply(
        &store,
        &Change::Link {
            a: A.into(),
            b: G.into(),
            kind: "supports".into(),
        },
    )
    .unwrap();
    apply(
        &store,
        &Change::Unlink {
            a: B.into(),
            b: C.into(),
        },
    )
    .unwrap();
    apply(
        &store,
        &Change::edit(
            [H],
            Edit::Delete {
                reason: Some("duplicate".into()),
            },
        ),
    )
    .unwrap();
    apply(
        &store,
        &Change::Purge {
            ids: vec!["2026-04-25-convention-use-pnpm-workspaces".into()],
        },
    )
    .unwrap();
    track_read(&store, A).unwrap();
    track_read(&store, A).unwrap();
    track_read(&store, A).unwrap();
    apply(
        &store,
        &Change::Merge {
            into: I.into(),
            from: vec![J.into()],
        },
    )
    .unwrap();

    let after = project.snapshot();
    let expected: BTreeSet<String> = [
        deprecated,
        D,
        E,
        A,
        G,
        B,
        H,
        I,
        J,
        "2026-04-25-convention-use-pnpm-workspaces",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    assert_eq!(
        changed_files(&original, &after),
        expected,
        "only the files the changes name"
    );

    let served = load(&project.memories());
    assert_eq!(served[deprecated].status(), "validated");
    assert_eq!(served[deprecated].front["validated_by"], "human");
    assert_eq!(served[D].status(), "rejected");
    assert_eq!(served[D].front["stale_reason"], "no longer true");
    assert!(!served[D].served());
    assert_eq!(served[E].front["tags"], serde_json::json!(["esm", "build"]));
    assert!(served[A].related().contains(&G.to_string()));
    assert!(
        served[G].related().contains(&A.to_string()),
        "a link is on both sides"
    );
    assert!(!served[B].related().contains(&C.to_string()));
    assert!(!served[H].served(), "a soft-deleted memory is not served");
    assert!(
        !served.contains_key("2026-04-25-convention-use-pnpm-workspaces"),
        "purged: file gone"
    );
    assert_eq!(reads(&project.root, A), 3);
    assert!(!served[J].served(), "merged away: not served");
    assert!(
        served[I].related().contains(&J.to_string())
            && served[J].related().contains(&I.to_string())
    );
    assert_eq!(served.len(), 121);

    // restore reverses the delete exactly
    apply(&store, &Change::edit([H], Edit::Restore)).unwrap();
    let restored = project.snapshot();
    let h = format!(".ai/memories/team/{H}.md");
    assert_eq!(restored[&h], original[&h], "restored byte for byte");
    assert!(load(&project.memories())[H].served());

    // what hivelore has no field for is still in the index
    let m = store.read().unwrap().get(F).unwrap().unwrap();
    assert_eq!(
        (m.rating_count, m.title.as_deref()),
        (1, Some("A title of my own"))
    );
    let a = store.read().unwrap().get(A).unwrap().unwrap();
    assert_eq!(a.read_count, 3);
    assert!(
        a.relationships
            .iter()
            .any(|r| r.target == G && r.kind == "supports")
    );
}

#[test]
fn what_hivelore_has_no_field_for_survives_it_rewriting_a_file() {
    let Some(project) = TempProject::new("rewrite") else {
        return;
    };
    {
        let store = open(&project);
        apply(&store, &Change::edit([F], Edit::Rate(4))).unwrap();
        apply(
            &store,
            &Change::Link {
                a: F.into(),
                b: G.into(),
                kind: "supports".into(),
            },
        )
        .unwrap();
        apply(&store, &Change::edit([G], Edit::Delete { reason: None })).unwrap();
    }
    // an agent's mem_update: a new body and tag, frontmatter written whole
    let path = project.file(F);
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace("tags:\n", "tags:\n  - agent-added\n") + "\nMore from the agent.\n";
    std::fs::write(&path, text).unwrap();
    // the index is lost too for G: a fresh index must still see the deletion
    let p = Project::locate(&project.root).unwrap();
    let (store, synced) = p.open(&|_| {}).unwrap();
    assert_eq!(synced.read, 1, "only the changed file is read");
    let m = store.read().unwrap().get(F).unwrap().unwrap();
    assert!(m.body.ends_with("More from the agent.\n"));
    assert!(m.tags.contains(&"agent-added".to_string()));
    assert_eq!(m.rating_count, 1, "the rating survives");
    assert!(
        m.relationships
            .iter()
            .any(|r| r.target == G && r.kind == "supports"),
        "{:?}",
        m.relationships
    );
    drop(store);
    std::fs::remove_dir_all(p.index_dir()).unwrap();
    let (store, synced) = p.open(&|_| {}).unwrap();
    assert_eq!(synced.read, 122);
    let g = store.read().unwrap().get(G).unwrap().unwrap();
    assert!(g.deleted_at.is_some(), "the deletion marker is read back");
    assert_eq!(g.status.as_str(), "validated");
    apply(&store, &Change::edit([G], Edit::Restore)).unwrap();
    assert!(load(&project.memories())[G].served());
}

#[test]
fn a_file_changed_on_disk_is_never_overwritten_silently() {
    let Some(project) = TempProject::new("conflict") else {
        return;
    };
    let store = open(&project);
    let path = project.file(A);
    let agent = std::fs::read_to_string(&path)
        .unwrap()
        .replace("status: validated", "status: proposed");
    std::fs::write(&path, &agent).unwrap();
    let err = apply(
        &store,
        &Change::edit([A], Edit::Reject { reason: "x".into() }),
    )
    .unwrap_err();
    assert!(err.to_string().contains("changed on disk"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        agent,
        "the agent's text stays"
    );
    let m = store.read().unwrap().get(A).unwrap().unwrap();
    assert_eq!(
        m.status.as_str(),
        "validated",
        "the refused change is not in the index"
    );
    // once read again, the change applies on top of the agent's version
    memlens::project::sync::reread(
        &store,
        &Project::locate(&project.root).unwrap(),
        &[format!("team/{A}.md")],
        false,
    )
    .unwrap();
    // the agent's change dated by the file, to the millisecond as times are written
    let read_again = store.read().unwrap().get(A).unwrap().unwrap();
    assert_eq!(read_again.status.as_str(), "proposed");
    assert_eq!(
        read_again.updated_at.0 % 1_000_000,
        0,
        "{}",
        read_again.updated_at
    );
    apply(
        &store,
        &Change::edit([A], Edit::Reject { reason: "x".into() }),
    )
    .unwrap();
    assert_eq!(load(&project.memories())[A].status(), "rejected");
}

#[test]
fn files_added_and_removed_by_agents_are_read_on_open() {
    let Some(project) = TempProject::new("agents") else {
        return;
    };
    drop(open(&project));
    let new = project.memories().join("team/2026-12-01-gotcha-new.md");
    std::fs::write(&new, "---\nid: 2026-12-01-gotcha-new\ntype: gotcha\nstatus: proposed\ncreated_at: '2026-12-01T00:00:00.000Z'\n---\n# New one\n").unwrap();
    std::fs::remove_file(project.file(D)).unwrap();
    std::fs::write(
        project.root.join(".ai/.cache/usage.json"),
        format!(r#"{{"version":1,"updated_at":"x","by_id":{{"{E}":{{"read_count":7,"last_read_at":"2026-11-01T00:00:00.000Z"}}}}}}"#),
    )
    .unwrap();
    let (store, synced) = Project::locate(&project.root)
        .unwrap()
        .open(&|_| {})
        .unwrap();
    assert_eq!(synced.read, 1);
    assert_eq!(synced.removed, vec![D.to_string()]);
    let r = store.read().unwrap();
    assert!(r.get("2026-12-01-gotcha-new").unwrap().is_some());
    assert!(r.get(D).unwrap().is_none());
    assert_eq!(r.get(E).unwrap().unwrap().read_count, 7);
}

#[test]
fn reads_add_to_what_hivelore_counted_meanwhile() {
    let Some(project) = TempProject::new("reads") else {
        return;
    };
    let usage = project.root.join(".ai/.cache/usage.json");
    std::fs::create_dir_all(usage.parent().unwrap()).unwrap();
    let doc = |n: u32| {
        format!(
            r#"{{"version":1,"updated_at":"x","by_id":{{"{A}":{{"read_count":{n},"last_read_at":null,"applied_count":2}}}}}}"#
        )
    };
    std::fs::write(&usage, doc(2)).unwrap();
    let store = open(&project);
    // hivelore's own reads land after memlens read the file
    std::fs::write(&usage, doc(5)).unwrap();
    track_read(&store, A).unwrap();
    assert_eq!(
        reads(&project.root, A),
        6,
        "5 of hivelore's and 1 of memlens's"
    );
    let text = std::fs::read_to_string(&usage).unwrap();
    assert!(text.contains("\"applied_count\": 2"), "{text}");
    drop(store);
    let store = open(&project);
    assert_eq!(store.read().unwrap().get(A).unwrap().unwrap().read_count, 6);
}

/// The project opened again, after checking that a warning names `what`.
fn reopen_warning(project: &TempProject, what: &str) -> Store {
    let (store, synced) = Project::locate(&project.root)
        .unwrap()
        .open(&|_| {})
        .unwrap();
    assert!(
        synced.problems.iter().any(|p| p.contains(what)),
        "{what} in {:?}",
        synced.problems
    );
    store
}

#[test]
fn a_file_memlens_cannot_read_is_never_written_over() {
    let Some(project) = TempProject::new("unreadable") else {
        return;
    };
    drop(open(&project));
    let path = project.file(F);
    // broken frontmatter and a new paragraph, by hand
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen("type: decision", "type: decision\ntags: [a, b", 1)
        + "\nIMPORTANT NEW PARAGRAPH written by hand.\n";
    assert_ne!(broken, text);
    std::fs::write(&path, &broken).unwrap();
    let store = reopen_warning(&project, &format!("{F}.md"));
    let err = apply(
        &store,
        &Change::edit([F], Edit::Set(vec![FieldValue::Type("gotcha".into())])),
    )
    .unwrap_err();
    assert!(err.to_string().contains("cannot read this file"), "{err}");
    // the refusal says why itself: the warning was printed on an earlier open
    assert!(err.to_string().contains("invalid YAML"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        broken,
        "the hand edit stays"
    );
}

#[test]
fn a_change_that_keeps_a_files_size_and_time_is_read_on_the_next_open() {
    let Some(project) = TempProject::new("sametime") else {
        return;
    };
    drop(open(&project));
    let path = project.file(A);
    let text = std::fs::read_to_string(&path).unwrap();
    let when = std::fs::metadata(&path).unwrap().modified().unwrap();
    // one letter of the body changed, the time set back: the size and time as read
    let edited = text.replacen("Reproduced in", "Reproduced iN", 1);
    assert_ne!(edited, text);
    assert_eq!(edited.len(), text.len());
    std::fs::write(&path, &edited).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
    let store = open(&project);
    let set = Change::edit([A], Edit::Set(vec![FieldValue::Type("decision".into())]));
    let err = apply(&store, &set).unwrap_err();
    assert!(err.to_string().contains("changed on disk"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    drop(store);
    // the next open reads it, as the error says, and the change then goes through
    let store = open(&project);
    let m = store.read().unwrap().get(A).unwrap().unwrap();
    assert!(m.body.contains("Reproduced iN"), "{}", m.body);
    apply(&store, &set).unwrap();
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(
        now.contains("Reproduced iN") && now.contains("type: decision"),
        "{now}"
    );
}

#[test]
fn a_second_file_with_a_memorys_id_is_not_read_and_takes_nothing_with_it() {
    let Some(project) = TempProject::new("dupid") else {
        return;
    };
    let before = open(&project).read().unwrap().get(H).unwrap().expect("H");
    let original = std::fs::read_to_string(project.file(H)).unwrap();
    // another memory's file, given H's id
    let other = std::fs::read_to_string(project.file(G)).unwrap();
    let copy = other.replacen(&format!("id: {G}"), &format!("id: {H}"), 1);
    assert_ne!(copy, other);
    let dup = project.memories().join("team/zz-dupid.md");
    std::fs::write(&dup, &copy).unwrap();
    let store = reopen_warning(&project, "zz-dupid.md: id");
    let kept = store.read().unwrap().get(H).unwrap().expect("the memory");
    assert_eq!(kept, before, "the original file's memory");
    drop(store);
    // the copy goes: the memory stays
    std::fs::remove_file(&dup).unwrap();
    let (store, synced) = Project::locate(&project.root)
        .unwrap()
        .open(&|_| {})
        .unwrap();
    assert!(synced.removed.is_empty(), "{:?}", synced.removed);
    assert!(store.read().unwrap().get(H).unwrap().is_some());
    assert_eq!(std::fs::read_to_string(project.file(H)).unwrap(), original);
}

#[test]
fn a_second_file_with_a_memorys_id_holds_it_once_the_first_goes() {
    let Some(project) = TempProject::new("dupheld") else {
        return;
    };
    let store = open(&project);
    apply(&store, &Change::edit([H], Edit::Rate(5))).unwrap();
    let rated = store.read().unwrap().get(H).unwrap().expect("H");
    assert_eq!(rated.rating_count, 1);
    drop(store);
    let dup = project.memories().join("team/zz-copy.md");
    std::fs::copy(project.file(H), &dup).unwrap();
    drop(reopen_warning(&project, "zz-copy.md: id"));
    // the file that held the id goes: the copy holds it, and what only the index kept
    // of the memory (its rating) stays
    std::fs::remove_file(project.file(H)).unwrap();
    let (store, synced) = Project::locate(&project.root)
        .unwrap()
        .open(&|_| {})
        .unwrap();
    assert!(synced.removed.is_empty(), "{:?}", synced.removed);
    let m = store
        .read()
        .unwrap()
        .get(H)
        .unwrap()
        .expect("the memory stays");
    assert_eq!(
        (m.rating_sum, m.rating_count),
        (rated.rating_sum, rated.rating_count)
    );
    assert_eq!(
        m.source.as_ref().and_then(|s| s.path.as_deref()),
        Some("team/zz-copy.md")
    );
}

#[test]
fn a_rejected_memory_deleted_and_restored_after_the_index_is_lost_keeps_its_reason() {
    let Some(project) = TempProject::new("rejectdel") else {
        return;
    };
    let original = std::fs::read_to_string(project.file(D)).unwrap();
    let reason = r#"we: now ship "CJS" too (see #12)"#;
    {
        let store = open(&project);
        let reject = Edit::Reject {
            reason: reason.into(),
        };
        apply(&store, &Change::edit([D], reject)).unwrap();
        apply(
            &store,
            &Change::edit(
                [D],
                Edit::Delete {
                    reason: Some("gone".into()),
                },
            ),
        )
        .unwrap();
    }
    assert!(!load(&project.memories())[D].served());
    let p = Project::locate(&project.root).unwrap();
    std::fs::remove_dir_all(p.index_dir()).unwrap();
    let (store, _) = p.open(&|_| {}).unwrap();
    apply(&store, &Change::edit([D], Edit::Restore)).unwrap();
    let text = std::fs::read_to_string(project.file(D)).unwrap();
    assert_eq!(load(&project.memories())[D].status(), "rejected", "{text}");
    let m = store.read().unwrap().get(D).unwrap().unwrap();
    assert_eq!(
        m.extra.get("stale_reason").and_then(|v| v.as_str()),
        Some(reason),
        "{text}"
    );
    assert!(text.contains("we: now ship"), "{text}");
    assert_ne!(text, original);
}

/// A soft-deleted memory whose file is put back as it was by hand (`git checkout`) is
/// no longer deleted, also when the file has no `stale_reason` key (the index's record
/// of the delete stayed on it).
#[test]
fn a_deleted_memorys_file_put_back_by_hand_is_served_again() {
    let Some(project) = TempProject::new("putback") else {
        return;
    };
    let path = project.memories().join("nostale.md");
    let text = "---\nid: nostale\nscope: team\ntype: gotcha\nstatus: proposed\ntags: []\ncreated_at: \"2099-01-01T00:00:00.000Z\"\n---\nno stale key\n";
    std::fs::write(&path, text).unwrap();
    {
        let store = open(&project);
        apply(
            &store,
            &Change::edit(["nostale"], Edit::Delete { reason: None }),
        )
        .unwrap();
    }
    assert!(!load(&project.memories())["nostale"].served());
    std::fs::write(&path, text).unwrap();
    let store = open(&project);
    let m = store.read().unwrap().get("nostale").unwrap().unwrap();
    assert_eq!(m.deleted_at, None, "{m:?}");
    assert_eq!(m.status, memlens::model::Status::Proposed);
}

/// A type hivelore loads no memory of is refused in place (the file would drop out of
/// what its agents see), the file left as it was; a type hivelore knows is written.
#[test]
fn a_type_hivelore_does_not_load_is_refused_in_place() {
    let Some(project) = TempProject::new("badtype") else {
        return;
    };
    let store = open(&project);
    let before = std::fs::read(project.file(D)).unwrap();
    let set = |value: &str| {
        let v = FieldValue::parse_assignment(&format!("type={value}")).unwrap();
        apply(&store, &Change::edit([D], Edit::Set(vec![v])))
    };
    let err = set("weird").expect_err("refused").to_string();
    assert!(
        err.contains("hivelore loads no memory of type `weird`"),
        "{err}"
    );
    assert_eq!(std::fs::read(project.file(D)).unwrap(), before);
    assert_eq!(
        store.read().unwrap().get(D).unwrap().unwrap().memory_type,
        "decision"
    );
    set("gotcha").unwrap();
    assert_eq!(load(&project.memories())[D].front["type"], "gotcha");
}

/// A file hivelore's loader skips (no `id`, no `created_at`, a type not its own) is
/// skipped in place too, said as a problem, where an import takes it.
#[test]
fn files_the_hivelore_loader_skips_are_skipped_in_place() {
    let Some(project) = TempProject::new("skipped") else {
        return;
    };
    let dir = project.memories();
    let files = [
        (
            "no-created.md",
            "---\nid: no-created\ntype: gotcha\n---\nbody\n",
            "created_at: missing",
        ),
        (
            "no-id.md",
            "---\ntype: gotcha\ncreated_at: '2026-01-01T00:00:00.000Z'\n---\nbody\n",
            "id: missing",
        ),
        (
            "bad-type.md",
            "---\nid: bad-type\ntype: nonsense\ncreated_at: '2026-01-01T00:00:00.000Z'\n---\nbody\n",
            "type: `nonsense` is not one of hivelore's types",
        ),
        (
            "fine.md",
            "---\nid: fine\ntype: gotcha\ncreated_at: '2026-01-01T00:00:00.000Z'\n---\nbody\n",
            "",
        ),
    ];
    for (name, text, _) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let p = Project::locate(&project.root).unwrap();
    let (store, synced) = p.open(&|_| {}).unwrap();
    let reader = store.read().unwrap();
    for (name, _, said) in files {
        let id = name.trim_end_matches(".md");
        if said.is_empty() {
            assert!(reader.get(id).unwrap().is_some(), "{id}");
            continue;
        }
        assert!(reader.get(id).unwrap().is_none(), "{id} was read");
        assert!(
            synced
                .problems
                .iter()
                .any(|p| p.starts_with(name) && p.contains(said)),
            "{name}: {:?}",
            synced.problems
        );
    }
    // said again on the next open, though the files did not change
    drop((reader, store));
    let (_store, again) = p.open(&|_| {}).unwrap();
    assert_eq!(again.problems.len(), 3, "{:?}", again.problems);
}
