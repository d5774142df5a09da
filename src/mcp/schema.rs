//! The scored dimensions in the tools' JSON schemas, taken from the table of
//! dimensions (`FEEL_DIMS`) so that the schemas follow the model, and the other names
//! remember-mcp's schemas give them.

use crate::model::{Composite, FEEL_DIMS, input_aliases};
use rmcp::model::JsonObject;
use serde_json::{Value, json};
use std::sync::Arc;

/// `base` (a schemars object schema) with one optional number property per scored
/// dimension, each with its range, and one per alias (remember-mcp's 29-name form).
pub fn with_scores(base: Arc<JsonObject>) -> Arc<JsonObject> {
    let mut schema = (*base).clone();
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Value::Object(props) = properties {
        for d in &FEEL_DIMS {
            props.insert(
                d.field.into(),
                json!({
                    "type": ["number", "null"],
                    "minimum": d.min,
                    "maximum": d.max,
                    "description": format!(
                        "Score hint for {} ({} to {}); null leaves it unscored",
                        d.name, d.min, d.max
                    ),
                }),
            );
        }
        for (alias, i) in input_aliases() {
            let d = &FEEL_DIMS[i];
            props.insert(
                alias,
                json!({
                    "type": ["number", "null"],
                    "minimum": d.min,
                    "maximum": d.max,
                    "description": format!("Another name of {} (remember-mcp)", d.field),
                }),
            );
        }
    }
    let composites: Vec<&str> = Composite::ALL.iter().map(|c| c.field()).collect();
    let note = format!(
        " The composites ({}) are derived from the scores and refused.",
        composites.join(", ")
    );
    if let Some(Value::String(description)) = schema.get_mut("description") {
        description.push_str(&note);
    }
    Arc::new(schema)
}
