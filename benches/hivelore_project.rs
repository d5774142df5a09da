//! Opening a hivelore project in place (`--hivelore`): cold (no index yet), warm with
//! nothing changed, and warm with 10 files changed, at 122 (the real fixtures), 10k and
//! 100k memory files; next to the peer, reading and YAML-parsing every file (the least a
//! loader such as hivelore's does on every start). Then the time from a file written by
//! another process to the index holding it, through the browser's watcher.
//!
//! Run: `cargo bench --bench hivelore_project` (`MEMLENS_BENCH_SIZES=122,10000` for
//! other sizes). The larger projects are the fixtures copied under new ids.

use memlens::project::{Project, live, sync};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fixtures() -> Option<Vec<(String, String)>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/hivelore/memories");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).ok()? {
        let p = e.ok()?.path();
        let text = std::fs::read_to_string(&p).ok()?;
        let id = p.file_stem()?.to_string_lossy().into_owned();
        // copies get new ids by rewriting the `id:` line, which needs it on one line
        if text.contains(&format!("\nid: {id}\n")) {
            out.push((id, text));
        }
    }
    out.sort();
    Some(out)
}

/// A project of `n` files under a temporary directory.
fn build(n: usize, memories: &[(String, String)]) -> PathBuf {
    let root =
        std::env::temp_dir().join(format!("memlens-bench-project-{n}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let team = root.join(".ai/memories/team");
    std::fs::create_dir_all(&team).unwrap();
    for i in 0..n {
        let (id, text) = &memories[i % memories.len()];
        let round = i / memories.len();
        let (new_id, text) = if round == 0 {
            (id.clone(), text.clone())
        } else {
            let new_id = format!("{id}-{round}");
            (
                new_id.clone(),
                text.replacen(&format!("id: {id}"), &format!("id: {new_id}"), 1),
            )
        };
        std::fs::write(team.join(format!("{new_id}.md")), text).unwrap();
    }
    root
}

/// The peer: read every file and parse its frontmatter.
fn peer(root: &Path) -> usize {
    let mut parsed = 0;
    for e in std::fs::read_dir(root.join(".ai/memories/team")).unwrap() {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let front = text
            .strip_prefix("---\n")
            .and_then(|r| r.split_once("\n---\n"))
            .map(|(f, _)| f);
        if front.is_some_and(|f| serde_yaml_ng::from_str::<serde_json::Value>(f).is_ok()) {
            parsed += 1;
        }
    }
    parsed
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let Some(memories) = fixtures() else {
        eprintln!("skipped: the shared hivelore fixtures are absent");
        return;
    };
    let sizes: Vec<usize> = std::env::var("MEMLENS_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![memories.len(), 10_000, 100_000]);
    println!(
        "| files | cold open | warm, nothing changed | warm, 10 changed | peer: read + parse every file | cold / peer | warm / peer |"
    );
    println!("|---|---|---|---|---|---|---|");
    for n in sizes {
        let root = build(n, &memories);
        let project = Project::locate(&root).unwrap();
        let started = Instant::now();
        let (store, synced) = project.open(&|_| {}).unwrap();
        let cold = started.elapsed();
        assert_eq!(synced.read, n);
        assert!(synced.problems.is_empty(), "{:?}", synced.problems);
        drop(store);
        let started = Instant::now();
        let (store, synced) = project.open(&|_| {}).unwrap();
        let warm = started.elapsed();
        assert_eq!(synced.read, 0);
        drop(store);
        for (i, (id, _)) in memories.iter().take(10).enumerate() {
            let path = project.file(&format!("team/{id}.md"));
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, format!("{text}\nedit {i}\n")).unwrap();
        }
        let started = Instant::now();
        let (store, synced) = project.open(&|_| {}).unwrap();
        let warm10 = started.elapsed();
        assert_eq!(synced.read, 10);
        let started = Instant::now();
        assert_eq!(peer(&root), n);
        let peer = started.elapsed();
        println!(
            "| {n} | {} | {} | {} | {} | ×{:.2} | ×{:.2} |",
            ms(cold),
            ms(warm),
            ms(warm10),
            ms(peer),
            cold.as_secs_f64() / peer.as_secs_f64(),
            warm.as_secs_f64() / peer.as_secs_f64()
        );
        live_latency(&project, &store, n);
        drop(store);
        let _ = std::fs::remove_dir_all(&root);
    }
}

/// From a file written by another process to the index holding it: the watcher's
/// notice, then the read into the index (the browser draws the next frame after).
fn live_latency(project: &Project, store: &memlens::store::Store, n: usize) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let watcher = live::watch(project.clone(), tx);
    std::thread::sleep(Duration::from_millis(500));
    let mut samples = Vec::new();
    for i in 0..5 {
        let id = format!("2026-12-02-gotcha-live-{i}");
        let path = project.file(&format!("team/{id}.md"));
        let text = format!(
            "---\nid: {id}\ntype: gotcha\ncreated_at: '2026-12-02T00:00:00.000Z'\n---\n# live {i}\n"
        );
        let started = Instant::now();
        std::fs::write(&path, text).unwrap();
        // the first notice may come while the file is still empty (created, not yet
        // written): the browser reads it again on the next one, and so does this
        while store.read().unwrap().get(&id).unwrap().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{id} never read"
            );
            let changed = match rx.try_recv() {
                Ok(memlens::tui::action::Action::FilesChanged(c)) => c,
                _ => {
                    std::thread::sleep(Duration::from_millis(1));
                    continue;
                }
            };
            match &changed.paths {
                Some(paths) => sync::reread(store, project, paths, changed.usage),
                None => sync::bring_up_to_date(store, project),
            }
            .unwrap();
        }
        samples.push(started.elapsed());
        std::thread::sleep(Duration::from_millis(300));
    }
    drop(watcher);
    samples.sort();
    println!(
        "|   {n}: a file written by another process to the index holding it | median {} | max {} | (inotify on Linux) | | | |",
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() - 1]),
    );
}
