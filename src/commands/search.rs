//! `memlens search`: its flags (SPEC §4) and what it prints.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use memlens::collection::LocalCollection;
use memlens::search::listing::{self, Listing};
use memlens::search::output;
use memlens::search::request::{BrowseMode, Engine, Filters, NumericField, Order, SearchRequest};
use memlens::store::{Store, StoreReader};

/// The flags of `memlens search` (every subcommand's `--db` lives elsewhere).
#[derive(Debug, Clone, clap::Args)]
pub struct SearchArgs {
    /// How the query is matched.
    #[arg(long, default_value = "literal",
          value_parser = PossibleValuesParser::new(["literal", "bm25", "fuzzy"]).map(|s| parse_engine(&s)))]
    pub engine: Engine,
    /// The order of the list (default: relevance with a query, time without); `broad`
    /// lists by time with slices of each body, `random` draws a uniform sample.
    #[arg(long, value_parser = PossibleValuesParser::new(
        ["relevance", "time", "density", "rating", "discovery", "property", "significance",
         "broad", "random"]))]
    pub mode: Option<String>,
    /// The seed of `--mode random`: the same seed draws the same sample.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// The numeric field of `--mode property` (implies it when --mode is left out).
    #[arg(long, value_name = "FIELD", value_parser = parse_field,
          required_if_eq("mode", "property"))]
    pub sort_field: Option<NumericField>,
    /// Ascending or descending (default: the mode's own, descending).
    #[arg(long, value_parser = PossibleValuesParser::new(["asc", "desc"]).map(|s| parse_order(&s)))]
    pub order: Option<Order>,
    /// A filter KEY=VALUE (repeatable), e.g. `type=decision,gotcha`, `feel_humor=0.5..1`.
    #[arg(long = "filter", value_name = "KEY=VALUE", value_parser = parse_filter)]
    pub filters: Vec<String>,
    /// Results to print at most.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Results to skip.
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Count the printed results as read (read_count + 1, last_read_at = now).
    #[arg(long)]
    pub track: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// The query; several words are joined by spaces. Empty = browse.
    #[arg(value_name = "QUERY")]
    pub query: Vec<String>,
}

/// The engine a `--engine` value names (the value is one of the engines').
pub(crate) fn parse_engine(s: &str) -> Engine {
    Engine::ALL
        .into_iter()
        .find(|e| e.as_str() == s)
        .unwrap_or_default()
}

fn parse_order(s: &str) -> Order {
    if s == "asc" { Order::Asc } else { Order::Desc }
}

fn parse_field(s: &str) -> Result<NumericField, String> {
    NumericField::parse(s).ok_or_else(|| {
        format!(
            "unknown numeric field `{s}`; one of {}",
            NumericField::all()
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Checks a `--filter KEY=VALUE` as the command line reads it.
pub(crate) fn parse_filter(s: &str) -> Result<String, String> {
    Filters::default()
        .apply_arg(s)
        .map(|()| s.to_string())
        .map_err(|e| e.to_string())
}

/// A `memlens search` invocation that cannot run as given.
#[derive(Debug, thiserror::Error)]
pub enum SearchCommandError {
    /// A flag combination that makes no sense.
    #[error("{0}")]
    Usage(String),
    /// A filter that does not parse.
    #[error(transparent)]
    Filter(#[from] memlens::search::FilterError),
}

impl SearchArgs {
    /// The list the flags ask for: a page, the broad scan or a random draw.
    pub fn listing(&self) -> Result<Listing, SearchCommandError> {
        match self.mode.as_deref() {
            Some("broad") => Ok(Listing::Broad),
            // the seed is chosen here so that the output can name it
            Some("random") => Ok(Listing::Random {
                seed: Some(
                    self.seed
                        .unwrap_or_else(memlens::search::random::Draw::fresh_seed),
                ),
            }),
            _ if self.seed.is_some() => Err(SearchCommandError::Usage(
                "--seed applies to --mode random".into(),
            )),
            _ => Ok(Listing::Page),
        }
    }

    /// The request these flags describe.
    pub fn request(&self) -> Result<SearchRequest, SearchCommandError> {
        let filters = Filters::from_args(&self.filters)?;
        let mode = match (self.mode.as_deref(), self.sort_field) {
            (None, Some(f)) | (Some("property"), Some(f)) => BrowseMode::Property(f),
            (Some("property"), None) => {
                return Err(SearchCommandError::Usage(
                    "--mode property needs --sort-field FIELD".into(),
                ));
            }
            (Some(m), Some(_)) => {
                return Err(SearchCommandError::Usage(format!(
                    "--sort-field applies to --mode property, not --mode {m}"
                )));
            }
            (None, None) => BrowseMode::Relevance,
            (Some(m), None) => match m {
                "time" => BrowseMode::Time,
                "density" => BrowseMode::Density,
                "rating" => BrowseMode::Rating,
                "discovery" => BrowseMode::Discovery,
                "significance" => BrowseMode::Significance,
                "broad" => BrowseMode::Time,
                _ => BrowseMode::Relevance,
            },
        };
        Ok(SearchRequest {
            query: self.query.join(" "),
            engine: self.engine,
            filters,
            mode,
            order: self.order,
            offset: self.offset,
            limit: self.limit,
        })
    }
}

/// Runs `memlens search` on the store at `path`: a search that writes nothing (no
/// `--track`) reads a read-only snapshot, so the file is not opened for writing at all
/// unless it must be (see [`Store::snapshot`]).
pub fn run_at(
    path: &std::path::Path,
    args: &SearchArgs,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<()> {
    memlens::store::guarded(path, || {
        if args.track {
            return run(&memlens::existing::open_existing(path)?, args, out);
        }
        run_on_snapshot(memlens::existing::read_existing(path)?, args, out)
    })
}

/// Runs `memlens search` on an open store, printing to `out`.
pub fn run(store: &Store, args: &SearchArgs, out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    respond(store.read()?, Some(store), args, out)
}

/// Runs `memlens search` on a snapshot (see [`memlens::existing::read_existing`]);
/// `--track` needs [`run`], which can write.
pub fn run_on_snapshot(
    reader: StoreReader,
    args: &SearchArgs,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<()> {
    respond(reader, None, args, out)
}

fn respond(
    reader: StoreReader,
    store: Option<&Store>,
    args: &SearchArgs,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<()> {
    let req = args.request()?;
    let listing = args.listing()?;
    let mut resp = listing::answer(&LocalCollection::snapshot(reader), &req, listing)?;
    if let Some(damage) = resp.damage.take() {
        anyhow::bail!(damage);
    }
    if let Some(store) = store.filter(|_| args.track) {
        memlens::curate::track_hits(store, &mut resp.hits)?;
    }
    if args.json {
        let json = output::listing_json(&req, listing, &resp);
        memlens::text::json::write_pretty(&mut *out, &json)?;
        writeln!(out)?;
    } else {
        out.write_all(output::table(&req, &resp).as_bytes())?;
    }
    Ok(())
}
