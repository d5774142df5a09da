//! A program in a real pseudo-terminal, read back through vt100: the raw byte count,
//! the screen text, and the process id for its resident memory.

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running program in a pty.
pub struct Session {
    _master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    bytes: Arc<Mutex<u64>>,
    parser: Arc<Mutex<vt100::Parser>>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// When the program was spawned.
    pub started: Instant,
}

impl Session {
    /// Spawns `program args` in a `cols`×`rows` pty with `TERM=xterm-256color`.
    pub fn start(
        program: &str,
        args: &[&str],
        cols: u16,
        rows: u16,
        home: &std::path::Path,
    ) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open pty");
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("XDG_CONFIG_HOME", home.join("config"));
        cmd.env("XDG_DATA_HOME", home.join("data"));
        cmd.env_remove("NO_COLOR");
        cmd.cwd(home);
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(rows), nz(cols), 0)));
        let bytes = Arc::new(Mutex::new(0u64));
        let started = Instant::now();
        let child = pty.slave.spawn_command(cmd).expect("spawn in pty");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("pty reader");
        let writer = pty.master.take_writer().expect("pty writer");
        let (count, screen) = (bytes.clone(), parser.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen.lock().expect("lock").process(&buf[..n]);
                *count.lock().expect("lock") += n as u64;
            }
        });
        Session {
            _master: pty.master,
            writer,
            bytes,
            parser,
            child,
            started,
        }
    }

    /// The screen's text now.
    pub fn text(&self) -> String {
        self.parser.lock().expect("lock").screen().contents()
    }

    /// Bytes the program has written so far.
    pub fn bytes(&self) -> u64 {
        *self.bytes.lock().expect("lock")
    }

    /// Waits (polling every 2 ms, up to `limit`) until `ok(screen)`; the time since spawn.
    pub fn wait_for(&self, limit: Duration, ok: impl Fn(&str) -> bool) -> Option<Duration> {
        self.screen_when(limit, Duration::from_millis(2), ok)
            .map(|_| self.started.elapsed())
    }

    /// Reads the screen every `every` (up to `limit`) until `ok(screen)`; that screen.
    pub fn screen_when(
        &self,
        limit: Duration,
        every: Duration,
        ok: impl Fn(&str) -> bool,
    ) -> Option<String> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            let text = self.text();
            if ok(&text) {
                return Some(text);
            }
            std::thread::sleep(every);
        }
        None
    }

    /// Waits until no byte has arrived for `quiet` and the screen satisfies `done` (at
    /// most `limit`); the bytes so far.
    pub fn settle(&self, quiet: Duration, limit: Duration, done: impl Fn(&str) -> bool) -> u64 {
        let deadline = Instant::now() + limit;
        let mut last = self.bytes();
        let mut since = Instant::now();
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            let now = self.bytes();
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() >= quiet && done(&self.text()) {
                break;
            }
        }
        last
    }

    /// Sends keys.
    pub fn send(&mut self, keys: &str) {
        let _ = self.writer.write_all(keys.as_bytes());
        let _ = self.writer.flush();
    }

    /// Hangs up on the program (SIGHUP, as a closed terminal does) and waits up to
    /// `limit` for it to exit, so that it closes its files as a user's session would
    /// (killing a program that holds a store open leaves the store to be recovered);
    /// true when it exited.
    fn hang_up(&mut self, limit: Duration) -> bool {
        let Some(pid) = self.child.process_id() else {
            return true;
        };
        // SAFETY: kill takes plain integers; the pid is our own child's, not yet reaped.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGHUP);
        }
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// `VmRSS` and `VmHWM` of the program, in bytes.
    pub fn memory(&self) -> Option<(u64, u64)> {
        let pid = self.child.process_id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))?
                .split_whitespace()
                .nth(1)?
                .parse::<u64>()
                .ok()
                .map(|kb| kb * 1024)
        };
        Some((field("VmRSS:")?, field("VmHWM:")?))
    }
}

impl Drop for Session {
    /// Hangs up; a program that has not exited 5 s later is killed.
    fn drop(&mut self) {
        if self.hang_up(Duration::from_secs(5)) {
            return;
        }
        eprintln!("pty: the program did not exit 5 s after a hangup; killed");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn nz(v: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(v.max(1)).unwrap_or(std::num::NonZeroU16::MIN)
}

/// The number in memlens's status line `N matches`.
pub fn memlens_matches(text: &str) -> Option<usize> {
    let at = text.find(" matches").or_else(|| text.find(" match "))?;
    text[..at].split_whitespace().last()?.parse().ok()
}

/// fzf's `M/N` counter, as (matched, total).
pub fn fzf_count(text: &str) -> Option<(usize, usize)> {
    text.lines().find_map(|line| {
        let word = line.split_whitespace().find(|w| w.contains('/'))?;
        let (a, b) = word.split_once('/')?;
        Some((
            a.parse().ok()?,
            b.trim_end_matches(['(', ')']).parse().ok()?,
        ))
    })
}
