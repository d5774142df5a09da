//! A memory as JSON with its derived values after the stored fields: `rating_bayesian`,
//! `rating_avg` once rated 5 times, `relationship_count`, the composites when scored and
//! `confidence_tier` (what `memlens get --json` prints and `mem_get` returns).

use crate::model::{Composite, Memory, Timestamp};
use crate::store::{StoreError, StoreReader};
use serde_json::{Map, Value};

/// The stored fields of a memory followed by its derived values, as of `now`.
pub fn with_derived(
    reader: &StoreReader,
    memory: &Memory,
    now: Timestamp,
) -> Result<Map<String, Value>, StoreError> {
    let mut m = memory.to_json();
    m.insert("rating_bayesian".into(), memory.rating_bayesian().into());
    if let Some(avg) = memory.rating_avg() {
        m.insert("rating_avg".into(), avg.into());
    }
    m.insert(
        "relationship_count".into(),
        reader.relationship_count(memory)?.into(),
    );
    for c in Composite::ALL {
        if let Some(v) = memory.composite(c) {
            m.insert(c.field().into(), v.into());
        }
    }
    m.insert(
        "confidence_tier".into(),
        memory.confidence_tier(now).as_str().into(),
    );
    Ok(m)
}
