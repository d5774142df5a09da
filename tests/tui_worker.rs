//! The worker on a real tokio runtime: writes run in order off the loop, a rebuild of
//! the search index after a write reaches the next search, and `finish_writes` waits
//! until every write already sent is durable (so quitting never loses one). A store
//! call that panics (as redb does on some damage) answers with the damage instead of
//! never answering, and one that runs long is reported as a wait.

mod tui_common;

use memlens::curate::{Change, Edit};
use memlens::model::Status;
use memlens::search::{BrowseMode, Engine, Filters, SearchRequest, SearchResponse};
use memlens::tui::action::Action;
use memlens::tui::effect::{Effect, WriteJob};
use memlens::tui::worker::Worker;
use memlens::tui::write::WriteKind;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;
use tui_common::fixture;
use tui_common::hooked::Hooks;

/// The next action that `pick` accepts, skipping the others.
async fn next<T>(rx: &mut UnboundedReceiver<Action>, pick: impl Fn(Action) -> Option<T>) -> T {
    let wait = async {
        loop {
            let action = rx.recv().await.expect("the worker is alive");
            if let Some(found) = pick(action) {
                return found;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .expect("the answer arrives")
}

/// The answer to the search of `generation`.
async fn response(rx: &mut UnboundedReceiver<Action>, generation: u64) -> SearchResponse {
    next(rx, |a| match a {
        Action::SearchDone {
            generation: g,
            response,
            ..
        } if g == generation => Some(response),
        _ => None,
    })
    .await
}

fn request(query: &str, generation: u64) -> Effect {
    Effect::Search {
        generation,
        request: Box::new(SearchRequest {
            query: query.into(),
            engine: Engine::default(),
            filters: Filters::default(),
            mode: BrowseMode::Relevance,
            order: None,
            offset: 0,
            limit: 10,
        }),
        draw: None,
        keep: None,
    }
}

#[test]
fn writes_reach_the_next_search_after_a_rebuild_and_finish_writes_waits_for_all() {
    let f = fixture();
    let id = "mem-04";
    let before = f
        .memories
        .iter()
        .find(|m| m.id == id)
        .expect("fixture")
        .clone();
    assert_ne!(before.status, Status::Validated);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut worker = Worker::spawn(f.collection(), tx);
        next(&mut rx, |a| {
            matches!(a, Action::SearcherReady).then_some(())
        })
        .await;

        worker.send(Effect::Write(WriteJob::Change {
            token: 7,
            change: Change::edit([id], Edit::Approve),
        }));
        let outcome = next(&mut rx, |a| match a {
            Action::Written(o) => Some(o),
            _ => None,
        })
        .await;
        assert_eq!((outcome.kind, outcome.token), (WriteKind::Change, 7));
        assert!(outcome.result.is_ok(), "{:?}", outcome.result);

        // the next search finds the change (the collection brings its index up to
        // date from the change log), and so does the one after the refresh
        worker.send(request(id, 1));
        let first = response(&mut rx, 1).await;
        assert_eq!(first.hits[0].memory.status, Status::Validated);
        worker.send(Effect::ReloadIndex);
        next(&mut rx, |a| {
            matches!(a, Action::IndexReloaded).then_some(())
        })
        .await;
        worker.send(request(id, 2));
        let new = response(&mut rx, 2).await;
        assert_eq!(new.hits.len(), 1);
        assert_eq!(new.hits[0].memory.status, Status::Validated);

        // forty durable writes sent at once: finish_writes returns when all are done
        for token in 0..40 {
            worker.send(Effect::Write(WriteJob::Change {
                token,
                // forty raters: one rater's rating would replace itself
                change: Change::edit(
                    [id],
                    Edit::RateAs {
                        rater: format!("rater {token}"),
                        rating: 2,
                    },
                ),
            }));
        }
        assert!(worker.finish_writes(Duration::from_secs(60)).await);
    });
    let after = f
        .store
        .read()
        .expect("read")
        .get(id)
        .expect("get")
        .expect("stored");
    assert_eq!(after.rating_count, before.rating_count + 40);
    assert_eq!(after.rating_sum, before.rating_sum + 80);
}

/// While the full index is still loading, every search is answered from the store's
/// persisted index — the first screen and a tab switch (here: the rating order) alike —
/// with exactly the list the loaded index gives afterwards.
#[test]
fn searches_are_answered_before_the_index_has_loaded() {
    let f = fixture();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        // a loader that cannot finish until the test lets it
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let slow = f.hooked(Hooks {
            hold_load: Some(Mutex::new(gate)),
            ..Hooks::default()
        });
        let worker = Worker::spawn(slow, tx);
        let held = |generation: u64| {
            move |a: Action| match a {
                Action::SearchDone {
                    generation: g,
                    response,
                    ..
                } if g == generation => Some(response),
                Action::SearcherReady => panic!("the index loaded while held"),
                _ => None,
            }
        };
        worker.send(request("", 1));
        let early = next(&mut rx, held(1)).await;
        assert!(early.total > 0);
        let rating_request = |generation| {
            let mut rating = request("", generation);
            if let Effect::Search { request, .. } = &mut rating {
                request.mode = BrowseMode::Rating;
            }
            rating
        };
        worker.send(rating_request(2));
        let early_rating = next(&mut rx, held(2)).await;
        release.send(()).expect("release");
        next(&mut rx, |a| {
            matches!(a, Action::SearcherReady).then_some(())
        })
        .await;
        worker.send(request("", 3));
        assert_eq!(early, response(&mut rx, 3).await);
        worker.send(rating_request(4));
        assert_eq!(early_rating, response(&mut rx, 4).await);
    });
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn a_panic_in_a_store_call_answers_with_the_damage() {
    let f = fixture();
    runtime().block_on(async {
        // the load itself panics
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let broken = f.hooked(Hooks {
            load_panics: Some("Malformed allocator state"),
            ..Hooks::default()
        });
        let _worker = Worker::spawn(broken, tx);
        let reason = next(&mut rx, |a| match a {
            Action::LoadFailed(reason) => Some(reason),
            _ => None,
        })
        .await;
        assert!(reason.contains("the store is damaged"), "{reason}");
        assert!(reason.contains("memlens check"), "{reason}");
        assert!(reason.contains("Malformed allocator state"), "{reason}");

        // the load succeeds, a search panics
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let damaged = f.hooked(Hooks {
            search_panics: Some("Invalid page type byte 133 for page r0.17/0"),
            ..Hooks::default()
        });
        let worker = Worker::spawn(damaged, tx);
        next(&mut rx, |a| {
            matches!(a, Action::SearcherReady).then_some(())
        })
        .await;
        worker.send(request("ledger", 1));
        let reason = next(&mut rx, |a| match a {
            Action::StoreFailed(reason) if reason.contains("Invalid page type") => Some(reason),
            Action::SearchDone { .. } => panic!("a panicking search answered"),
            _ => None,
        })
        .await;
        assert!(reason.contains("memlens check"), "{reason}");
    });
}

