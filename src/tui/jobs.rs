//! What each background job computes — a search, a slider histogram, a link-picker
//! search, the ids to mark, a memory's detail, the filter choices — as plain functions
//! that answer with an action. The worker runs them off the UI loop; the headless
//! browser runs them inline.

use super::action::Action;
use super::effect::HistogramJob;
use super::state::{DetailView, Facets, LinkRow, SliderHistogram};
use crate::search::{Filters, Histogram, NumericField, SearchRequest, SearchResponse, Searcher};
use crate::store::{Store, StoreReader};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

/// Bins per slider histogram (the view resamples them to the slider's width).
pub const HISTOGRAM_BINS: usize = 48;

/// What the worker searches with: the real `Searcher`, or a stand-in in tests.
pub trait SearchSource: Send + Sync {
    /// Answers one request.
    fn search(&self, request: &SearchRequest) -> SearchResponse;
    /// The distribution of `field` over the memories the other filters keep.
    fn histogram(&self, filters: &Filters, field: NumericField, bins: usize) -> Histogram;
    /// Memories it holds.
    fn len(&self) -> usize;
    /// True when it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The source of the snapshot `reader`, given that only the memories `changed`
    /// (by id) were written since this source was built; `None` when this source cannot
    /// be updated and must be loaded again whole.
    fn updated(
        &self,
        _reader: StoreReader,
        _changed: &[String],
    ) -> Option<Result<Arc<dyn SearchSource>, String>> {
        None
    }
    /// [`SearchSource::search`], or `None` once `superseded` says a newer request
    /// made this one pointless (a scan stops between its chunks). An answer is exact.
    fn search_unless(
        &self,
        request: &SearchRequest,
        superseded: &dyn Fn() -> bool,
    ) -> Option<SearchResponse> {
        (!superseded()).then(|| self.search(request))
    }
    /// A random draw of `request.limit` memories from what `request` finds, with `seed`
    /// (see [`crate::search::random::sample`]); `None` when this source cannot draw.
    fn sample(&self, _request: &SearchRequest, _seed: u64) -> Option<SearchResponse> {
        None
    }
    /// Builds the caches that make later searches fast (results never change).
    fn warm(&self) {}
    /// The distinct types, tags and modules it holds, each sorted; `None` when it
    /// cannot tell (the store is read instead).
    fn facet_names(&self) -> Option<[Vec<String>; 3]> {
        None
    }
}

impl SearchSource for Searcher {
    fn search(&self, request: &SearchRequest) -> SearchResponse {
        Searcher::search(self, request)
    }
    fn histogram(&self, filters: &Filters, field: NumericField, bins: usize) -> Histogram {
        Searcher::histogram(self, filters, field, bins)
    }
    fn len(&self) -> usize {
        Searcher::len(self)
    }
    fn updated(
        &self,
        reader: StoreReader,
        changed: &[String],
    ) -> Option<Result<Arc<dyn SearchSource>, String>> {
        let updated = self
            .apply(reader, changed)
            .map(|s| Arc::new(s) as Arc<dyn SearchSource>)
            .map_err(|e| e.to_string());
        Some(updated)
    }
    fn warm(&self) {
        Searcher::warm(self);
    }
    fn sample(&self, request: &SearchRequest, seed: u64) -> Option<SearchResponse> {
        Some(crate::search::random::sample(self, request, seed))
    }
    fn search_unless(
        &self,
        request: &SearchRequest,
        superseded: &dyn Fn() -> bool,
    ) -> Option<SearchResponse> {
        if superseded() {
            return None;
        }
        self.search_progressive(request, SUPERSEDED_CHECK, &mut |_| !superseded())
    }
    fn facet_names(&self) -> Option<[Vec<String>; 3]> {
        Some(Searcher::facet_names(self))
    }
}

/// Runs one search (or, with `draw`, a random draw of what it finds) and tags the
/// answer.
pub fn run_search(
    source: &dyn SearchSource,
    generation: u64,
    request: &SearchRequest,
    draw: Option<u64>,
) -> Action {
    run_search_unless(source, generation, request, draw, &|| false)
}

/// The draw of `seed` from what `request` finds; a source that cannot draw says so.
fn drawn(source: &dyn SearchSource, request: &SearchRequest, seed: u64) -> SearchResponse {
    source
        .sample(request, seed)
        .unwrap_or_else(|| SearchResponse {
            damage: Some("this index cannot draw at random".into()),
            ..SearchResponse::default()
        })
}

/// Memories a search scans before it first asks whether it was superseded (later
/// chunks grow).
const SUPERSEDED_CHECK: usize = 16_384;

