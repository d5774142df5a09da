//! Running the chosen engine over the filtered set: which memories match, with what
//! score, and which notice the user sees.

use crate::index::tokenize::{literal_words, query_tokens};
use crate::search::corpus::Corpus;
use crate::search::fuzzy::{Floor, Ranking};
use crate::search::order::{self, Placed};
use crate::search::request::{Engine, MatchQuality, SearchRequest};
use crate::search::searcher::Selection;
use crate::search::{bm25, fuzzy, literal};

/// One matching memory and its relevance score (literal: the number of words matched).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Match {
    /// The memory's slot.
    pub slot: u32,
    /// Relevance: BM25 or fuzzy score, or the literal words matched.
    pub score: f64,
}

pub(crate) use crate::parallel::{PARALLEL_FROM, in_parts, in_pieces, threads};

/// `f` over every slot of `set`, on all cores for large sets; results in slot order.
pub(crate) fn scan<T: Send>(set: &[u32], f: impl Fn(u32) -> Option<T> + Sync) -> Vec<T> {
    in_parts(set.len(), |range| {
        set[range].iter().filter_map(|&s| f(s)).collect()
    })
}

/// What an engine found, and how to show it.
pub(crate) struct EngineOutcome {
    /// Matches in slot order.
    pub matches: Vec<Match>,
    /// The notice for the user, if any.
    pub notice: Option<&'static str>,
    /// Literal results: whether they match every word.
    pub quality: Option<MatchQuality>,
    /// True when `score` is a BM25 or fuzzy score to show.
    pub scored: bool,
    /// The best (or worst) matches by relevance, in the page's order, when the engine ranked them itself
    /// ([`Ranking::Best`], [`Ranking::Worst`]): the first `k` asked for, then some
    /// runners-up.
    pub best: Option<Vec<Match>>,
    /// True when some stored haystack could not be read, so the matches may lack some
    /// (the caller answers from a loaded searcher instead).
    pub incomplete: bool,
}

impl EngineOutcome {
    /// Matches a ranking engine (BM25, fuzzy) scored, with the best ones it ranked
    /// itself, if any.
    fn scored(matches: Vec<Match>, best: Option<Vec<Match>>) -> EngineOutcome {
        EngineOutcome {
            matches,
            notice: None,
            quality: None,
            scored: true,
            best,
            incomplete: false,
        }
    }
}

/// Runs `engine` with `query` over the memories the filters keep (`selection`).
/// `within`, when given, is a subset of them known to hold every literal (all words)
/// or fuzzy match, from a previous query the new one extends. `snapshot` is the store
/// snapshot the corpus was read from, when kept (BM25 reads its postings). `fuzzy` says
/// which fuzzy scores the page's order needs, and the best found so far; `stop` stops
/// a scan of the snapshot's haystacks between chunks (the outcome is then incomplete).
pub(crate) fn run(
    c: &Corpus,
    selection: &Selection,
    within: Option<&[u32]>,
    (engine, query): (Engine, &str),
    snapshot: Option<&crate::store::StoreReader>,
    fuzzy: (Ranking, &Floor),
    stop: crate::search::Stop<'_>,
) -> EngineOutcome {
    if c.stored_text
        && let Some(reader) = snapshot
    {
        return run_stored(c, selection, (engine, query), reader, fuzzy.0, stop);
    }
    let (set, member) = (&selection.set[..], selection.member());
    match engine {
        Engine::Literal => run_literal(c, set, member, within, query, None),
        Engine::Bm25 => {
            let matches = bm25::search(c, selection, &query_tokens(query), snapshot);
            if matches.is_empty() {
                run_literal(c, set, member, None, query, Some(bm25::FALLBACK_NOTICE))
            } else {
                EngineOutcome::scored(matches, None)
            }
        }
        Engine::Fuzzy => {
            let (ranking, floor) = fuzzy;
            let found = fuzzy::run(c, within.unwrap_or(set), query, ranking, floor);
            EngineOutcome::scored(found.matches, found.best)
        }
    }
}

