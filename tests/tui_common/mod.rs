//! Shared by the TUI tests: a small store of hand-made memories, opened with the real
//! searcher, and a headless browser on it.
#![allow(dead_code)]

pub mod curate;
pub mod hooked;
pub mod pty;

use memlens::collection::{Collection, LocalCollection};
use memlens::model::{FEEL_DIMS, Memory, Relationship, Scope, Status, Timestamp, feel_index};
use memlens::search::Searcher;
use memlens::store::Store;
use memlens::tui::config::Config;
use memlens::tui::headless::Headless;
use memlens::tui::theme::ColorMode;
use std::sync::Arc;
use tempfile::TempDir;

/// The clock the tests draw at.
pub fn now() -> Timestamp {
    Timestamp::parse("2026-06-01T12:00:00Z").expect("valid time")
}

/// Payloads a hostile memory carries; none may reach the terminal.
/// (Device-control string, clipboard write, cursor query, C1 CSI: nothing ratatui
/// itself ever writes.)
pub const HOSTILE: [&str; 4] = [
    "\u{1b}P+q544e\u{1b}\\",
    "\u{1b}]52;c;cHduZWQ=\u{7}",
    "\u{1b}[6n",
    "\u{9b}31m",
];

const TOPICS: [&str; 6] = [
    "ledger", "webhooks", "payouts", "recon", "deploy", "console",
];
const TYPES: [&str; 5] = ["decision", "gotcha", "note", "convention", "attempt"];

/// Thirty memories with varied fields, links, scores, one deleted, one hostile.
pub fn memories() -> Vec<Memory> {
    let base = Timestamp::parse("2026-01-01T00:00:00Z").expect("valid time");
    let mut out = Vec::new();
    for i in 0..30u32 {
        let topic = TOPICS[i as usize % TOPICS.len()];
        let at = Timestamp(base.0 + i64::from(i) * 86_400_000_000_000 * 3);
        let body = format!(
            "Memory {i} about the {topic} service.\nIt explains why the {topic} team chose option {}.\n\nA longer paragraph follows so the body wraps over several lines in the detail pane, which the tests scroll.",
            i % 4
        );
        let mut m = Memory::new(format!("mem-{i:02}"), body, at);
        m.title = Some(format!("{} note {i}: {topic}", TYPES[i as usize % 5]));
        m.memory_type = TYPES[i as usize % TYPES.len()].to_string();
        m.tags = vec![
            topic.to_string(),
            if i.is_multiple_of(2) { "even" } else { "odd" }.to_string(),
        ];
        m.scope = [Scope::Personal, Scope::Team, Scope::Shared][i as usize % 3];
        m.status = [Status::Draft, Status::Proposed, Status::Validated][i as usize % 3];
        m.weight = f64::from(i % 10) / 10.0;
        m.trust = f64::from((i * 7) % 10) / 10.0;
        m.rating_count = i % 7;
        m.rating_sum = (i % 7) * (1 + i % 5);
        m.read_count = i % 12;
        if i % 3 != 0 {
            for (d, dim) in FEEL_DIMS.iter().enumerate() {
                if (d + i as usize).is_multiple_of(4) {
                    let v = f64::from((i * 13 + d as u32 * 7) % 21) / 20.0;
                    m.feel[d] = Some(if dim.min < 0.0 { v * 2.0 - 1.0 } else { v });
                }
            }
            m.feel[feel_index("humor").expect("dim")] = Some(f64::from(i % 11) / 10.0);
        }
        if i > 0 && i.is_multiple_of(4) {
            m.relationships.push(Relationship {
                target: format!("mem-{:02}", i - 1),
                kind: "related".into(),
                strength: Some(0.5),
            });
        }
        if i == 8 {
            m.relationships.push(Relationship {
                target: "gone-forever".into(),
                kind: "supersedes".into(),
                strength: None,
            });
        }
        if i == 29 {
            m.deleted_at = Some(at);
            m.deleted_reason = Some("duplicate".into());
        }
        out.push(m);
    }
    let mut hostile = Memory::new(
        "mem-hostile",
        format!(
            "body {} then {} and {} end {}",
            HOSTILE[0], HOSTILE[1], HOSTILE[2], HOSTILE[3]
        ),
        Timestamp(base.0 + 95 * 86_400_000_000_000),
    );
    hostile.title = Some(format!("evil {} title {}", HOSTILE[0], HOSTILE[1]));
    hostile.tags = vec!["hostile".into()];
    out.push(hostile);
    out
}

/// A store holding `memories`, in a temporary directory.
pub struct Fixture {
    /// Keeps the directory alive.
    pub dir: TempDir,
    /// The store.
    pub store: Arc<Store>,
    /// Its searcher.
    pub searcher: Arc<Searcher>,
    /// What was put in.
    pub memories: Vec<Memory>,
}

/// Builds a store from `memories`.
pub fn fixture_with(memories: Vec<Memory>) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("test.redb")).expect("open store");
    {
        let mut w = store.write().expect("write");
        for m in &memories {
            w.put(m).expect("put");
        }
        w.commit().expect("commit");
    }
    let searcher = Searcher::load(&store.read().expect("read")).expect("load");
    Fixture {
        dir,
        store: Arc::new(store),
        searcher: Arc::new(searcher),
        memories,
    }
}

/// The standard fixture.
pub fn fixture() -> Fixture {
    fixture_with(memories())
}

/// A headless browser on the fixture at `size`, with the default config (no colour).
pub fn session(f: &Fixture, size: (u16, u16)) -> Headless {
    session_with(f, size, Config::defaults(ColorMode::NoColor))
}

/// A headless browser with a given config.
pub fn session_with(f: &Fixture, size: (u16, u16), config: Config) -> Headless {
    Headless::new(f.collection(), config, size)
}

impl Fixture {
    /// A collection over the fixture's store, as the browser opens one.
    pub fn collection(&self) -> Arc<dyn Collection> {
        Arc::new(LocalCollection::over(self.store.clone()))
    }

    /// A collection over the fixture's store that misbehaves as `hooks` say.
    pub fn hooked(&self, hooks: hooked::Hooks) -> Arc<dyn Collection> {
        Arc::new(hooked::Hooked {
            inner: LocalCollection::over(self.store.clone()),
            hooks,
        })
    }
}

/// The ids of the memories a plain loop finds for a one-word literal query (not
/// deleted; id, title, type, module, tags or body containing the word).
pub fn literal_oracle(memories: &[Memory], word: &str) -> Vec<String> {
    let w = word.to_lowercase();
    let mut ids: Vec<String> = memories
        .iter()
        .filter(|m| !m.is_deleted())
        .filter(|m| {
            let mut hay = vec![m.id.clone(), m.memory_type.clone(), m.body.clone()];
            hay.extend(m.title.clone());
            hay.extend(m.module.clone());
            hay.extend(m.tags.clone());
            hay.iter().any(|h| h.to_lowercase().contains(&w))
        })
        .map(|m| m.id.clone())
        .collect();
    ids.sort();
    ids
}

/// The ids of the loaded page of the list, in order.
pub fn list_ids(b: &Headless) -> Vec<String> {
    b.state
        .results
        .hits
        .iter()
        .map(|h| h.memory.id.clone())
        .collect()
}

/// The text of the screen `session` draws now, a line per row.
#[allow(dead_code)]
pub fn screen(session: &Headless) -> String {
    let (w, h) = session.state.size;
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
    session.draw(&mut t, Timestamp::now()).expect("draw");
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}