/// A newer request stops the search it supersedes: the long search answers nothing
/// (its scan asked whether it was superseded and stopped), the newer one answers.
#[test]
fn a_newer_search_stops_the_one_it_supersedes() {
    let f = fixture();
    runtime().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let long = f.hooked(Hooks {
            long_query: Some("long scan"),
            ..Hooks::default()
        });
        let worker = Worker::spawn(long, tx);
        worker.send(request("long scan", 1));
        // let the long search start before the newer one is asked for
        tokio::time::sleep(Duration::from_millis(200)).await;
        worker.send(request("ledger", 2));
        let answered = next(&mut rx, |a| match a {
            Action::SearchDone { generation: 1, .. } => panic!("the superseded search answered"),
            Action::SearchDone {
                generation: 2,
                response,
                ..
            } => Some(response),
            _ => None,
        })
        .await;
        assert!(answered.total > 0);
    });
}

#[test]
fn a_store_call_that_runs_long_is_reported_as_a_wait() {
    let f = fixture();
    runtime().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let slow = f.hooked(Hooks {
            hold_load: Some(Mutex::new(gate)),
            ..Hooks::default()
        });
        let worker = Worker::spawn(slow, tx);
        assert_eq!(worker.slow_seconds(), None, "nothing has waited long yet");
        tokio::time::sleep(memlens::tui::offload::SLOW_CALL + Duration::from_millis(300)).await;
        let waited = worker.slow_seconds().expect("the held load is reported");
        assert!(
            waited >= memlens::tui::offload::SLOW_CALL.as_secs(),
            "{waited}"
        );
        release.send(()).expect("release");
        next(&mut rx, |a| {
            matches!(a, Action::SearcherReady).then_some(())
        })
        .await;
        // the load's clock stops with it (the warm-up that follows is not waited on)
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(worker.slow_seconds(), None);
    });
}

/// The status line as the user sees it after `actions`, at 100 columns.
fn status_after(actions: Vec<Action>) -> String {
    let f = fixture();
    let mut b = tui_common::session(&f, (100, 30));
    for action in actions {
        b.dispatch(action);
    }
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).expect("t");
    b.draw(&mut t, tui_common::now()).expect("draw");
    let buffer = t.backend().buffer().clone();
    (0..100)
        .map(|x| buffer[(x, 29)].symbol().to_string())
        .collect()
}

#[test]
fn the_status_line_tells_of_a_long_wait_and_of_damage_until_they_end() {
    let waiting = status_after(vec![Action::StoreWaiting(Some(7))]);
    assert!(
        waiting.contains("still waiting for the store (7 s; q quits)"),
        "{waiting}"
    );
    let over = status_after(vec![
        Action::StoreWaiting(Some(7)),
        Action::StoreWaiting(None),
    ]);
    assert!(!over.contains("waiting"), "{over}");
    let message = memlens::tui::shield::damaged("Invalid page type byte 133");
    let damaged = status_after(vec![Action::StoreFailed(message)]);
    assert!(
        damaged.contains("the store is damaged; run `memlens check`"),
        "{damaged}"
    );
}
