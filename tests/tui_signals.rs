//! End to end: the browser in a real pseudo-terminal, ended by a signal from outside
//! (SIGTERM, SIGHUP as when an ssh session drops, SIGINT as `kill -INT` sends it,
//! SIGQUIT). Each time it must leave the terminal as a quit does (alternate screen
//! left, mouse and paste off, cursor shown, cooked mode back) and exit with
//! 128 + the signal's number.

mod tui_common;

use tui_common::pty::{Run, find, not_restored};

fn ended_by(signal: i32, name: &str) {
    let mut run = Run::start(80, 24, &[]);
    run.wait_for("the demo list", |t| t.contains(" match"));
    assert!(!run.cooked(), "{name}: the browser runs in raw mode");
    // SAFETY: kill has no memory effects; the pid is our child's.
    let rc = unsafe { libc::kill(run.pid(), signal) };
    assert_eq!(rc, 0, "{name}: kill: {}", std::io::Error::last_os_error());
    let status = run.wait_exit();
    assert_eq!(
        status.exit_code(),
        128 + signal as u32,
        "{name}: exit status {status:?}"
    );
    let raw = run.raw();
    assert!(
        find(&raw, b"\x1b[?1049h").is_some(),
        "{name}: never entered"
    );
    let left = not_restored(&raw);
    assert!(left.is_empty(), "{name}: left {left:?} on");
    assert!(run.cooked(), "{name}: the terminal was left in raw mode");
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    ended_by(libc::SIGTERM, "SIGTERM");
}

#[test]
fn sighup_restores_the_terminal_and_exits_129() {
    ended_by(libc::SIGHUP, "SIGHUP");
}

#[test]
fn sigint_restores_the_terminal_and_exits_130() {
    ended_by(libc::SIGINT, "SIGINT");
}

#[test]
fn sigquit_restores_the_terminal_and_exits_131() {
    ended_by(libc::SIGQUIT, "SIGQUIT");
}