/// [`run`] for a corpus that holds no text: literal and fuzzy read the haystack chunks
/// of the snapshot, fuzzy scoring the matches `ranking` asks for. A haystack that cannot be read counts as
/// matching nothing (the stored index is then damaged; `memlens check` says so).
fn run_stored(
    c: &Corpus,
    selection: &Selection,
    (engine, query): (Engine, &str),
    reader: &crate::store::StoreReader,
    ranking: Ranking,
    stop: crate::search::Stop<'_>,
) -> EngineOutcome {
    let set = &selection.set[..];
    // a store whose documents run 0, 1, 2... without a gap (one never compacted, or
    // with nothing removed) stores each memory under its slot: the set is its documents
    let dense = c
        .docs
        .last()
        .is_none_or(|&last| last as usize + 1 == c.docs.len());
    let docs: std::borrow::Cow<'_, [u32]> = if dense {
        std::borrow::Cow::Borrowed(set)
    } else {
        set.iter().map(|&s| c.docs[s as usize]).collect()
    };
    let to_slots = |mut matches: Vec<Match>| {
        for m in &mut matches {
            m.slot = set[m.slot as usize];
        }
        matches
    };
    let literal = |fallback| {
        let words = literal_words(query);
        let found = match &c.literal_word_docs {
            Some(holding) => Some(literal::from_counts(
                &crate::search::literal_postings::counts(&docs, holding),
                words.len(),
            )),
            None => crate::search::stored_text::literal(reader, &docs, &words, stop),
        };
        let incomplete = found.is_none();
        let mut found = found.unwrap_or(literal::LiteralOutcome {
            matches: Vec::new(),
            partial: false,
        });
        found.matches = to_slots(found.matches);
        EngineOutcome {
            incomplete,
            ..literal_outcome(found, fallback)
        }
    };
    match engine {
        Engine::Literal => literal(None),
        Engine::Bm25 => {
            let matches = bm25::search(c, selection, &query_tokens(query), Some(reader));
            if matches.is_empty() {
                literal(Some(bm25::FALLBACK_NOTICE))
            } else {
                EngineOutcome::scored(matches, None)
            }
        }
        Engine::Fuzzy => {
            let rank = |pos: u32| c.time_rank[set[pos as usize] as usize];
            let found =
                crate::search::stored_text::fuzzy(reader, &docs, (query, ranking), &rank, stop);
            let incomplete = found.is_none();
            let found = found.unwrap_or(fuzzy::Found {
                matches: Vec::new(),
                best: None,
            });
            EngineOutcome {
                incomplete,
                ..EngineOutcome::scored(to_slots(found.matches), found.best.map(to_slots))
            }
        }
    }
}

fn run_literal(
    c: &Corpus,
    set: &[u32],
    member: &[bool],
    within: Option<&[u32]>,
    query: &str,
    fallback: Option<&'static str>,
) -> EngineOutcome {
    literal_outcome(
        literal::search(c, set, member, within, &literal_words(query)),
        fallback,
    )
}

/// The outcome of a literal search: its notice (`fallback`'s when it stands in for
/// BM25) and match quality.
pub(crate) fn literal_outcome(
    found: literal::LiteralOutcome,
    fallback: Option<&'static str>,
) -> EngineOutcome {
    let notice = if found.matches.is_empty() {
        None
    } else if fallback.is_some() {
        fallback
    } else if found.partial {
        Some(literal::PARTIAL_NOTICE)
    } else {
        None
    };
    EngineOutcome {
        quality: Some(if found.partial {
            MatchQuality::Partial
        } else {
            MatchQuality::All
        }),
        matches: found.matches,
        notice,
        scored: false,
        best: None,
        incomplete: false,
    }
}

impl EngineOutcome {
    /// The first `upto` matches in the order `req` asks for (its mode and direction),
    /// taken from the engine's own best list when it made one; a page of fuzzy matches
    /// cut unscored ([`Ranking::Page`]) gets its scores here (read from `snapshot`
    /// when the corpus holds no text). `None` when a stored haystack cannot be read.
    pub(crate) fn place(
        self,
        c: &Corpus,
        req: &SearchRequest,
        ranking: Ranking,
        upto: usize,
        ids: Option<order::IdOrder<'_>>,
        snapshot: Option<&crate::store::StoreReader>,
    ) -> Option<Vec<Placed>> {
        if let Some(best) = self.best {
            return Some(best.into_iter().take(upto).map(|m| (m, None)).collect());
        }
        let mut placed = order::arrange(
            c,
            order::Matched::Scored(self.matches),
            req.mode,
            req.order,
            true,
            upto,
            ids,
        )?;
        if req.engine == Engine::Fuzzy && ranking == Ranking::Page {
            match (c.stored_text, snapshot) {
                (false, _) => fuzzy::score_page(c, &req.query, &mut placed),
                (true, Some(reader)) => {
                    crate::search::stored_text::score_page(reader, c, &req.query, &mut placed)?
                }
                (true, None) => return None,
            }
        }
        Some(placed)
    }
}
