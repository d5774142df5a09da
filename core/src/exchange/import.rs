//! One import run: every source read into one write transaction, all or nothing.
//!
//! Records are written as they are read (so memory use does not grow with the input),
//! but nothing is committed unless the whole run is clean: any problem, or a dry run,
//! drops the transaction and the store is exactly as before. Ids are checked on the
//! way: a second record with an id seen earlier in the run is a problem at its line
//! (`id: duplicate of FILE:LINE`); an id already in the store follows `OnConflict`.

use super::error::{ExchangeError, ImportError, Problems};
use super::pipeline::{Backlog, ChannelSink, Event};
use super::{
    Format, OnConflict, RecordSink, detect, hivelore, jsonl, lines, mcp_memory, openmemory,
    openmemory_zip,
};
use crate::model::Timestamp;
use crate::store::{BulkWriter, Prepared, STEP_BYTES, Store, StoreError, StoreWriter};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};

/// How an import run behaves.
#[derive(Debug, Clone, Copy)]
pub struct ImportOptions {
    /// What to do with ids already in the store.
    pub on_conflict: OnConflict,
    /// Check everything, write nothing.
    pub dry_run: bool,
    /// The time given to memories whose input has no timestamps.
    pub now: Timestamp,
    /// Bytes written per step of the import ([`Store::write_in_steps`]).
    pub step_bytes: usize,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            on_conflict: OnConflict::Fail,
            dry_run: false,
            now: Timestamp::now(),
            step_bytes: STEP_BYTES,
        }
    }
}

/// One thing to import.
#[derive(Debug, Clone)]
pub enum ImportSource {
    /// A file or directory; `None` detects the format (see [`detect`]).
    Path(PathBuf, Option<Format>),
    /// Text already in memory (e.g. the demo collection), named `name` in messages.
    Text {
        /// The name problems are reported under.
        name: String,
        /// The content.
        text: String,
        /// Its format (a hivelore text is one Markdown file).
        format: Format,
    },
}

/// What an import run did (or, in a dry run, would do).
#[derive(Debug, Clone, Default)]
pub struct ImportSummary {
    /// Each source as named in messages, with the format it was read as.
    pub sources: Vec<(String, Format)>,
    /// Valid memories read.
    pub read: usize,
    /// New memories written.
    pub added: usize,
    /// Stored memories replaced (`OnConflict::Overwrite`).
    pub replaced: usize,
    /// Memories left out because their id was stored (`OnConflict::Skip`).
    pub skipped: usize,
    /// Per memory updated (`OnConflict::Update`), what it kept of the stored memory.
    pub updates: Vec<(String, Vec<String>)>,
    /// Warnings (capped, counted).
    pub warnings: Problems,
    /// Steps committed before the last, durable commit ([`Store::write_in_steps`]).
    pub steps: usize,
    /// True when nothing was written on purpose.
    pub dry_run: bool,
}

/// Imports `sources` into `store`, all or nothing (nothing in a dry run). A large
/// import is written [in steps](Store::write_in_steps), each committed without waiting
/// for the disk and all undone if the run fails, so that its pages are checksummed
/// while they are still in memory.
pub fn import(
    store: &Store,
    sources: &[ImportSource],
    options: &ImportOptions,
) -> Result<ImportSummary, ExchangeError> {
    if options.dry_run {
        return import_into(&mut store.write()?, sources, options);
    }
    let mut writer = store.write_in_steps(options.step_bytes)?;
    match import_into(&mut writer, sources, options) {
        Ok(summary) => {
            writer.commit()?;
            Ok(summary)
        }
        Err(e) => {
            // Should undoing the steps fail, the store is left for its next open to
            // recover as it was before the run (see `Store::write_in_steps`): the
            // run's own error is the one to report.
            let _undone = writer.abandon();
            Err(e)
        }
    }
}

