//! A review kept up to date after writes (`Review::update` from the store's change
//! log) and as the clock moves (`Review::tick`) lists exactly what a new review of the
//! same snapshot lists: random collections of near-duplicates, decisions sharing
//! topics and review fields, then random writes, curation and purges.

mod curate_support;

use curate_support::{at, memory, temp_store};
use memlens::curate::{Change, Edit, apply_at};
use memlens::model::{Memory, Status, Timestamp};
use memlens::review::{Entry, Queue, Review, ReviewOptions};
use memlens::store::{Since, Store};
use proptest::prelude::*;
use serde_json::json;

const POOL: usize = 24;

/// Sentences the bodies are made of: shared ones make near-duplicates.
const SENTENCES: [&str; 6] = [
    "the cache is invalidated on every deploy of the api server",
    "retry the upload three times before giving up on the bucket",
    "use rustls rather than openssl for every outgoing connection",
    "sessions expire after thirty minutes without a request",
    "shard the events table by tenant and by month",
    "log the request id with every error the handler returns",
];

fn day(n: i64) -> Timestamp {
    Timestamp(at("2026-01-01T00:00:00Z").0 + n * 86_400_000_000_000)
}

#[derive(Debug, Clone)]
struct Seed {
    sentences: Vec<usize>,
    shout: bool,
    decision: bool,
    topic: Option<u8>,
    status: u8,
    approval: bool,
    by: u8,
    created: i64,
    read: Option<i64>,
    expires: Option<i64>,
    reads: u32,
}

fn seed() -> impl Strategy<Value = Seed> {
    (
        prop::collection::vec(0..SENTENCES.len(), 0..4),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(0u8..3),
        0u8..6,
        any::<bool>(),
        0u8..4,
        0i64..200,
        prop::option::of(0i64..400),
        prop::option::of(100i64..500),
        0u32..4,
    )
        .prop_map(
            |(
                sentences,
                shout,
                decision,
                topic,
                status,
                approval,
                by,
                created,
                read,
                expires,
                reads,
            )| {
                Seed {
                    sentences,
                    shout,
                    decision,
                    topic,
                    status,
                    approval,
                    by,
                    created,
                    read,
                    expires,
                    reads,
                }
            },
        )
}

fn make(i: usize, s: &Seed) -> Memory {
    let mut m = memory(&format!("m{i:02}"));
    let body = s
        .sentences
        .iter()
        .map(|k| SENTENCES[*k])
        .collect::<Vec<_>>()
        .join(". ");
    m.body = if s.shout { body.to_uppercase() } else { body };
    m.memory_type = if s.decision { "decision" } else { "note" }.into();
    m.status = [
        Status::Draft,
        Status::Proposed,
        Status::Validated,
        Status::Stale,
        Status::Deprecated,
        Status::Rejected,
    ][s.status as usize];
    m.created_at = day(s.created);
    m.updated_at = m.created_at;
    m.last_read_at = s.read.map(day);
    m.read_count = s.reads;
    if let Some(t) = s.topic {
        m.extra.insert("topic".into(), json!(format!("topic-{t}")));
    }
    if s.approval {
        m.extra
            .insert("requires_human_approval".into(), json!(true));
    }
    let by = [None, Some("human"), Some("agent"), Some("auto")][s.by as usize];
    if let Some(by) = by {
        m.extra.insert("validated_by".into(), json!(by));
    }
    if let Some(e) = s.expires {
        m.extra
            .insert("expires_when".into(), json!(day(e).to_string()));
    }
    m.normalise();
    m
}

#[derive(Debug, Clone)]
enum Step {
    /// Write memory `i` anew from a seed (a new memory, or a changed one).
    Put(usize, Seed),
    Approve(usize),
    Reject(usize),
    Delete(usize),
    Restore(usize),
    Purge(usize),
    NotDuplicate(usize, usize),
    Supersede(usize, usize),
    /// Move the clock this many days.
    Wait(i64),
}

fn step() -> impl Strategy<Value = Step> {
    let i = 0..POOL;
    prop_oneof![
        3 => (i.clone(), seed()).prop_map(|(i, s)| Step::Put(i, s)),
        1 => i.clone().prop_map(Step::Approve),
        1 => i.clone().prop_map(Step::Reject),
        1 => i.clone().prop_map(Step::Delete),
        1 => i.clone().prop_map(Step::Restore),
        1 => i.clone().prop_map(Step::Purge),
        2 => (i.clone(), i.clone()).prop_map(|(a, b)| Step::NotDuplicate(a, b)),
        1 => (i.clone(), i).prop_map(|(a, b)| Step::Supersede(a, b)),
        1 => (0i64..120).prop_map(Step::Wait),
    ]
}

fn id(i: usize) -> String {
    format!("m{i:02}")
}

fn exists(store: &Store, i: usize) -> bool {
    store
        .read()
        .expect("read")
        .get(&id(i))
        .expect("get")
        .is_some()
}

