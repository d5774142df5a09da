//! Long searches in steps: the best of what has been scanned so far while the scan runs
//! (newest memories first), then the exact list, the same as [`Searcher::search`].

use crate::index::tokenize::literal_words;
use crate::search::engine::{EngineOutcome, Match};
use crate::search::request::{Engine, MatchQuality, SearchRequest, SearchResponse};
use crate::search::searcher::{Answer, Searcher};
use crate::search::{fuzzy, literal, order};

/// How far a progressive search has got, passed to its callback.
pub struct Progress<'a> {
    /// The best page among the memories scanned so far (its `total` counts them).
    pub partial: &'a SearchResponse,
    /// Memories scanned so far.
    pub scanned: usize,
    /// Memories to scan in all.
    pub of: usize,
}

impl Searcher {
    /// Answers `req` exactly like [`Searcher::search`], but for the scanning engines
    /// (literal, fuzzy) reports the best of what has been scanned after the first
    /// `first_chunk` memories and then after each larger chunk, so a screen can show
    /// results at once. `on_progress` returns `false` to cancel: the search stops and
    /// returns `None`. BM25 and browsing answer in one step (no callback).
    pub fn search_progressive(
        &self,
        req: &SearchRequest,
        first_chunk: usize,
        on_progress: &mut dyn FnMut(&Progress<'_>) -> bool,
    ) -> Option<SearchResponse> {
        let active = !req.query.trim().is_empty();
        if !active || req.engine == Engine::Bm25 {
            return Some(self.search(req));
        }
        let c = &self.corpus;
        let selection = self.select(&req.filters);
        let set = &selection.set;
        let within = self.narrowed(req);
        let scan_set: &[u32] = within.as_deref().unwrap_or(set);
        let words = literal_words(&req.query);
        let upto = req.offset.saturating_add(req.limit);
        let mut found: Vec<Match> = Vec::new();
        let mut end = scan_set.len();
        let mut chunk = first_chunk.max(1);
        while end > 0 {
            let start = end.saturating_sub(chunk);
            let part = &scan_set[start..end];
            found.extend(match req.engine {
                Engine::Fuzzy => fuzzy::search(c, part, &req.query),
                _ => literal::all_words(c, part, &words),
            });
            end = start;
            chunk = chunk.saturating_mul(4);
            if end > 0 {
                let placed = order::arrange(c, found.clone(), req.mode, req.order, true, upto);
                let partial = self.respond(self.answer(found.len(), placed, req), req.offset, upto);
                let progress = Progress {
                    partial: &partial,
                    scanned: scan_set.len() - end,
                    of: scan_set.len(),
                };
                if !on_progress(&progress) {
                    return None;
                }
            }
        }
        found.sort_unstable_by_key(|m| m.slot);
        let outcome = match req.engine {
            Engine::Fuzzy => EngineOutcome {
                matches: found,
                notice: None,
                quality: None,
                scored: true,
            },
            _ if !found.is_empty() => EngineOutcome {
                matches: found,
                notice: None,
                quality: Some(MatchQuality::All),
                scored: false,
            },
            // no memory has every word: the OR fallback over the whole filtered set
            _ => crate::search::engine::run(
                c,
                &selection,
                Some(&[]),
                req.engine,
                &req.query,
                self.snapshot(),
            ),
        };
        self.remember(req, &outcome);
        let total = outcome.matches.len();
        let placed = order::arrange(c, outcome.matches, req.mode, req.order, true, upto);
        let answer = Answer {
            total,
            placed,
            notice: outcome.notice,
            quality: outcome.quality,
            scored: outcome.scored,
        };
        Some(self.respond(answer, req.offset, upto))
    }

    fn answer(&self, total: usize, placed: Vec<order::Placed>, req: &SearchRequest) -> Answer {
        let fuzzy = req.engine == Engine::Fuzzy;
        Answer {
            total,
            placed,
            notice: None,
            quality: (!fuzzy).then_some(MatchQuality::All),
            scored: fuzzy,
        }
    }
}