/// Imports into an open write transaction, which the caller commits (or drops, or
/// [abandons](StoreWriter::abandon) when written in steps). On `Err` the transaction
/// holds partial writes and must be dropped.
pub fn import_into(
    writer: &mut StoreWriter,
    sources: &[ImportSource],
    options: &ImportOptions,
) -> Result<ImportSummary, ExchangeError> {
    let first_doc = writer.next_doc()?;
    let mut sink = StoreSink::new(first_doc, options.on_conflict);
    let (to_writer, from_reader) = std::sync::mpsc::sync_channel::<Vec<Event>>(8);
    let (to_reader, spent) = std::sync::mpsc::channel::<Vec<Event>>();
    let now = options.now;
    let backlog = Backlog::default();
    let names = std::thread::scope(|scope| {
        let reader_backlog = backlog.clone();
        let reader = scope.spawn(move || {
            let mut channel = ChannelSink::new(to_writer, spent, reader_backlog);
            let mut names = Vec::new();
            let mut outcome = Ok(());
            for source in sources {
                match read_source(source, &mut channel, now) {
                    Ok(name) => names.push(name),
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            }
            channel.finish();
            outcome.map(|()| names)
        });
        sink.store_all(writer, &from_reader, &backlog, &to_reader);
        // Unblocks a reader still sending after the writer stopped, or waiting for
        // the batches it sent to come back.
        drop(from_reader);
        drop(to_reader);
        match reader.join() {
            Ok(names) => names,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    if let Some(e) = sink.failure.take() {
        return Err(e.into());
    }
    let mut summary = ImportSummary {
        sources: names?,
        read: sink.read,
        added: sink.added,
        replaced: sink.replaced,
        skipped: sink.skipped,
        updates: sink.updates,
        warnings: std::mem::take(&mut sink.warnings),
        steps: writer.steps_taken(),
        dry_run: options.dry_run,
    };
    if !sink.problems.is_empty() {
        return Err(ExchangeError::Invalid {
            problems: std::mem::take(&mut sink.problems),
            warnings: std::mem::take(&mut summary.warnings),
        });
    }
    Ok(summary)
}

/// Reads one source into a sink; returns its name and the format used.
pub fn read_source(
    source: &ImportSource,
    sink: &mut dyn RecordSink,
    now: Timestamp,
) -> Result<(String, Format), ExchangeError> {
    match source {
        ImportSource::Path(path, format) => {
            let format_given = *format;
            let format = match format {
                Some(f) => *f,
                None => detect::detect(path)?,
            };
            let name = path.display().to_string();
            if format != Format::Hivelore && path.is_dir() {
                return Err(ExchangeError::BadPath {
                    path: path.clone(),
                    reason: format!(
                        "is a directory, not a {format} file (a directory is read as --format hivelore)"
                    ),
                });
            }
            match format {
                Format::Hivelore => hivelore::read::read(path, &name, sink, now)?,
                Format::Jsonl => {
                    sink.file(&name);
                    jsonl::read(lines::open(path)?, path, sink, now)?;
                }
                Format::McpMemory => {
                    sink.file(&name);
                    mcp_memory::read(lines::open(path)?, path, &name, sink, now)?;
                }
                Format::Openmemory if openmemory_zip::is_zip(path) => {
                    openmemory_zip::read(path, &name, sink, now)?;
                }
                Format::Openmemory => {
                    sink.file(&name);
                    openmemory::read(lines::open(path)?, path, &name, sink, now)?;
                }
            }
            // only a regular file is read twice: a pipe's first line would be lost
            if let Some(forced) = format_given
                && std::fs::metadata(path).is_ok_and(|m| m.is_file())
                && let Ok(detected) = detect::detect(path)
                && detected != forced
            {
                sink.warning(
                    0,
                    "format",
                    format!(
                        "looks like {detected} (what --format auto reads it as); read as {forced}, as --format says"
                    ),
                );
            }
            Ok((name, format))
        }
        ImportSource::Text { name, text, format } => {
            sink.file(name);
            let path = std::path::Path::new(name);
            let bytes = text.as_bytes();
            match format {
                Format::Jsonl => jsonl::read(bytes, path, sink, now)?,
                Format::McpMemory => mcp_memory::read(bytes, path, name, sink, now)?,
                Format::Openmemory => openmemory::read(bytes, path, name, sink, now)?,
                Format::Hivelore => {
                    let stem = path
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    hivelore::read::parse_memory(text, name, &stem, sink, &HashMap::new(), now);
                }
            }
            Ok((name.clone(), *format))
        }
    }
}

/// Where a record was read: index into the run's file names, and line.
type Place = (u32, u32);

/// The sink that writes into the store and checks ids.
struct StoreSink {
    on_conflict: OnConflict,
    /// Document numbers from here on were handed out by this run.
    first_doc: u32,
    files: Vec<String>,
    /// Place of each new memory, indexed by `doc - first_doc`.
    new_places: Vec<Place>,
    /// Place of each record that met a memory already stored.
    stored_places: HashMap<u32, Place>,
    problems: Problems,
    warnings: Problems,
    read: usize,
    added: usize,
    replaced: usize,
    skipped: usize,
    updates: Vec<(String, Vec<String>)>,
    failure: Option<StoreError>,
}

impl StoreSink {
    fn new(first_doc: u32, on_conflict: OnConflict) -> StoreSink {
        StoreSink {
            on_conflict,
            first_doc,
            files: Vec::new(),
            new_places: Vec::new(),
            stored_places: HashMap::new(),
            problems: Problems::default(),
            warnings: Problems::default(),
            read: 0,
            added: 0,
            replaced: 0,
            skipped: 0,
            updates: Vec::new(),
            failure: None,
        }
    }

    fn current(&self) -> u32 {
        u32::try_from(self.files.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    fn at(&self, line: usize, field: &str, reason: String) -> ImportError {
        ImportError {
            file: self.files.last().cloned().unwrap_or_default(),
            line,
            field: field.to_string(),
            reason,
        }
    }

    fn place_name(&self, (file, line): Place) -> String {
        format!(
            "{}:{line}",
            self.files.get(file as usize).map_or("?", String::as_str)
        )
    }

    fn store(
        &mut self,
        bulk: &mut BulkWriter<'_>,
        prepared: &Prepared,
        place: Place,
    ) -> Result<(), StoreError> {
        let doc = match bulk.insert_if_new(prepared)? {
            Ok(_) => {
                self.new_places.push(place);
                self.added += 1;
                return Ok(());
            }
            Err(doc) => doc,
        };
        let memory = prepared.memory();
        let earlier = doc
            .checked_sub(self.first_doc)
            .and_then(|i| self.new_places.get(i as usize).copied())
            .or_else(|| self.stored_places.get(&doc).copied());
        if let Some(earlier) = earlier {
            let reason = format!("duplicate of {}", self.place_name(earlier));
            self.problems.push(self.at(place.1 as usize, "id", reason));
            return Ok(());
        }
        self.stored_places.insert(doc, place);
        match self.on_conflict {
            OnConflict::Fail => {
                let reason = format!(
                    "`{}` is already in the store (use --on-conflict skip, update or overwrite)",
                    memory.id
                );
                self.problems.push(self.at(place.1 as usize, "id", reason));
            }
            OnConflict::Skip => self.skipped += 1,
            OnConflict::Overwrite => {
                bulk.put_prepared(prepared)?;
                self.replaced += 1;
            }
            OnConflict::Update => {
                let stored = bulk.get_doc(doc)?;
                let (updated, kept) = match &stored {
                    Some(stored) => super::update::update_from_source(stored, memory),
                    None => (memory.clone(), Vec::new()),
                };
                bulk.put(&updated)?;
                self.replaced += 1;
                self.updates.push((updated.id, kept));
            }
        }
        Ok(())
    }
}

impl StoreSink {
    /// Stores the batches the reader sends until it is done or the writer fails, taking
    /// a step ([`StoreWriter::checkpoint`]) whenever one is due; sends each batch back
    /// to the reader once stored.
    fn store_all(
        &mut self,
        writer: &mut StoreWriter,
        from_reader: &Receiver<Vec<Event>>,
        backlog: &Backlog,
        to_reader: &Sender<Vec<Event>>,
    ) {
        loop {
            let mut bulk = match writer.bulk() {
                Ok(bulk) => bulk,
                Err(e) => {
                    self.failure = Some(e);
                    return;
                }
            };
            if !self.store_step(&mut bulk, from_reader, backlog, to_reader) {
                return;
            }
            drop(bulk);
            if let Err(e) = writer.checkpoint() {
                self.failure = Some(e);
                return;
            }
        }
    }

    /// Stores batches through `bulk`: false once the reader is done or the writer
    /// failed, true when a step is due.
    fn store_step(
        &mut self,
        bulk: &mut BulkWriter<'_>,
        from_reader: &Receiver<Vec<Event>>,
        backlog: &Backlog,
        to_reader: &Sender<Vec<Event>>,
    ) -> bool {
        for batch in from_reader.iter() {
            for event in &batch {
                self.apply(bulk, event);
            }
            backlog.stored_one();
            // Freed on the reader's thread; a reader gone already leaves it to us.
            let _ = to_reader.send(batch);
            if self.failure.is_some() {
                return false;
            }
            // a run that has met a problem will be undone: no step is worth taking
            if bulk.step_is_due() && self.problems.is_empty() {
                return true;
            }
        }
        false
    }

    /// Applies one event from the reader thread, storing its memory through `bulk`.
    fn apply(&mut self, bulk: &mut BulkWriter<'_>, event: &Event) {
        match event {
            Event::File(name) => {
                if self.files.last().is_none_or(|last| last != name) {
                    self.files.push(name.clone());
                }
            }
            Event::Memory(line, prepared) => {
                if self.failure.is_some() {
                    return;
                }
                self.read += 1;
                let place = (self.current(), u32::try_from(*line).unwrap_or(u32::MAX));
                if let Err(e) = self.store(bulk, prepared, place) {
                    self.failure = Some(e);
                }
            }
            Event::Problem(line, field, reason) => {
                let e = self.at(*line, field, reason.clone());
                self.problems.push(e);
            }
            Event::Warning(line, field, reason) => {
                let w = self.at(*line, field, reason.clone());
                self.warnings.push(w);
            }
        }
    }
}
