//! Long searches in steps: the best of what has been scanned so far while the scan runs
//! (newest memories first), then the exact list, the same as [`Searcher::search`].

use crate::index::tokenize::literal_words;
use crate::search::engine::EngineOutcome;
use crate::search::fuzzy::{Floor, Ranking};
use crate::search::request::{Engine, MatchQuality, SearchRequest, SearchResponse};
use crate::search::searcher::{Answer, Searcher};
use crate::search::{fuzzy, literal};

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
        let narrowed = self.narrowed(req);
        let scan_set: &[u32] = narrowed.as_ref().map_or(set, |n| &n.within);
        let words = literal_words(&req.query);
        let upto = req.offset.saturating_add(req.limit);
        let fuzzy = req.engine == Engine::Fuzzy;
        let ranking = Ranking::of(req, upto);
        let seeds = narrowed.as_ref().map_or(&[][..], |n| &n.seeds);
        let floor = Floor::seeded(c, &req.query, seeds, ranking);
        let mut found = EngineOutcome::new(fuzzy, ranking);
        let mut end = scan_set.len();
        let mut chunk = first_chunk.max(1);
        while end > 0 {
            let start = end.saturating_sub(chunk);
            let part = &scan_set[start..end];
            if fuzzy {
                let f = fuzzy::run(c, part, &req.query, ranking, &floor);
                found.matches.extend(f.matches);
                if let Some(b) = f.best {
                    let so_far = found.best.take().unwrap_or_default();
                    found.best = Some(fuzzy::merge_best(c, so_far, b, ranking));
                }
            } else {
                found.matches.extend(literal::all_words(c, part, &words));
            }
            end = start;
            chunk = chunk.saturating_mul(4);
            if end > 0 {
                let answer = Answer {
                    total: found.matches.len(),
                    notice: None,
                    quality: found.quality,
                    scored: fuzzy,
                    // a loaded corpus holds its time ranks: placing never needs the ids
                    placed: found
                        .page_so_far()
                        .place(c, req, ranking, upto, None, None)?,
                };
                let partial = self.respond(answer, req.offset, upto);
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
        found.matches.sort_unstable_by_key(|m| m.slot);
        let outcome = if fuzzy || !found.matches.is_empty() {
            found
        } else {
            // no memory has every word: the OR fallback over the whole filtered set
            crate::search::engine::run(
                c,
                &selection,
                Some(&[]),
                (req.engine, &req.query),
                self.snapshot(),
                (ranking, &floor),
                &crate::search::never,
            )
        };
        self.remember(req, &outcome);
        let answer = Answer {
            total: outcome.matches.len(),
            notice: outcome.notice,
            quality: outcome.quality,
            scored: outcome.scored,
            placed: outcome.place(c, req, ranking, upto, None, None)?,
        };
        Some(self.respond(answer, req.offset, upto))
    }
}

impl EngineOutcome {
    /// Nothing found yet by a scan of the fuzzy (else literal, all words) engine.
    fn new(fuzzy: bool, ranking: Ranking) -> EngineOutcome {
        EngineOutcome {
            incomplete: false,
            matches: Vec::new(),
            notice: None,
            quality: (!fuzzy).then_some(MatchQuality::All),
            scored: fuzzy,
            best: (fuzzy && ranking.kept().is_some()).then(Vec::new),
        }
    }

    /// A copy of what was found so far to place a partial page from; the matches
    /// themselves only when the page is cut from them (not from the best list).
    fn page_so_far(&self) -> EngineOutcome {
        EngineOutcome {
            incomplete: false,
            matches: match self.best {
                Some(_) => Vec::new(),
                None => self.matches.clone(),
            },
            notice: self.notice,
            quality: self.quality,
            scored: self.scored,
            best: self.best.clone(),
        }
    }
}
