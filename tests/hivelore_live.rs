//! The browser's side of a project changing on disk, run headless through the real
//! update and write code: files agents add and edit appear with the selection kept, a
//! memory being edited that changes on disk is not overwritten and the file's version
//! is shown beside the person's text, and private text stays masked until the reveal
//! key.

mod exchange_support;
mod project_support;

use memlens::collection::LocalCollection;
use memlens::project::Project;
use memlens::project::live::Changed;
use memlens::tui::action::Action;
use memlens::tui::config::Config;
use memlens::tui::headless::Headless;
use memlens::tui::theme::ColorMode;
use project_support::TempProject;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;

const NEWEST: &str = "2026-08-21-decision-anchor-specificity-ranking-and-the-eval-tradeoff";
const SECOND: &str = "2026-08-21-architecture-gate-verdict-is-the-single-decision-rule";

fn browser(project: &TempProject) -> (Project, Headless) {
    let p = Project::locate(&project.root).unwrap();
    let (store, _) = p.open(&|_| {}).unwrap();
    let memories = Arc::new(LocalCollection::over(Arc::new(store)));
    let b = Headless::new(memories, Config::defaults(ColorMode::NoColor), (140, 40));
    (p, b)
}

fn screen(b: &Headless) -> String {
    let mut t = Terminal::new(TestBackend::new(140, 40)).unwrap();
    b.draw(&mut t, memlens::model::Timestamp::now()).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn selected(b: &Headless) -> String {
    b.state
        .selected_hit()
        .map(|h| h.memory.id.clone())
        .unwrap_or_default()
}

#[test]
fn changes_on_disk_show_with_the_selection_kept() {
    let Some(project) = TempProject::new("live-headless") else {
        return;
    };
    let (p, mut b) = browser(&project);
    b.dispatch(Action::SelectNext);
    assert_eq!(selected(&b), SECOND);
    std::fs::write(
        project.memories().join("team/2026-12-02-gotcha-zebra.md"),
        "---\nid: 2026-12-02-gotcha-zebra\ntype: gotcha\ncreated_at: '2026-12-02T00:00:00.000Z'\n---\n# Zebra from an agent\n",
    )
    .unwrap();
    let path = project.file(NEWEST);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("# Anchor specificity:", "# Edited by an agent:"),
    )
    .unwrap();
    b.dispatch(Action::FilesChanged(Box::new(Changed::everything(
        p.clone(),
    ))));
    assert_eq!(selected(&b), SECOND, "the selection stays on its memory");
    let shown = screen(&b);
    assert!(
        shown.contains("Zebra from an agent") && shown.contains("Edited by an agent"),
        "{shown}"
    );
    assert!(
        b.state
            .report
            .as_deref()
            .is_some_and(|r| r.contains("2 memories changed on disk")),
        "{:?}",
        b.state.report
    );

    // the person edits SECOND while an agent rewrites its file
    b.dispatch(Action::Edit);
    assert!(b.state.editor.is_some());
    b.type_keys(" mine");
    let path = project.file(SECOND);
    let mut agent = std::fs::read_to_string(&path)
        .unwrap()
        .replace("status: validated", "status: proposed");
    agent.push_str("\nAn agent added this closing remark.\n");
    std::fs::write(&path, &agent).unwrap();
    b.dispatch(Action::FilesChanged(Box::new(Changed {
        project: p,
        paths: Some(vec![format!("team/{SECOND}.md")]),
        usage: false,
    })));
    let message = b.state.message.clone().unwrap_or_default();
    assert!(
        message.contains("changed on disk while you edit it")
            && message.contains("on disk now: proposed"),
        "{message}"
    );
    let editor = b.state.editor.as_ref().expect("the editor stays open");
    assert!(
        editor.is_dirty()
            && editor
                .text(memlens::tui::editor::EditorField::Title)
                .contains("mine"),
        "the person's text stays in the editor"
    );
    match &editor.on_disk {
        Some(memlens::tui::editor::OnDisk::Changed(m)) => {
            assert_eq!(m.status.as_str(), "proposed");
            assert!(m.body.contains("An agent added this closing remark."));
        }
        other => panic!("the version on disk is kept beside the edit: {other:?}"),
    }
    // both versions side by side: the person's in the editor, the file's beside it
    // with what only it says marked
    let text = screen(&b);
    assert!(text.contains("On disk now"), "{text}");
    assert!(text.contains("mine"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("▌ An agent added this closing remark.")),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), agent);
}

#[test]
fn private_text_is_masked_until_revealed() {
    let Some(project) = TempProject::new("private-headless") else {
        return;
    };
    let path = project.file(NEWEST);
    let text = std::fs::read_to_string(&path).unwrap().replacen(
        "eval baseline moved 97 → 96\n",
        "eval baseline moved 97 → 96\n\nkey: <private>hunter2zebra</private>\n",
        1,
    );
    std::fs::write(&path, &text).unwrap();
    let (_, mut b) = browser(&project);
    b.dispatch(Action::FocusDetail);
    let masked = screen(&b);
    assert!(
        !masked.contains("hunter2zebra") && masked.contains("[private: 12 characters hidden]"),
        "{masked}"
    );
    b.dispatch(Action::TogglePrivate);
    assert!(screen(&b).contains("<private>hunter2zebra</private>"));
    b.dispatch(Action::TogglePrivate);
    assert!(!screen(&b).contains("hunter2zebra"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "nothing written"
    );
}

/// `.ai/memories` moved away and put back (a restore from a backup, a tool that
/// replaces the directory): nothing is said while it is gone — its memories are not
/// taken for deleted — everything is looked at once it is back, and a file written in
/// the new directory is seen (the watches followed the old one before).
#[test]
#[cfg(target_os = "linux")]
fn the_memory_directory_moved_away_and_back_is_watched_again() {
    use memlens::project::notify::Notifier;
    let Some(project) = TempProject::new("moved") else {
        return;
    };
    let p = Project::locate(&project.root).unwrap();
    // the open makes `.ai/.cache`, which the notifier watches too
    let _opened = p.open(&|_| {}).unwrap();
    let mut n = Notifier::new(&p).expect("inotify");
    let memories = project.memories();
    let aside = project.root.join("memories-aside");
    std::fs::rename(&memories, &aside).unwrap();
    let gone = n.wait(300);
    assert!(gone.paths.is_empty() && !gone.everything, "{gone:?}");
    // a copy put in its place, as `cp -r` of a backup does
    let copy = std::process::Command::new("cp")
        .args(["-r"])
        .arg(&aside)
        .arg(&memories)
        .status()
        .unwrap();
    assert!(copy.success());
    let mut back = n.wait(300);
    for _ in 0..10 {
        if back.everything {
            break;
        }
        back = n.wait(300);
    }
    assert!(back.everything, "{back:?}");
    std::fs::write(
        memories.join("after.md"),
        "---\nid: after\ntype: gotcha\ncreated_at: '2026-01-01T00:00:00.000Z'\n---\nx\n",
    )
    .unwrap();
    let mut seen = n.wait(500);
    for _ in 0..5 {
        if seen.paths.iter().any(|p| p == "after.md") {
            break;
        }
        seen = n.wait(500);
    }
    assert!(seen.paths.iter().any(|p| p == "after.md"), "{seen:?}");
}
