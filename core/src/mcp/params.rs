//! A tool's arguments, read into their Rust type with the path of whatever does not fit
//! named in the message (`filters.types: invalid type: string "note", expected a
//! list`), in JSON's words rather than Rust's, so an agent learns which argument to fix. rmcp's own `Parameters` says
//! only what was wrong, not where.

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::schemars::{self, JsonSchema};
use serde::de::DeserializeOwned;

/// The arguments of a tool call, as `P`; its JSON schema is `P`'s.
#[derive(Debug, Clone)]
pub struct Parameters<P>(pub P);

impl<P: JsonSchema> JsonSchema for Parameters<P> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        P::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        P::json_schema(generator)
    }
}

impl<S, P: DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Parameters<P> {
    fn from_context_part(context: &mut ToolCallContext<S>) -> Result<Self, rmcp::ErrorData> {
        let arguments = serde_json::Value::Object(context.arguments.take().unwrap_or_default());
        serde_path_to_error::deserialize::<_, P>(arguments.clone())
            .map(Parameters)
            .map_err(|e| {
                let mut path = e.path().to_string();
                let inner = e.into_inner().to_string();
                if path == "." {
                    // a flattened struct hides where the error is: found by asking
                    if let Some(key) = argument_at_fault::<P>(&arguments, &inner) {
                        path = key;
                    }
                }
                let inner = plain_words(&inner);
                // rmcp answers an error with this prefix as the tool's error result
                let message = if path == "." {
                    format!("failed to deserialize parameters: {inner}")
                } else {
                    format!("failed to deserialize parameters: {path}: {inner}")
                };
                rmcp::ErrorData::invalid_params(message, None)
            })
    }
}

/// The argument whose value gives the error `message` when `arguments` are read as `P`,
/// for types whose fields are read through `#[serde(flatten)]` (serde then loses the
/// path): the one argument whose value, left out, no longer gives that error. `None`
/// when no single argument does.
fn argument_at_fault<P: DeserializeOwned>(
    arguments: &serde_json::Value,
    message: &str,
) -> Option<String> {
    let object = arguments.as_object()?;
    let mut at_fault = object.keys().filter(|key| {
        let mut without = object.clone();
        without.shift_remove(key.as_str());
        match serde_json::from_value::<P>(serde_json::Value::Object(without)) {
            Ok(_) => true,
            // a required argument left out: another error, which says so
            Err(e) => {
                let other = e.to_string();
                other != message && !other.starts_with("missing field")
            }
        }
    });
    let key = at_fault.next()?;
    at_fault.next().is_none().then(|| key.clone())
}

/// serde's message in JSON's words rather than Rust's: "expected f64" becomes "expected
/// a number", "expected u64" "expected a whole number of 0 or more", "a sequence" "a
/// list", "a map" "an object".
fn plain_words(message: &str) -> String {
    const WORDS: [(&str, &str); 12] = [
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected u64", "expected a whole number of 0 or more"),
        ("expected u32", "expected a whole number of 0 or more"),
        ("expected u16", "expected a whole number of 0 or more"),
        ("expected u8", "expected a whole number of 0 or more"),
        ("expected usize", "expected a whole number of 0 or more"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected i8", "expected a whole number"),
        ("a sequence", "a list"),
        ("expected a map", "expected an object"),
    ];
    WORDS
        .iter()
        .fold(message.to_string(), |text, (rust, json)| {
            text.replace(rust, json)
        })
}

#[cfg(test)]
mod tests {
    use super::plain_words;

    #[test]
    fn rust_type_names_become_json_words() {
        for (serde, plain) in [
            (
                r#"invalid type: string "high", expected f64"#,
                r#"invalid type: string "high", expected a number"#,
            ),
            (
                "invalid value: integer `-3`, expected u64",
                "invalid value: integer `-3`, expected a whole number of 0 or more",
            ),
            (
                r#"invalid type: string "note", expected a sequence"#,
                r#"invalid type: string "note", expected a list"#,
            ),
            ("missing field `id`", "missing field `id`"),
        ] {
            assert_eq!(plain_words(serde), plain);
        }
    }
}
