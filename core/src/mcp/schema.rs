//! The scored dimensions in the tools' JSON schemas, taken from the table of
//! dimensions (`FEEL_DIMS`) so that the schemas follow the model, and the other names
//! remember-mcp's schemas give them.

use crate::model::{Composite, FEEL_DIMS, input_aliases};
use rmcp::model::JsonObject;
use rmcp::schemars::JsonSchema;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The input schema of a tool whose arguments are `T`, in the plain form every client
/// reads: nested objects written out in place instead of `$ref`s to `$defs`, and an
/// optional argument typed as its type alone (`"number"`, not `["number", "null"]`;
/// that it may be left out is what `required` says). The MCP Inspector, for one,
/// converts a command-line argument only for a single `type`.
pub fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut schema = Value::Object((*rmcp::handler::server::tool::schema_for_type::<T>()).clone());
    let defs = match &mut schema {
        Value::Object(o) => o.remove("$defs"),
        _ => None,
    };
    let defs = match defs {
        Some(Value::Object(d)) => d,
        _ => Map::new(),
    };
    plain(&mut schema, &defs);
    match schema {
        Value::Object(o) => Arc::new(o),
        _ => Arc::new(JsonObject::new()),
    }
}

/// Inlines `$ref`s to `defs`, drops `null` from type lists and from `anyOf`s.
fn plain(value: &mut Value, defs: &Map<String, Value>) {
    match value {
        Value::Object(o) => {
            if let Some(Value::Array(any)) = o.get("anyOf").cloned() {
                let rest: Vec<Value> = any
                    .into_iter()
                    .filter(|s| s.get("type") != Some(&json!("null")))
                    .collect();
                if rest.len() == 1 {
                    o.remove("anyOf");
                    if let Value::Object(only) = &rest[0] {
                        for (k, v) in only {
                            o.entry(k.clone()).or_insert(v.clone());
                        }
                    }
                } else {
                    o.insert("anyOf".into(), rest.into());
                }
            }
            if let Some(Value::String(r)) = o.get("$ref")
                && let Some(def) = r.strip_prefix("#/$defs/").and_then(|n| defs.get(n))
            {
                let mut def = def.clone();
                o.remove("$ref");
                if let Value::Object(d) = &mut def {
                    for (k, v) in std::mem::take(d) {
                        o.entry(k).or_insert(v);
                    }
                }
            }
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types[0].clone();
                    o.insert("type".into(), only);
                }
            }
            for v in o.values_mut() {
                plain(v, defs);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| plain(v, defs)),
        _ => {}
    }
}

/// `base` (a schemars object schema) with one optional number property per scored
/// dimension, each with its range, and one per alias (remember-mcp's 29-name form);
/// each may also be `null` when `unscored` (an update, where `null` unscores it), so a
/// client that checks arguments against the schema lets that through.
pub fn with_scores(base: Arc<JsonObject>, unscored: bool) -> Arc<JsonObject> {
    let kind = if unscored {
        json!(["number", "null"])
    } else {
        json!("number")
    };
    let mut schema = (*base).clone();
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Value::Object(props) = properties {
        for d in &FEEL_DIMS {
            props.insert(
                d.field.into(),
                json!({
                    "type": kind,
                    "minimum": d.min,
                    "maximum": d.max,
                    "description": format!(
                        "Score hint for {} ({} to {}); null (on update) unscores it",
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
                    "type": kind,
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
