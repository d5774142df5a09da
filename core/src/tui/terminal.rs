//! Terminal care: the guard that enters raw mode, the alternate screen, bracketed paste
//! and (optionally) mouse capture, and always leaves them again: on return, on error
//! and on panic. Frames are written whole, inside synchronized-update escapes.
//!
//! Leaving writes straight to file descriptor 1, not through `std::io::stdout()`: the
//! command line holds the stdout lock for the whole run, so a restore from another
//! thread (a panic there) would wait on it forever. A panic inside a
//! [`shielded`](super::shield::shielded) store call leaves the terminal alone: the
//! browser turns it into a message and goes on.

use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{
    BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate, EnterAlternateScreen,
    LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute, queue};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};

/// True while the terminal is in the program's modes.
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// Holds the terminal in raw mode / alternate screen; restores it when dropped.
pub struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    /// Enters the program's terminal modes and installs the panic hook that leaves them.
    pub fn enter(mouse: bool) -> io::Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        let entered = execute!(
            out,
            EnterAlternateScreen,
            Clear(ClearType::All),
            EnableBracketedPaste,
            cursor::Hide
        )
        .and_then(|()| {
            if mouse {
                execute!(out, EnableMouseCapture)
            } else {
                Ok(())
            }
        });
        if let Err(e) = entered {
            restore();
            return Err(e);
        }
        Ok(TerminalGuard { _private: () })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves every mode the program entered; safe to call more than once. Mouse capture is
/// always switched off, even when it was not asked for: it costs nothing and a terminal
/// left capturing the mouse is worse than a redundant escape.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = Fd1;
    let _ = execute!(
        out,
        EndSynchronizedUpdate,
        DisableMouseCapture,
        DisableBracketedPaste,
        cursor::Show,
        LeaveAlternateScreen
    );
    let _ = disable_raw_mode();
}

/// Installs (once) the panic hook that restores the terminal before the panic is
/// printed; inside a shielded call it only notes the panic's message.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if super::shield::is_quiet(info.location().map(|l| l.file())) {
                let text = info.payload_as_str().unwrap_or("a panic without a message");
                super::shield::note_panic(text.to_string());
                return;
            }
            restore();
            previous(info);
        }));
    });
}

/// Standard output written without the lock of `std::io::stdout()`.
struct Fd1;

impl Write for Fd1 {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // SAFETY: fd 1 stays open for the whole process; `buf` is valid for its length.
        let n = unsafe { libc::write(1, buf.as_ptr().cast(), buf.len()) };
        usize::try_from(n).map_err(|_| io::Error::last_os_error())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A writer that gathers one frame and sends it in a single write wrapped in
/// synchronized-update escapes; a frame with nothing to change sends nothing at all.
/// Counts the bytes it sends (for the benchmarks).
pub struct FrameWriter<W: Write> {
    inner: W,
    frame: Vec<u8>,
    sent: Arc<std::sync::atomic::AtomicU64>,
    synchronized: bool,
}

impl<W: Write> FrameWriter<W> {
    /// Wraps `inner`; `synchronized` adds the begin/end synchronized-update escapes.
    pub fn new(inner: W, synchronized: bool) -> FrameWriter<W> {
        FrameWriter {
            inner,
            frame: Vec::with_capacity(16 * 1024),
            sent: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            synchronized,
        }
    }

    /// A counter of every byte sent so far.
    pub fn counter(&self) -> Arc<std::sync::atomic::AtomicU64> {
        self.sent.clone()
    }

    /// The wrapped writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }
}

impl<W: Write> Write for FrameWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.frame.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if changes_nothing(&self.frame) {
            self.frame.clear();
            return Ok(());
        }
        let mut out = Vec::with_capacity(self.frame.len() + 16);
        if self.synchronized {
            queue!(out, BeginSynchronizedUpdate)?;
        }
        out.append(&mut self.frame);
        if self.synchronized {
            queue!(out, EndSynchronizedUpdate)?;
        }
        self.inner.write_all(&out)?;
        self.sent.fetch_add(out.len() as u64, Ordering::Relaxed);
        self.inner.flush()
    }
}

/// True for a frame that only resets colours and hides the (already hidden) cursor:
/// ratatui sends that much on every draw, even when no cell changed.
fn changes_nothing(frame: &[u8]) -> bool {
    let mut rest = frame;
    while !rest.is_empty() {
        let Some(body) = rest.strip_prefix(b"\x1b[") else {
            return false;
        };
        let Some(end) = body.iter().position(|b| (0x40..=0x7e).contains(b)) else {
            return false;
        };
        let (params, last) = (&body[..end], body[end]);
        let harmless = (last == b'm' && params.iter().all(|b| b.is_ascii_digit() || *b == b';'))
            || (params == b"?25" && last == b'l');
        if !harmless {
            return false;
        }
        rest = &body[end + 1..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_of_only_resets_sends_nothing_and_a_real_one_is_wrapped() {
        let mut w = FrameWriter::new(Vec::new(), true);
        w.write_all(b"\x1b[39m\x1b[49m\x1b[59m\x1b[0m\x1b[?25l")
            .unwrap();
        w.flush().unwrap();
        assert!(w.get_ref().is_empty());
        w.write_all(b"\x1b[3;4Hx\x1b[0m").unwrap();
        w.flush().unwrap();
        assert_eq!(
            w.get_ref().as_slice(),
            b"\x1b[?2026h\x1b[3;4Hx\x1b[0m\x1b[?2026l"
        );
        assert_eq!(
            w.counter().load(Ordering::Relaxed),
            w.get_ref().len() as u64
        );
    }
}
