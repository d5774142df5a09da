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
    pub fn start(cols: u16, rows: u16, extra_env: &[(&str, &str)]) -> Run {
        let dir = tempfile::tempdir().expect("temp dir");
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open pty");
        let db = dir.path().join("demo.redb");
        let mut cmd = CommandBuilder::new(binary());
        cmd.arg("demo");
        cmd.arg("--db");
        cmd.arg(&db);
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
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // let the reader thread take the last bytes
                std::thread::sleep(Duration::from_millis(200));
                return status;
            }
            assert!(Instant::now() < deadline, "memlens did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
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