/// Runs a step; curation that is refused (an absent memory, a no-op) changes nothing.
fn run(store: &Store, step: &Step, now: &mut Timestamp) {
    let edit = |i: usize, e: Edit| Change::edit([id(i)], e);
    let change = match step {
        Step::Put(i, s) => {
            let mut w = store.write().expect("write");
            w.put(&make(*i, s)).expect("put");
            w.commit().expect("commit");
            return;
        }
        Step::Purge(i) => {
            if exists(store, *i) {
                let mut w = store.write().expect("write");
                w.purge(&id(*i)).expect("purge");
                w.commit().expect("commit");
            }
            return;
        }
        Step::Wait(days) => {
            *now = Timestamp(now.0 + days * 86_400_000_000_000);
            return;
        }
        Step::Approve(i) => edit(*i, Edit::Approve),
        Step::Reject(i) => edit(
            *i,
            Edit::Reject {
                reason: "wrong".into(),
            },
        ),
        Step::Delete(i) => edit(*i, Edit::Delete { reason: None }),
        Step::Restore(i) => edit(*i, Edit::Restore),
        Step::NotDuplicate(a, b) => Change::edit(
            [id(*a), id(*b)],
            Edit::NotDuplicate {
                pair: [id(*a), id(*b)],
            },
        ),
        Step::Supersede(a, b) => Change::Supersede {
            keep: id(*a),
            old: id(*b),
        },
    };
    let _ = apply_at(store, &change, *now);
}

fn listed(review: &Review) -> Vec<Vec<Entry>> {
    Queue::ALL
        .iter()
        .map(|q| review.entries(*q).to_vec())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn an_updated_review_lists_what_a_new_one_lists(
        seeds in prop::collection::vec(seed(), 0..POOL),
        steps in prop::collection::vec(prop::collection::vec(step(), 1..4), 1..6),
    ) {
        let (_dir, store) = temp_store();
        {
            let mut w = store.write().expect("write");
            for (i, s) in seeds.iter().enumerate() {
                w.put(&make(i, s)).expect("put");
            }
            w.commit().expect("commit");
        }
        let mut now = day(260);
        let reader = store.read().expect("read");
        let mut held = reader.change_number().expect("number");
        let mut review = Review::of(&reader, &ReviewOptions::at(now), &Queue::ALL).expect("review");
        drop(reader);
        for batch in &steps {
            for s in batch {
                run(&store, s, &mut now);
            }
            let reader = store.read().expect("read");
            match reader.changes_since(held).expect("since") {
                Since::Nothing => {}
                Since::Ids(ids) => review.update(&reader, &ids).expect("update"),
                Since::Everything => {
                    review = Review::of(&reader, &ReviewOptions::at(now), &Queue::ALL).expect("review");
                }
            }
            review.tick(&reader, now).expect("tick");
            held = reader.change_number().expect("number");
            let fresh = Review::of(&reader, &ReviewOptions::at(now), &Queue::ALL).expect("review");
            for q in Queue::ALL {
                prop_assert_eq!(review.count(q), fresh.count(q), "count of {}", q);
            }
            prop_assert_eq!(listed(&review), listed(&fresh));
        }
    }
}

#[test]
fn a_write_moves_a_memory_between_queues_without_a_new_pass() {
    let (_dir, store) = temp_store();
    let mut a = make(
        0,
        &Seed {
            sentences: vec![0, 1, 2],
            shout: false,
            decision: false,
            topic: None,
            status: 0,
            approval: false,
            by: 0,
            created: 250,
            read: None,
            expires: None,
            reads: 0,
        },
    );
    let mut w = store.write().expect("write");
    w.put(&a).expect("put");
    w.commit().expect("commit");
    let now = day(260);
    let reader = store.read().expect("read");
    let held = reader.change_number().expect("number");
    let mut review = Review::of(&reader, &ReviewOptions::at(now), &Queue::ALL).expect("review");
    drop(reader);
    assert_eq!(review.count(Queue::Pending), Some(1));
    assert_eq!(review.count(Queue::Duplicates), Some(0));
    // a copy arrives and the first is approved
    let mut b = a.clone();
    b.id = "m01".into();
    a.status = Status::Validated;
    let mut w = store.write().expect("write");
    w.put(&a).expect("put");
    w.put(&b).expect("put");
    w.commit().expect("commit");
    let reader = store.read().expect("read");
    let Since::Ids(ids) = reader.changes_since(held).expect("since") else {
        panic!("the log names the two memories");
    };
    review.update(&reader, &ids).expect("update");
    let pending: Vec<&str> = review
        .entries(Queue::Pending)
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(pending, ["m01"]);
    let pair = &review.entries(Queue::Duplicates)[0];
    assert_eq!(
        (pair.id.as_str(), pair.reason.as_str()),
        ("m00", "same text")
    );
    // a year later both went unread long enough
    let later = day(260 + 365);
    review.tick(&reader, later).expect("tick");
    assert_eq!(review.count(Queue::Stale), Some(2));
}
