//! The signals that end the browser from outside: SIGTERM, SIGHUP (the ssh session
//! dropped), SIGINT (`kill -INT`; in raw mode Ctrl-C arrives as a key instead) and
//! SIGQUIT. Caught, they end the loop like a quit, so the terminal is restored and the
//! writes already sent finish; the process then exits with 128 + the signal's number,
//! as a shell reports a program the signal ended. SIGKILL cannot be caught: `reset`
//! restores the terminal then.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// How a browser session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit.
    Quit,
    /// A signal ended it (its number).
    Signal(i32),
}

impl Ended {
    /// The exit code a shell expects: 0 on a quit, 128 + the number after a signal.
    pub fn exit_code(self) -> i32 {
        match self {
            Ended::Quit => 0,
            Ended::Signal(number) => 128 + number,
        }
    }
}

/// Ends the process `grace` after any of the four signals, in case the browser's loop
/// cannot end it: with the terminal gone, the terminal library's read can spin without
/// returning (crossterm 0.29 retries a read of a hung-up tty forever), so the loop
/// never sees the signal. The loop, when it does end, exits well before (it waits at
/// most [`super::app`]'s write grace for the writes already sent). Listens on a task of
/// its own, on the runtime's worker threads; the exit code is the one a shell expects.
pub fn exit_after_signal(grace: std::time::Duration) -> std::io::Result<()> {
    let mut signals = Signals::listen()?;
    tokio::spawn(async move {
        let number = signals.next().await;
        tokio::time::sleep(grace).await;
        // the loop is stuck: the store keeps its last committed state (a failed write
        // to a terminal that is gone is no reason not to exit)
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "memlens: ended by signal {number} while the browser could not react"
        );
        // at once, without the exit's cleanup: a stuck thread may hold what it takes
        // (the standard output's lock)
        // SAFETY: _exit only ends the process.
        unsafe { libc::_exit(Ended::Signal(number).exit_code()) }
    });
    Ok(())
}

/// The four signals, listened to from the start of the session.
pub struct Signals {
    listening: Vec<(i32, Signal)>,
}

impl Signals {
    /// Starts listening (on the current tokio runtime): from now on these signals no
    /// longer end the process at once.
    pub fn listen() -> std::io::Result<Signals> {
        let kinds = [
            (libc::SIGTERM, SignalKind::terminate()),
            (libc::SIGHUP, SignalKind::hangup()),
            (libc::SIGINT, SignalKind::interrupt()),
            (libc::SIGQUIT, SignalKind::quit()),
        ];
        let listening = kinds
            .into_iter()
            .map(|(number, kind)| signal(kind).map(|s| (number, s)))
            .collect::<std::io::Result<_>>()?;
        Ok(Signals { listening })
    }

    /// The number of the next signal to arrive.
    pub async fn next(&mut self) -> i32 {
        let arrivals = self.listening.iter_mut().map(|(number, s)| {
            let number = *number;
            Box::pin(async move {
                s.recv().await;
                number
            })
        });
        futures::future::select_all(arrivals).await.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_exits_with_128_plus_its_number() {
        assert_eq!(Ended::Quit.exit_code(), 0);
        assert_eq!(Ended::Signal(libc::SIGTERM).exit_code(), 143);
        assert_eq!(Ended::Signal(libc::SIGHUP).exit_code(), 129);
    }
}