/// [`run_search`] that answers [`Action::SearchSuperseded`] when a newer request
/// stopped it.
pub fn run_search_unless(
    source: &dyn SearchSource,
    generation: u64,
    request: &SearchRequest,
    draw: Option<u64>,
    superseded: &dyn Fn() -> bool,
) -> Action {
    let started = Instant::now();
    let answer = match draw {
        Some(seed) => (!superseded()).then(|| drawn(source, request, seed)),
        None => source.search_unless(request, superseded),
    };
    match answer {
        Some(response) => Action::SearchDone {
            generation,
            response,
            elapsed: started.elapsed(),
        },
        None => Action::SearchSuperseded,
    }
}

/// Computes one slider histogram and tags it.
pub fn run_histogram(source: &dyn SearchSource, generation: u64, job: &HistogramJob) -> Action {
    let h = source.histogram(&job.filters, job.field, HISTOGRAM_BINS);
    Action::HistogramDone {
        generation,
        row: job.row,
        histogram: SliderHistogram {
            min: h.min,
            max: h.max,
            counts: h.counts,
            kept: h.kept,
            present: h.present,
        },
    }
}

/// Searches for the link picker and tags the answer.
pub fn run_link_search(
    source: &dyn SearchSource,
    generation: u64,
    request: &SearchRequest,
) -> Action {
    Action::LinkSearchDone {
        generation,
        response: source.search(request),
    }
}

/// Lists the ids of every memory a request matches, for marking them all.
pub fn run_mark_all(source: &dyn SearchSource, generation: u64, request: &SearchRequest) -> Action {
    let ids = source
        .search(request)
        .hits
        .into_iter()
        .map(|h| h.memory.id)
        .collect();
    Action::MarkAllDone { generation, ids }
}

/// Reads a memory and the memories it is linked with, for the detail pane.
pub fn read_detail(store: &Store, id: &str) -> Action {
    let failed = |reason: String| Action::DetailFailed {
        id: id.to_string(),
        reason,
    };
    let reader = match store.read() {
        Ok(r) => r,
        Err(e) => return failed(e.to_string()),
    };
    let memory = match reader.get(id) {
        Ok(Some(m)) => m,
        Ok(None) => return failed(format!("no memory with id `{id}`")),
        Err(e) => return failed(e.to_string()),
    };
    let mut links = Vec::new();
    let mut seen = BTreeSet::new();
    for rel in &memory.relationships {
        let headline = reader
            .get(&rel.target)
            .ok()
            .flatten()
            .map(|m| m.headline().to_string());
        seen.insert(rel.target.clone());
        links.push(LinkRow {
            id: rel.target.clone(),
            kind: rel.kind.clone(),
            strength: rel.strength,
            outgoing: true,
            headline,
        });
    }
    for source_id in reader.linked_from(id).unwrap_or_default() {
        if source_id == id || seen.contains(&source_id) {
            continue;
        }
        let Ok(Some(other)) = reader.get(&source_id) else {
            continue;
        };
        let rel = other.relationships.iter().find(|r| r.target == id);
        links.push(LinkRow {
            id: source_id.clone(),
            kind: rel.map_or_else(|| "related".into(), |r| r.kind.clone()),
            strength: rel.and_then(|r| r.strength),
            outgoing: false,
            headline: Some(other.headline().to_string()),
        });
        seen.insert(source_id);
    }
    let relationship_count = reader.relationship_count(&memory).unwrap_or(0);
    Action::DetailLoaded(Box::new(DetailView {
        memory,
        relationship_count,
        links: Some(links),
    }))
}

/// Gathers the choices of the type / tag / module filters and the slider spans.
pub fn read_facets(store: &Store, source: &dyn SearchSource) -> Result<Facets, String> {
    let [types, tags, modules] = match source.facet_names() {
        Some(names) => names,
        None => {
            let reader = store.read().map_err(|e| e.to_string())?;
            let mut types = BTreeSet::new();
            let mut tags = BTreeSet::new();
            let mut modules = BTreeSet::new();
            reader
                .for_each(|_, m| {
                    types.insert(m.memory_type);
                    tags.extend(m.tags);
                    modules.extend(m.module);
                })
                .map_err(|e| e.to_string())?;
            [types, tags, modules].map(|s| s.into_iter().collect())
        }
    };
    let all = Filters {
        deleted: crate::search::DeletedFilter::Include,
        ..Filters::default()
    };
    let created = source.histogram(&all, NumericField::CreatedAt, 1);
    let links = source.histogram(&all, NumericField::RelationshipCount, 1);
    let secs = |v: f64| crate::model::Timestamp((v * 1e9) as i64);
    Ok(Facets {
        types,
        tags,
        modules,
        max_relationships: links.max.max(0.0) as u32,
        created_span: (created.present > 0).then(|| (secs(created.min), secs(created.max))),
    })
}
