//! A tool's arguments, read into their Rust type with the path of whatever does not fit
//! named in the message (`filters.types: invalid type: string "note", expected a
//! sequence`), so an agent learns which argument to fix. rmcp's own `Parameters` says
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
        serde_path_to_error::deserialize(arguments)
            .map(Parameters)
            .map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
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
