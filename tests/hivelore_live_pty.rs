//! The browser open on a hivelore project, in a real pseudo-terminal, while another
//! process writes its files: a memory file added and another edited both show, the
//! selection stays where it was, and a file changed on disk while the person edits the
//! same memory is not overwritten — the person is told, with what the file says now.

mod exchange_support;
mod project_support;
mod tui_common;

use project_support::TempProject;
use std::time::Instant;
use tui_common::pty::Run;

const NEWEST: &str = "2026-08-21-decision-anchor-specificity-ranking-and-the-eval-tradeoff";
const SECOND: &str = "2026-08-21-architecture-gate-verdict-is-the-single-decision-rule";

/// Writes a file the way an agent's tool does (a whole new text, then a rename).
fn agent_writes(path: &std::path::Path, text: &str) {
    let temp = path.with_extension("tmp");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, path).unwrap();
}

#[test]
fn files_agents_write_show_in_the_open_browser() {
    let Some(project) = TempProject::new("live") else {
        return;
    };
    let mut run = Run::hivelore(&project.root, 140, 40);
    run.wait_for("the newest memory selected", |t| {
        t.contains("Anchor specificity: why the briefing")
    });

    // another process adds a memory and edits another
    let added = project
        .memories()
        .join("team/2026-12-02-gotcha-zebra-fresh.md");
    let started = Instant::now();
    agent_writes(
        &added,
        "---\nid: 2026-12-02-gotcha-zebra-fresh\nscope: team\ntype: gotcha\nstatus: proposed\ncreated_at: '2026-12-02T00:00:00.000Z'\n---\n# Zebra fresh memory from an agent\n",
    );
    let second = project.file(SECOND);
    let text = std::fs::read_to_string(&second).unwrap();
    agent_writes(
        &second,
        &text.replace(
            "# `core/gate-verdict.ts` is the ONLY place",
            "# Edited by an agent: the ONLY place",
        ),
    );
    let screen = run.wait_for("both changes", |t| {
        t.contains("Zebra fresh memory from an agent") && t.contains("Edited by an agent")
    });
    eprintln!("both changes shown {:?} after the write", started.elapsed());
    // the selection stayed on the memory it was on: the detail pane still shows it
    assert!(
        screen.contains("Anchor specificity: why the briefing"),
        "{screen}"
    );

    // the person edits the newest memory while an agent changes its file
    run.send("e");
    run.wait_for("the editor", |t| {
        t.contains("Ctrl-s") || t.contains("ctrl-s")
    });
    run.send(" mine");
    let newest = project.file(NEWEST);
    let agent = std::fs::read_to_string(&newest)
        .unwrap()
        .replace("status: validated", "status: proposed");
    agent_writes(&newest, &agent);
    run.wait_for("the conflict", |t| {
        t.contains("changed on disk while you edit it")
    });
    assert_eq!(
        std::fs::read_to_string(&newest).unwrap(),
        agent,
        "the agent's file is untouched"
    );
    run.send("\x1b");
    run.send("y");
    run.send("\x03");
    run.wait_exit();
    assert_eq!(std::fs::read_to_string(&newest).unwrap(), agent);
}
