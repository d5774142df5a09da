//! Agents' servers and the browser killed at random moments while they write: three
//! `memlens mcp` processes create memories in one store at once while the browser,
//! open on the same store in a pseudo-terminal, approves memory after memory; each is
//! killed (SIGKILL) at random points and started again. Afterwards every create a
//! server acknowledged is in the store, each once, nothing else is, every approval the
//! browser reported done is there, and `memlens check` finds the store sound.

mod mcp_support;
mod tui_common;

use mcp_support::{bin, cli_json, memlens, store};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tui_common::pty::Run;

/// One server driven with raw JSON-RPC lines, so it can be killed between any two bytes.
struct Server {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next: u64,
}

impl Server {
    fn start(db: &str) -> Server {
        let mut child = Command::new(bin())
            .args(["mcp", "--db", db])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn memlens mcp");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut s = Server {
            child,
            input,
            output,
            next: 1,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "kill-test", "version": "1"}}),
        )
        .expect("initialize");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .expect("initialized");
        s
    }

    fn send(&mut self, message: &Value) -> Option<()> {
        writeln!(self.input, "{message}").ok()?;
        self.input.flush().ok()
    }

    /// The answer to one request; `None` when the server died first.
    fn request(&mut self, method: &str, params: Value) -> Option<Value> {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let mut line = String::new();
            if self.output.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let v: Value = serde_json::from_str(&line).ok()?;
            if v["id"] == json!(id) {
                return Some(v);
            }
        }
    }
}

#[test]
fn every_acknowledged_create_survives_servers_killed_at_random() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 20);
    let db = db.to_str().unwrap().to_string();
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let unanswered = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut agents = Vec::new();
    for agent in 0..3u64 {
        let (db, acked) = (db.clone(), Arc::clone(&acked));
        let unanswered = Arc::clone(&unanswered);
        agents.push(std::thread::spawn(move || {
            let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ agent;
            let mut step = || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng
            };
            let deadline = Instant::now() + Duration::from_secs(8);
            let mut n = 0;
            while Instant::now() < deadline {
                let mut server = Server::start(&db);
                let kill_after = Duration::from_millis(20 + step() % 300);
                let started = Instant::now();
                let (tx, rx) = std::sync::mpsc::channel::<()>();
                let pid = server.child.id() as i32;
                let killer = std::thread::spawn(move || {
                    if rx.recv_timeout(kill_after).is_err() {
                        // SAFETY: kill(2) on the pid of a child this test started.
                        unsafe { libc::kill(pid, libc::SIGKILL) };
                    }
                });
                while started.elapsed() < kill_after + Duration::from_millis(50) {
                    let id = format!("a{agent}-{n}");
                    n += 1;
                    let args = json!({"id": id, "content": format!("written by agent {agent}")});
                    let answer = server.request(
                        "tools/call",
                        json!({"name": "remember_create_memory", "arguments": args}),
                    );
                    match answer {
                        Some(v) if v["result"]["isError"] == json!(false) => {
                            acked.lock().unwrap().push(id)
                        }
                        Some(v) => panic!("create refused: {v}"),
                        None => {
                            unanswered.lock().unwrap().push(id);
                            break;
                        }
                    }
                }
                let _ = tx.send(());
                let _ = killer.join();
                let _ = server.child.kill();
                let _ = server.child.wait();
            }
        }));
    }
    let approved = {
        let db = db.clone();
        std::thread::spawn(move || browser_approving(&db, Instant::now() + Duration::from_secs(8)))
    };
    for a in agents {
        a.join().expect("agent thread");
    }
    let approved = approved.join().expect("browser thread");
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() > 20,
        "too few writes to prove much: {}",
        acked.len()
    );

    let export = memlens(&["export", "--include-deleted", "--db", &db]);
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let exported: Vec<Value> = String::from_utf8_lossy(&export.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    let status = |id: &str| {
        let m = exported.iter().find(|m| m["id"] == id);
        m.map(|m| m["status"].clone())
    };
    assert!(
        approved.len() >= 3,
        "too few approvals to prove much: {approved:?}"
    );
    for id in &approved {
        assert_eq!(
            status(id),
            Some(json!("validated")),
            "the browser reported {id} approved"
        );
    }
    eprintln!(
        "{} creates acknowledged, {} approvals reported by the browser",
        acked.len(),
        approved.len()
    );
    let ids: Vec<String> = exported
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .filter(|id| id.starts_with('a'))
        .collect();
    let distinct: HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "a memory stored twice");
    for id in &acked {
        assert!(distinct.contains(id), "acknowledged {id} is missing");
    }
    // a create whose server died before it answered may have committed or not; every
    // other stored memory was acknowledged
    let unanswered = unanswered.lock().unwrap().clone();
    for id in &ids {
        assert!(
            acked.contains(id) || unanswered.contains(id),
            "{id} was never asked for"
        );
    }
    let check = memlens(&["check", "--db", &db]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let got = cli_json(&["get", &acked[0], "--json", "--db", &db]);
    assert_eq!(
        got["body"].as_str().unwrap().split(' ').next(),
        Some("written")
    );
}

/// The browser on `db` approving the selected memory and moving down, again and
/// again, killed at a random moment and started again until `deadline`. Returns the
/// ids whose approval it reported done on its status line.
fn browser_approving(db: &str, deadline: Instant) -> Vec<String> {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut approved = Vec::new();
    while Instant::now() < deadline {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let kill_after = Duration::from_millis(300 + rng % 900);
        let mut run = Run::browse(std::path::Path::new(db), 160, 30);
        // the clock starts once the list is on the screen (or after 5 s without it)
        let opening = Instant::now();
        while !run.text().contains(" match") && opening.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let started = Instant::now();
        let mut last_report = String::new();
        while started.elapsed() < kill_after && run.try_send("a") {
            // the status line says approve `ID` once the write is durable
            let asked = Instant::now();
            while asked.elapsed() < Duration::from_millis(800) {
                let text = run.text();
                let status = text.lines().rev().find(|l| !l.trim().is_empty());
                let report = status
                    .and_then(|l| l.split("approve `").nth(1))
                    .and_then(|rest| rest.split('`').next())
                    .unwrap_or("")
                    .to_string();
                if !report.is_empty() && report != last_report {
                    approved.push(report.clone());
                    last_report = report;
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if !run.try_send("j") {
                break;
            }
        }
        // SAFETY: kill(2) on the pid of a child this test started.
        unsafe { libc::kill(run.pid(), libc::SIGKILL) };
        let _ = run.exit_within(Duration::from_secs(5));
    }
    approved
}
