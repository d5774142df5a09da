//! The tools that write and read one memory: remember-mcp's `remember_create_memory` and
//! `remember_update_memory`, and `mem_get`. Every field an agent gives is parsed by the
//! parser of `memlens set` ([`FieldValue::parse`]), so ranges and rules are the command
//! line's; the write is the curation [`Change`] the browser and the commands send.

use super::params::Parameters;
use super::schema::{input_schema, with_scores};
use super::{MemoryServer, ToolError};
use crate::curate::{Change, Edit, FieldValue};
use crate::model::{Composite, FEEL_DIMS, Memory, Timestamp, input_dim_index};
use rmcp::model::CallToolResult;
use rmcp::{schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// remember-mcp arguments memlens has no use for (it keeps no source URLs, templates,
/// threads, moderation flags, structured content or follow-up reminders); given, they
/// are named in the answer's `ignored` list rather than refused, so existing prompts
/// keep working. The tools' schemas list them, so that a client checking its arguments
/// against the schema sends them too.
pub const IGNORED: [&str; 9] = [
    "references",
    "template_id",
    "skip_template_suggestion",
    "parent_id",
    "thread_root_id",
    "moderation_flags",
    "structured_content",
    "follow_up_date",
    "follow_up_targets",
];

/// The fields of a memory an agent may give (besides the scored dimensions).
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct MemoryFields {
    /// Memory content (main text)
    pub content: Option<String>,
    /// Optional short title
    pub title: Option<String>,
    /// Content type, lowercase [a-z0-9_-]{1,40} (default note)
    #[serde(rename = "type")]
    pub memory_type: Option<String>,
    /// Tags for organisation
    pub tags: Option<Vec<String>>,
    /// Significance/priority 0–1 (default 0.5)
    #[schemars(range(min = 0.0, max = 1.0))]
    pub weight: Option<f64>,
    /// Trust 0–1 (default 0.5)
    #[schemars(range(min = 0.0, max = 1.0))]
    pub trust: Option<f64>,
    /// personal, team, module or shared (default personal)
    pub scope: Option<String>,
    /// The module (required when scope is module)
    pub module: Option<String>,
    /// Scored dimensions and anything else given: checked one by one.
    #[serde(flatten)]
    #[schemars(skip)]
    pub rest: Map<String, Value>,
}

/// The arguments of `remember_create_memory`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CreateParams {
    /// The new memory's id (default: a fresh ULID)
    pub id: Option<String>,
    /// The fields; `content` is required
    #[serde(flatten)]
    pub fields: MemoryFields,
}

/// The arguments of `remember_update_memory`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct UpdateParams {
    /// ID of the memory to update
    pub memory_id: String,
    /// The fields to change; only those given change
    #[serde(flatten)]
    pub fields: MemoryFields,
}

/// The arguments of `mem_get`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetParams {
    /// The memory's id
    pub id: String,
}

/// The schema of `remember_create_memory`: its fields and every scored dimension.
fn create_schema() -> std::sync::Arc<rmcp::model::JsonObject> {
    let mut schema = with_ignored(&with_scores(input_schema::<CreateParams>(), false));
    schema.insert("required".into(), json!(["content"]));
    std::sync::Arc::new(schema)
}

/// The schema of `remember_update_memory`: its fields and every scored dimension.
fn update_schema() -> std::sync::Arc<rmcp::model::JsonObject> {
    std::sync::Arc::new(with_ignored(&with_scores(
        input_schema::<UpdateParams>(),
        true,
    )))
}

/// `schema` with a property of any type for each of the [`IGNORED`] arguments.
fn with_ignored(schema: &rmcp::model::JsonObject) -> rmcp::model::JsonObject {
    let mut schema = schema.clone();
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for name in IGNORED {
            props.insert(
                name.into(),
                json!({
                    "description": "remember-mcp's argument, accepted and ignored by memlens \
                                    (named in the answer's `ignored`)"
                }),
            );
        }
    }
    schema
}

/// A number argument as the text `memlens set` parses, or why it is not one.
fn number_text(field: &str, value: &Value) -> Result<String, ToolError> {
    match value {
        Value::Number(n) => Ok(n.to_string()),
        Value::Null => Ok(String::new()),
        other => Err(ToolError::usage(format!(
            "{field}: expected a number, found {other}"
        ))),
    }
}

