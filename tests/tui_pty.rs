//! End to end: the real `memlens demo` binary in a real pseudo-terminal, read back
//! through a vt100 parser. It starts, shows the demo memories, filters as you type,
//! switches tabs, moves a slider, opens help, survives resizes, and quits leaving the
//! terminal restored.

mod tui_common;

use tui_common::pty::{Run, find};

/// The number in the status line's `N matches`.
fn matches(text: &str) -> Option<usize> {
    let at = text.find(" matches").or_else(|| text.find(" match "))?;
    text[..at].split_whitespace().last()?.parse().ok()
}

/// Demo memories a plain loop finds for one literal word (live, recaps hidden).
fn demo_oracle(word: &str) -> usize {
    let text = include_str!("../assets/demo.jsonl");
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m.get("deleted_at").is_none_or(serde_json::Value::is_null))
        .filter(|m| m.get("type").and_then(|t| t.as_str()) != Some("session_recap"))
        .filter(|m| {
            let mut hay = String::new();
            for key in ["id", "title", "type", "module", "body", "content"] {
                if let Some(s) = m.get(key).and_then(|v| v.as_str()) {
                    hay.push_str(s);
                    hay.push('\n');
                }
            }
            if let Some(tags) = m.get("tags").and_then(|t| t.as_array()) {
                for t in tags.iter().filter_map(|t| t.as_str()) {
                    hay.push_str(t);
                    hay.push('\n');
                }
            }
            hay.to_lowercase().contains(word)
        })
        .count()
}

#[test]
fn browse_search_tabs_slider_help_resize_and_quit_in_a_real_terminal() {
    let mut run = Run::start(100, 30, &[]);
    let first = run.wait_for("the demo list", |t| matches(t).is_some_and(|n| n > 0));
    let all = matches(&first).expect("count");
    assert!(first.contains("Memories"), "{first}");
    assert!(first.contains("Detail"), "{first}");

    // filters as you type: the count is what a plain loop over the demo file finds
    run.send("/webhook");
    let expected = demo_oracle("webhook");
    assert!(expected > 0 && expected < all);
    let typed = run.wait_for("the webhook results", |t| matches(t) == Some(expected));
    assert!(typed.contains("webhook"), "the query is echoed:\n{typed}");

    // switch tabs: Esc leaves the search bar, 2 shows Time (drawn highlighted)
    run.send("\u{1b}");
    run.send("2");
    run.wait_for("the Time tab", |_| {
        let parser = run.screen();
        let screen = parser.screen();
        let row: String = (0..run.size.0)
            .filter_map(|c| screen.cell(0, c).map(|cell| cell.contents().to_string()))
            .collect();
        let Some(col) = row.find("2 Time") else {
            return false;
        };
        let col = row[..col].chars().count() as u16;
        screen
            .cell(0, col + 2)
            .is_some_and(|cell| cell.bgcolor() != vt100::Color::Default || cell.inverse())
    });
    assert_eq!(
        matches(&run.text()),
        Some(expected),
        "a tab orders, it does not filter"
    );

    // the filter panel: move the humor slider's lower bound up
    run.send("\u{15}"); // Ctrl-u does nothing outside the search bar
    run.send("/");
    run.send("\u{15}"); // clear the query
    run.wait_for("all memories again", |t| matches(t) == Some(all));
    run.send("\u{1b}");
    run.send("f");
    run.wait_for("the filter panel", |t| t.contains("Filters"));
    let humor_row = 14 + 3 + 3; // choice rows, numeric sliders, composites, then feel_* in order
    for _ in 0..humor_row {
        run.send("j");
    }
    run.wait_for("the humor row chosen", |t| t.contains("▸feel_humor"));
    for _ in 0..10 {
        run.send("l");
    }
    let moved = run.wait_for("the slider moved", |t| {
        t.contains("0.50 – 1.00") && t.contains("1 filter")
    });
    let kept = matches(&moved).expect("count");
    assert!(kept < all, "the slider keeps fewer: {kept} of {all}");

    // help, generated from the keymap in force
    run.send("?");
    run.wait_for("help", |t| t.contains("Help") && t.contains("next memory"));
    for _ in 0..30 {
        run.send("j");
    }
    run.wait_for("help scrolled to the global keys", |t| {
        t.contains("Anywhere outside a text box") && t.contains("open/close the filter panel")
    });
    run.send("q");
    run.wait_for("help closed", |t| !t.contains("Anywhere outside"));

    // resize: larger, below the minimum, and back
    run.resize(120, 40);
    run.wait_for("the 120×40 layout", |t| {
        t.lines().nth(39).is_some_and(|l| l.contains(" match"))
    });
    run.resize(60, 20);
    run.wait_for("the too-small screen", |t| {
        t.contains("too small") && t.contains("60×20")
    });
    run.resize(80, 24);
    run.wait_for("the 80×24 layout", |t| {
        t.lines().nth(23).is_some_and(|l| l.contains(" match"))
    });

    // quit
    run.send("q");
    let status = run.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let raw = run.raw();
    let entered = find(&raw, b"\x1b[?1049h").expect("entered the alternate screen");
    let left = find(&raw, b"\x1b[?1049l").expect("left the alternate screen");
    assert!(left > entered);
    for (what, seq) in [
        ("mouse capture off", &b"\x1b[?1000l"[..]),
        ("bracketed paste off", b"\x1b[?2004l"),
        ("cursor shown", b"\x1b[?25h"),
    ] {
        let at = find(&raw, seq).unwrap_or_else(|| panic!("{what} never sent"));
        assert!(
            at > find(&raw, b"\x1b[?2004h").unwrap_or(0),
            "{what} after entering"
        );
    }
    let tail = &raw[left..];
    assert!(tail.len() < 64, "nothing drawn after leaving: {tail:?}");
    // untrusted text from the demo's pasted terminal output never reached the terminal
    for payload in [
        &b"\x1b[1mnextest"[..],
        b"\x1b[32mPASS",
        b"\x1b[2K    Starting",
    ] {
        assert!(find(&raw, payload).is_none(), "{payload:?} was sent raw");
    }
}

#[test]
fn ctrl_c_quits_from_the_search_bar_and_restores_the_terminal() {
    let mut run = Run::start(80, 24, &[("NO_COLOR", "1")]);
    run.wait_for("the demo list", |t| matches(t).is_some_and(|n| n > 0));
    run.send("/abc");
    run.wait_for("the query", |t| t.contains("abc"));
    run.send("\u{3}");
    let status = run.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let raw = run.raw();
    let left = find(&raw, b"\x1b[?1049l").expect("left the alternate screen");
    assert!(find(&raw, b"\x1b[?1049h").is_some_and(|e| e < left));
    // NO_COLOR: no colour escapes at all (38;/48; set foreground/background)
    assert!(find(&raw, b"[38;").is_none() && find(&raw, b"[48;").is_none());
}

#[test]
fn no_mouse_leaves_the_mouse_alone() {
    let dir = tempfile::tempdir().expect("dir");
    let config = dir.path().join("memlens");
    std::fs::create_dir_all(&config).expect("mkdir");
    std::fs::write(config.join("config.toml"), "mouse = false\n").expect("write config");
    let home = dir.path().to_string_lossy().into_owned();
    let mut run = Run::start(80, 24, &[("XDG_CONFIG_HOME", &home)]);
    run.wait_for("the demo list", |t| matches(t).is_some_and(|n| n > 0));
    run.send("q");
    assert!(run.wait_exit().success());
    let raw = run.raw();
    assert!(
        find(&raw, b"\x1b[?1000h").is_none(),
        "mouse capture was turned on"
    );
}
