//! The worker on a real tokio runtime: writes run in order off the loop, a rebuild of
//! the search index after a write reaches the next search, and `finish_writes` waits
//! until every write already sent is durable (so quitting never loses one).

mod tui_common;

use memlens::curate::{Change, Edit};
use memlens::model::Status;
use memlens::search::{BrowseMode, Engine, Filters, SearchRequest};
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
        let old = next(&mut rx, |a| match a {
            Action::SearchDone {
                generation: 1,
                response,
                ..
            } => Some(response),
            _ => None,
        })
        .await;
        assert_eq!(old.hits[0].memory.status, before.status);
        // …and after it, the change
        worker.send(Effect::ReloadIndex);
        next(&mut rx, |a| {
            matches!(a, Action::IndexReloaded { .. }).then_some(())
        })
        .await;
        worker.send(request(id, 2));
        let new = next(&mut rx, |a| match a {
            Action::SearchDone {
                generation: 2,
                response,
                ..
            } => Some(response),
            _ => None,
        })
        .await;
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
