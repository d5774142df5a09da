//! A memory with the memories it is linked with, both ways: what a detail view shows
//! (the browser's detail pane; `memlens get`'s relationships).

use crate::model::Memory;
use crate::store::{StoreReader, StoreResult};
use std::collections::BTreeSet;

/// One memory and its relationships in both directions.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    /// The memory.
    pub memory: Memory,
    /// Its relationship_count: relationships it names and memories that name it.
    pub relationship_count: u32,
    /// Its relationships: the ones it names first, in its order, then the memories
    /// that name it (each other memory once).
    pub links: Vec<Link>,
}

/// One relationship as a detail view lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The other memory's id.
    pub id: String,
    /// The relationship's kind.
    pub kind: String,
    /// Its strength, when given.
    pub strength: Option<f64>,
    /// True when the link reads from this memory to the other; false when the other
    /// names this one (or, for an MCP memory relation, was written as its `from` end).
    pub outgoing: bool,
    /// The other memory's headline; `None` when it is missing from the store.
    pub headline: Option<String>,
}

/// The detail of memory `id` in one snapshot; `None` when there is no such memory.
pub fn read(reader: &StoreReader, id: &str) -> StoreResult<Option<Detail>> {
    let Some(memory) = reader.get(id)? else {
        return Ok(None);
    };
    let mut links = Vec::new();
    let mut seen = BTreeSet::new();
    for rel in &memory.relationships {
        // a target that cannot be read shows as missing, not as a failed view
        let headline = reader
            .get(&rel.target)
            .ok()
            .flatten()
            .map(|m| m.headline().to_string());
        seen.insert(rel.target.clone());
        links.push(Link {
            id: rel.target.clone(),
            kind: rel.kind.clone(),
            strength: rel.strength,
            // an MCP memory relation held here but written by the other end reads inwards
            outgoing: !crate::exchange::mcp_memory::written_towards(&memory, rel),
            headline,
        });
    }
    for source_id in reader.linked_from(id)? {
        if source_id == id || seen.contains(&source_id) {
            continue;
        }
        let Some(other) = reader.get(&source_id)? else {
            continue;
        };
        let rel = other.relationships.iter().find(|r| r.target == id);
        links.push(Link {
            id: source_id.clone(),
            kind: rel.map_or_else(|| "related".into(), |r| r.kind.clone()),
            strength: rel.and_then(|r| r.strength),
            outgoing: false,
            headline: Some(other.headline().to_string()),
        });
        seen.insert(source_id);
    }
    let relationship_count = reader.relationship_count(&memory)?;
    Ok(Some(Detail {
        memory,
        relationship_count,
        links,
    }))
}
