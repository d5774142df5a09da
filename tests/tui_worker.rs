//! The worker on a real tokio runtime: writes run in order off the loop, a rebuild of
//! the search index after a write reaches the next search, and `finish_writes` waits
//! until every write already sent is durable (so quitting never loses one).

mod tui_common;

use memlens::curate::{Change, Edit};
use memlens::model::Status;
use memlens::search::{BrowseMode, Engine, Filters, SearchRequest, SearchResponse};
use memlens::tui::action::Action;
use memlens::tui::effect::{Effect, WriteJob};
use memlens::tui::worker::{Worker, searcher_loader};
use memlens::tui::write::WriteKind;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;
use tui_common::fixture;

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
        let mut worker = Worker::spawn(f.store.clone(), searcher_loader(), tx);
        next(&mut rx, |a| {
            matches!(a, Action::SearcherReady { .. }).then_some(())
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

        // before the rebuild the index still holds the old record…
        worker.send(request(id, 1));
        let old = response(&mut rx, 1).await;
        assert_eq!(old.hits[0].memory.status, before.status);
        // …and after it, the change
        worker.send(Effect::ReloadIndex);
        next(&mut rx, |a| {
            matches!(a, Action::IndexReloaded { .. }).then_some(())
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
                change: Change::edit([id], Edit::Rate(2)),
            }));
        }
        worker.finish_writes().await;
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

/// While the full index is still loading, the first search is answered from the store's
/// persisted index, with exactly the list the loaded index gives afterwards; a request
/// the persisted index cannot answer (here: the rating order) waits for the load.
#[test]
fn the_first_search_is_answered_before_the_index_has_loaded() {
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
        let gate = std::sync::Mutex::new(gate);
        let real = searcher_loader();
        let slow: memlens::tui::worker::Loader = std::sync::Arc::new(move |store| {
            let _ = gate.lock().expect("gate").recv();
            real(store)
        });
        let worker = Worker::spawn(f.store.clone(), slow, tx);
        worker.send(request("", 1));
        let early = next(&mut rx, |a| match a {
            Action::SearchDone {
                generation: 1,
                response,
                ..
            } => Some(response),
            Action::SearcherReady { .. } => panic!("the index loaded while held"),
            _ => None,
        })
        .await;
        assert!(early.total > 0);
        let mut rating = request("", 2);
        if let Effect::Search { request, .. } = &mut rating {
            request.mode = BrowseMode::Rating;
        }
        worker.send(rating);
        tokio::time::sleep(Duration::from_millis(300)).await;
        while let Ok(a) = rx.try_recv() {
            assert!(
                !matches!(a, Action::SearchDone { generation: 2, .. }),
                "the rating order needs the loaded index"
            );
        }
        release.send(()).expect("release");
        next(&mut rx, |a| {
            matches!(a, Action::SearchDone { generation: 2, .. }).then_some(())
        })
        .await;
        worker.send(request("", 3));
        let loaded = response(&mut rx, 3).await;
        assert_eq!(early, loaded);
    });
}
