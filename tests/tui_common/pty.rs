//! A real pseudo-terminal running the browser, read back through a vt100 parser: keys
//! in, screen text out, the raw bytes kept, and the store file it ran on.
#![allow(dead_code)]

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The binary under test: `memlens` (an override lets a development build stand in).
pub fn binary() -> String {
    std::env::var("MEMLENS_TUI_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_memlens").into())
}

pub struct Run {
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    bytes: Arc<Mutex<Vec<u8>>>,
    parser: Arc<Mutex<vt100::Parser>>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// Columns and rows.
    pub size: (u16, u16),
    /// The store file the browser runs on.
    pub db: PathBuf,
    _dir: tempfile::TempDir,
}

impl Run {
    /// `memlens demo` on a fresh demo store.
    pub fn start(cols: u16, rows: u16, extra_env: &[(&str, &str)]) -> Run {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("demo.redb");
        let args = [
            "demo".into(),
            "--db".into(),
            db.to_string_lossy().into_owned(),
        ];
        Run::spawn(dir, db, &args, cols, rows, extra_env)
    }

    /// `memlens --db DB`: the browser on an existing store file.
    pub fn browse(db: &std::path::Path, cols: u16, rows: u16) -> Run {
        let dir = tempfile::tempdir().expect("temp dir");
        let args = ["--db".into(), db.to_string_lossy().into_owned()];
        Run::spawn(dir, db.to_path_buf(), &args, cols, rows, &[])
    }

    /// `memlens --hivelore ROOT`: the browser on a hivelore project.
    pub fn hivelore(root: &std::path::Path, cols: u16, rows: u16) -> Run {
        let dir = tempfile::tempdir().expect("temp dir");
        let args = ["--hivelore".into(), root.to_string_lossy().into_owned()];
        let db = root.join(".ai/.cache/memlens/index.redb");
        Run::spawn(dir, db, &args, cols, rows, &[])
    }

    fn spawn(
        dir: tempfile::TempDir,
        db: PathBuf,
        args: &[String],
        cols: u16,
        rows: u16,
        extra_env: &[(&str, &str)],
    ) -> Run {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open pty");
        let mut cmd = CommandBuilder::new(binary());
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("XDG_CONFIG_HOME", dir.path().join("config"));
        cmd.env("XDG_DATA_HOME", dir.path().join("data"));
        cmd.env_remove("COLORTERM");
        cmd.env_remove("NO_COLOR");
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        cmd.cwd(dir.path());
        let child = pty.slave.spawn_command(cmd).expect("spawn memlens");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("reader");
        let writer = pty.master.take_writer().expect("writer");
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(rows), nz(cols), 0)));
        let (sink, screen) = (bytes.clone(), parser.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("lock").extend_from_slice(&buf[..n]);
                screen.lock().expect("lock").process(&buf[..n]);
            }
        });
        Run {
            master: pty.master,
            writer,
            bytes,
            parser,
            child,
            size: (cols, rows),
            db,
            _dir: dir,
        }
    }

    pub fn screen(&self) -> std::sync::MutexGuard<'_, vt100::Parser> {
        self.parser.lock().expect("lock")
    }

    pub fn text(&self) -> String {
        self.screen().screen().contents()
    }

    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = self.text();
            if ok(&text) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).expect("write keys");
        self.writer.flush().expect("flush");
        // Esc followed at once by a letter reads as Alt-letter; real typing has gaps.
        std::thread::sleep(Duration::from_millis(120));
    }

    /// Sends keys to a program that may be gone; false when it could not take them.
    pub fn try_send(&mut self, keys: &str) -> bool {
        let sent = self.writer.write_all(keys.as_bytes()).is_ok() && self.writer.flush().is_ok();
        std::thread::sleep(Duration::from_millis(60));
        sent
    }

    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize");
        self.screen().screen_mut().set_size(nz(rows), nz(cols));
        self.size = (cols, rows);
    }

    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        self.exit_within(Duration::from_secs(10))
            .expect("memlens did not exit")
    }

    /// The exit status once the program has ended, or `None` when it still runs after
    /// `limit`.
    pub fn exit_within(&mut self, limit: Duration) -> Option<portable_pty::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // let the reader thread take the last bytes
                std::thread::sleep(Duration::from_millis(200));
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// True when the program still runs.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }

    /// The process id of the program.
    pub fn pid(&self) -> i32 {
        let pid = self.child.process_id().expect("a process id");
        i32::try_from(pid).expect("pid fits")
    }

    /// The terminal's line discipline as the program left it: true when it is back in
    /// cooked mode (canonical input and echo, as a shell expects).
    pub fn cooked(&self) -> bool {
        let fd = self.master.as_raw_fd().expect("a pty master fd");
        // The master answers for its slave's settings.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: fd is the open master; t is a valid termios to fill.
        let rc = unsafe { libc::tcgetattr(fd, &mut t) };
        assert_eq!(rc, 0, "tcgetattr: {}", std::io::Error::last_os_error());
        t.c_lflag & libc::ICANON != 0 && t.c_lflag & libc::ECHO != 0
    }

    pub fn raw(&self) -> Vec<u8> {
        self.bytes.lock().expect("lock").clone()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

pub fn nz(v: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(v).expect("non-zero size")
}

pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// What a run that entered the browser's terminal modes failed to undo, judged from
/// the bytes it wrote: empty when it never entered them, or left every one after
/// entering them last.
pub fn not_restored(raw: &[u8]) -> Vec<&'static str> {
    let Some(entered) = find(raw, b"\x1b[?1049h") else {
        return Vec::new();
    };
    [
        ("the alternate screen", &b"\x1b[?1049l"[..]),
        ("the hidden cursor", b"\x1b[?25h"),
        ("mouse capture", b"\x1b[?1000l"),
        ("bracketed paste", b"\x1b[?2004l"),
    ]
    .into_iter()
    .filter(|(_, seq)| find(raw, seq).is_none_or(|at| at < entered))
    .map(|(what, _)| what)
    .collect()
}