/// The changes these fields ask for, each parsed by [`FieldValue::parse`]; the names
/// of the remember-mcp arguments ignored.
pub fn field_values(f: &MemoryFields) -> Result<(Vec<FieldValue>, Vec<String>), ToolError> {
    let mut out = Vec::new();
    let text =
        |field: &'static str, value: &Option<String>| value.as_ref().map(|v| (field, v.clone()));
    let given = [
        text("body", &f.content),
        text("title", &f.title),
        text("type", &f.memory_type),
        text("scope", &f.scope),
        text("module", &f.module),
        f.weight.map(|w| ("weight", w.to_string())),
        f.trust.map(|t| ("trust", t.to_string())),
    ];
    for (field, value) in given.into_iter().flatten() {
        out.push(FieldValue::parse(field, &value)?);
    }
    if let Some(tags) = &f.tags {
        out.push(FieldValue::Tags(tags.clone()));
    }
    let mut ignored = Vec::new();
    // the scored dimensions set so far, by the argument that named them: a dimension
    // and its alias both given (`feel_salience`, `functional_salience`) is refused, as
    // `memlens set` refuses a field given twice, rather than one silently winning
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for (key, value) in &f.rest {
        if let Some(i) = input_dim_index(key) {
            let field = FEEL_DIMS[i].field;
            if let Some((_, first)) = scored.iter().find(|(j, _)| *j == i) {
                return Err(ToolError::usage(format!(
                    "`{first}` and `{key}` both name {field}; give it once"
                )));
            }
            scored.push((i, key));
            out.push(FieldValue::parse(field, &number_text(key, value)?)?);
        } else if Composite::from_field(key).is_some() {
            return Err(ToolError::usage(format!(
                "{key} cannot be set: it is derived from the scored dimensions"
            )));
        } else if IGNORED.contains(&key.as_str()) {
            ignored.push(key.clone());
        } else {
            return Err(ToolError::usage(format!(
                "unknown argument `{key}`; memory fields are content, title, type, tags, \
                 weight, trust, scope, module and the scored dimensions ({} …)",
                FEEL_DIMS[0].field
            )));
        }
    }
    Ok((out, ignored))
}

#[tool_router(router = memory_tools, vis = "pub(super)")]
impl MemoryServer {
    /// remember-mcp's `remember_create_memory`.
    #[tool(
        name = "remember_create_memory",
        description = "Create a memory: content (required), title, type, tags, weight, trust, scope, module, and any scored dimension as a create-time hint (feel_* and functional_* with their ranges; remember-mcp's 29-name form is accepted). Returns memory_id and created_at.",
        input_schema = create_schema()
    )]
    pub async fn remember_create_memory(
        &self,
        Parameters(p): Parameters<CreateParams>,
    ) -> CallToolResult {
        let built = new_memory(p, Timestamp::now());
        self.writing(move |store| {
            let (memory, ignored) = built?;
            let applied = crate::curate::apply(store, &Change::Create(Box::new(memory.clone())))?;
            let stored = applied
                .changed()
                .first()
                .and_then(|e| e.after.clone())
                .unwrap_or(memory);
            Ok(json!({
                "memory_id": stored.id,
                "created_at": stored.created_at.to_string(),
                "message": format!("Memory created successfully with ID: {}", stored.id),
                "ignored": ignored,
            }))
        })
        .await
    }

    /// remember-mcp's `remember_update_memory`.
    #[tool(
        name = "remember_update_memory",
        description = "Update a memory: only the fields given change (content, title, type, tags, weight, trust, scope, module, scored dimensions; null unscores a dimension). The composites are derived and refused. Returns the fields changed.",
        input_schema = update_schema()
    )]
    pub async fn remember_update_memory(
        &self,
        Parameters(p): Parameters<UpdateParams>,
    ) -> CallToolResult {
        let parsed = field_values(&p.fields);
        let id = p.memory_id;
        self.writing(move |store| {
            let (values, ignored) = parsed?;
            if values.is_empty() {
                return Err(ToolError::usage(
                    "nothing to update: give at least one field",
                ));
            }
            let applied =
                crate::curate::apply(store, &Change::edit([id.clone()], Edit::Set(values)))?;
            let (fields, updated_at) = match applied.changed().first() {
                Some(entry) => (
                    entry.changed_fields(),
                    entry.after.as_ref().map(|m| m.updated_at.to_string()),
                ),
                None => (Vec::new(), None),
            };
            let message = match (applied.is_no_op(), applied.left_deleted().is_empty()) {
                (true, _) => "nothing changed",
                (false, true) => "Memory updated",
                (false, false) => super::STILL_DELETED,
            };
            Ok(json!({
                "memory_id": id,
                "updated_at": updated_at,
                "updated_fields": fields,
                "message": message,
                "ignored": ignored,
            }))
        })
        .await
    }

    /// hivelore's `mem_get`.
    #[tool(
        name = "mem_get",
        description = "One memory by id: every stored field and the derived ones (rating_bayesian, relationship_count, composites, confidence_tier), as `memlens get --json` prints it.",
        input_schema = input_schema::<GetParams>()
    )]
    pub async fn mem_get(&self, Parameters(p): Parameters<GetParams>) -> CallToolResult {
        self.reading(move |memories| {
            let reader = memories.reader()?;
            let memory = reader
                .get(&p.id)?
                .ok_or_else(|| crate::store::StoreError::UnknownId(p.id.clone()))?;
            let memory = crate::project::private::shown_memory(&memory);
            Ok(Value::Object(crate::exchange::derived::with_derived(
                &reader,
                &memory,
                Timestamp::now(),
            )?))
        })
        .await
    }
}

/// The memory `remember_create_memory` asks for, as of `now`, and the arguments ignored.
pub fn new_memory(p: CreateParams, now: Timestamp) -> Result<(Memory, Vec<String>), ToolError> {
    if p.fields.content.is_none() {
        return Err(ToolError::usage("content is required"));
    }
    let (values, ignored) = field_values(&p.fields)?;
    let id = p.id.unwrap_or_else(|| ulid::Ulid::generate().to_string());
    let mut memory = Memory::new(id, String::new(), now);
    Edit::Set(values).apply_to(&mut memory, now)?;
    Ok((memory, ignored))
}
