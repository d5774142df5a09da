//! Canonical JSON form of a memory: stable key order out; every known alias and every
//! unknown field (kept in `extra`) in.

use super::curated::Curated;
use super::feel::{FEEL_COUNT, FEEL_DIMS, input_dim_index};
use super::keys::is_model_key;
use super::memory::{DEFAULT_RELATIONSHIP_KIND, Memory, Rating, Relationship, Source};
use super::timestamp::Timestamp;
use super::trust::TrustLevel;
use super::validate::FieldError;
use serde_json::{Map, Value};

/// Fields that are derived and never read from input (ignored with a warning).
pub const DERIVED_FIELDS: [&str; 6] = [
    "rating_bayesian",
    "rating_avg",
    "relationship_count",
    "feel_significance",
    "functional_significance",
    "total_significance",
];

impl Memory {
    /// The stored fields as a JSON object in canonical key order; absent optional
    /// fields are left out; `extra` fields follow, sorted by key, those whose names
    /// mean something in this form ([`is_model_key`]) inside a nested `"extra"` object
    /// last, so they can never stand in for a real field.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("id".into(), self.id.clone().into());
        if let Some(t) = &self.title {
            m.insert("title".into(), t.clone().into());
        }
        m.insert("body".into(), self.body.clone().into());
        m.insert("type".into(), self.memory_type.clone().into());
        m.insert("scope".into(), self.scope.as_str().into());
        if let Some(module) = &self.module {
            m.insert("module".into(), module.clone().into());
        }
        m.insert("status".into(), self.status.as_str().into());
        m.insert("tags".into(), self.tags.clone().into());
        m.insert("weight".into(), self.weight.into());
        m.insert("trust".into(), self.trust.into());
        if let Some(c) = self.confidence {
            m.insert("confidence".into(), c.into());
        }
        if let Some(level) = self.trust_level {
            m.insert("trust_score".into(), level.number().into());
        }
        m.insert("created_at".into(), self.created_at.to_string().into());
        m.insert("updated_at".into(), self.updated_at.to_string().into());
        if let Some(t) = self.deleted_at {
            m.insert("deleted_at".into(), t.to_string().into());
        }
        if let Some(r) = &self.deleted_reason {
            m.insert("deleted_reason".into(), r.clone().into());
        }
        if let Some(t) = self.last_read_at {
            m.insert("last_read_at".into(), t.to_string().into());
        }
        m.insert("read_count".into(), self.read_count.into());
        m.insert("rating_sum".into(), self.rating_sum.into());
        m.insert("rating_count".into(), self.rating_count.into());
        if !self.ratings.is_empty() {
            let ratings: Vec<Value> = self
                .ratings
                .iter()
                .map(|r| serde_json::json!({"rater": r.rater, "rating": r.value}))
                .collect();
            m.insert("ratings".into(), ratings.into());
        }
        let rels: Vec<Value> = self.relationships.iter().map(relationship_json).collect();
        m.insert("relationships".into(), rels.into());
        for (dim, value) in FEEL_DIMS.iter().zip(&self.feel) {
            if let Some(v) = value {
                m.insert(dim.field.into(), (*v).into());
            }
        }
        if let Some(v) = self.rem_visits {
            m.insert("rem_visits".into(), v.into());
        }
        if let Some(s) = &self.source {
            m.insert("source".into(), source_json(s));
        }
        if !self.curated.is_empty() {
            m.insert("curated".into(), curated_json(&self.curated));
        }
        let mut extra: Vec<_> = self.extra.iter().collect();
        extra.sort_by(|a, b| a.0.cmp(b.0));
        let mut nested = Map::new();
        for (k, v) in extra {
            if is_model_key(k) {
                nested.insert(k.clone(), v.clone());
            } else {
                m.insert(k.clone(), v.clone());
            }
        }
        if !nested.is_empty() {
            m.insert("extra".into(), Value::Object(nested));
        }
        m
    }

    /// One line of canonical JSONL (no trailing newline).
    pub fn to_json_line(&self) -> String {
        crate::text::json::to_compact(&self.to_json())
    }

    /// Reads a memory from a JSON object, accepting remember-core's names (`content`,
    /// `content_type`, `trust_score` as a confidentiality level) and the remember-mcp
    /// aliases of the `functional_` scores (`feel_salience`, …). Missing `id` gets a ULID,
    /// missing timestamps get `now`. Returns the memory (normalised and validated)
    /// with warnings, or every field error found.
    pub fn from_json(
        obj: &Map<String, Value>,
        now: Timestamp,
    ) -> Result<(Memory, Vec<FieldError>), Vec<FieldError>> {
        let mut r = Reader {
            errors: Vec::new(),
            warnings: Vec::new(),
        };
        let mut mem = Memory::new(String::new(), String::new(), now);
        // The name each score was read under, so that one given twice (as its field
        // and as its remember-mcp alias) with two values is an error, not a guess.
        let mut score_names: [Option<&str>; FEEL_COUNT] = [None; FEEL_COUNT];
        let mut saw_updated = false;
        let mut saw_created = false;
        for (key, value) in obj {
            match key.as_str() {
                "id" => mem.id = r.string(key, value).unwrap_or_default(),
                "title" => mem.title = r.opt_string(key, value),
                "body" => mem.body = r.string(key, value).unwrap_or_default(),
                "content" if !obj.contains_key("body") => {
                    mem.body = r.string(key, value).unwrap_or_default()
                }
                "type" => mem.memory_type = r.string(key, value).unwrap_or_default(),
                "scope" => {
                    if let Some(s) = r.string(key, value) {
                        match s.parse() {
                            Ok(v) => mem.scope = v,
                            Err(e) => r.error(key, e),
                        }
                    }
                }
                "module" => mem.module = r.opt_string(key, value),
                "status" => {
                    if let Some(s) = r.string(key, value) {
                        match s.parse() {
                            Ok(v) => mem.status = v,
                            Err(e) => r.error(key, e),
                        }
                    }
                }
                "tags" => mem.tags = r.string_list(key, value),
                "weight" => mem.weight = r.number(key, value).unwrap_or(0.5),
                "trust" => mem.trust = r.number(key, value).unwrap_or(0.5),
                "trust_score" => mem.trust_level = r.trust_level(key, value),
                "content_type" if !obj.contains_key("type") => {
                    mem.memory_type = r.string(key, value).unwrap_or_default()
                }
                "confidence" => mem.confidence = r.opt_number(key, value),
                "created_at" => {
                    saw_created = true;
                    mem.created_at = r.time(key, value).unwrap_or(now)
                }
                "updated_at" => {
                    saw_updated = true;
                    mem.updated_at = r.time(key, value).unwrap_or(now)
                }
                "deleted_at" => mem.deleted_at = r.opt_time(key, value),
                "deleted_reason" => mem.deleted_reason = r.opt_string(key, value),
                "last_read_at" => mem.last_read_at = r.opt_time(key, value),
                "read_count" => mem.read_count = r.count(key, value).unwrap_or(0),
                "rating_sum" => mem.rating_sum = r.count(key, value).unwrap_or(0),
                "rating_count" => mem.rating_count = r.count(key, value).unwrap_or(0),
                "ratings" => mem.ratings = r.ratings(key, value),
                "relationships" => mem.relationships = r.relationships(key, value),
                "rem_visits" => {
                    mem.rem_visits = if value.is_null() {
                        None
                    } else {
                        r.count(key, value)
                    }
                }
                "source" => mem.source = r.source(key, value),
                "curated" => mem.curated = r.curated(key, value),
                "extra" if value.is_object() => {
                    if let Value::Object(inner) = value {
                        for (k, v) in inner {
                            mem.extra.insert(k.clone(), v.clone());
                        }
                    }
                }
                k if DERIVED_FIELDS.contains(&k) => {
                    r.warn(key, "derived field ignored (memlens computes it)".into())
                }
                k => {
                    if let Some(i) = input_dim_index(k) {
                        let v = r.opt_number(key, value);
                        match score_names[i] {
                            Some(first) if mem.feel[i] != v => r.error(
                                key,
                                format!("given as both `{first}` and `{k}`, with different values"),
                            ),
                            _ => {
                                score_names[i] = Some(key.as_str());
                                mem.feel[i] = v;
                            }
                        }
                    } else {
                        if is_model_key(k) {
                            r.warn(key, "not a field memlens reads here; kept in extra".into());
                        }
                        mem.extra.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        if !obj.contains_key("id") {
            mem.id = ulid::Ulid::generate().to_string();
        }
        if !obj.contains_key("body") && !obj.contains_key("content") {
            r.error("body", "required field is missing".into());
        }
        if saw_created && !saw_updated {
            mem.updated_at = mem.created_at;
        }
        mem.normalise();
        r.errors.extend(mem.validate());
        if r.errors.is_empty() {
            Ok((mem, r.warnings))
        } else {
            Err(r.errors)
        }
    }
}

fn relationship_json(rel: &Relationship) -> Value {
    let mut m = Map::new();
    m.insert("target".into(), rel.target.clone().into());
    m.insert("kind".into(), rel.kind.clone().into());
    if let Some(s) = rel.strength {
        m.insert("strength".into(), s.into());
    }
    Value::Object(m)
}

fn source_json(s: &Source) -> Value {
    let mut m = Map::new();
    m.insert("system".into(), s.system.clone().into());
    if let Some(p) = &s.path {
        m.insert("path".into(), p.clone().into());
    }
    if let Some(id) = &s.id {
        m.insert("id".into(), id.clone().into());
    }
    if !s.keys.is_empty() {
        m.insert("keys".into(), s.keys.clone().into());
    }
    Value::Object(m)
}

/// The `curated` marks as JSON: only the marks set.
pub(crate) fn curated_json(c: &Curated) -> Value {
    let mut m = Map::new();
    if c.status {
        m.insert("status".into(), true.into());
    }
    if c.text {
        m.insert("text".into(), true.into());
    }
    if !c.tags_added.is_empty() {
        m.insert("tags_added".into(), c.tags_added.clone().into());
    }
    if !c.tags_removed.is_empty() {
        m.insert("tags_removed".into(), c.tags_removed.clone().into());
    }
    if !c.links_added.is_empty() {
        m.insert("links_added".into(), c.links_added.clone().into());
    }
    if !c.links_removed.is_empty() {
        m.insert("links_removed".into(), c.links_removed.clone().into());
    }
    if c.ratings_merged != (0, 0) {
        let (sum, count) = c.ratings_merged;
        m.insert(
            "ratings_merged".into(),
            serde_json::json!({"sum": sum, "count": count}),
        );
    }
    Value::Object(m)
}

/// Collects typed values and the errors met while reading them.
struct Reader {
    errors: Vec<FieldError>,
    warnings: Vec<FieldError>,
}

/// What kind of JSON value `v` is, in words ("a string", "null"), for errors that say
/// what was found.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Reader {
    fn error(&mut self, field: &str, reason: String) {
        self.errors.push(FieldError::new(field, reason));
    }
    fn warn(&mut self, field: &str, reason: String) {
        self.warnings.push(FieldError::new(field, reason));
    }
    fn wrong(&mut self, field: &str, want: &str, v: &Value) {
        self.error(field, format!("expected {want}, found {}", kind_of(v)));
    }
    fn string(&mut self, field: &str, v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            _ => {
                self.wrong(field, "a string", v);
                None
            }
        }
    }
    fn opt_string(&mut self, field: &str, v: &Value) -> Option<String> {
        if v.is_null() {
            None
        } else {
            self.string(field, v)
        }
    }
    fn number(&mut self, field: &str, v: &Value) -> Option<f64> {
        match v.as_f64() {
            Some(n) => Some(n),
            None => {
                self.wrong(field, "a number", v);
                None
            }
        }
    }
    fn opt_number(&mut self, field: &str, v: &Value) -> Option<f64> {
        if v.is_null() {
            None
        } else {
            self.number(field, v)
        }
    }
    fn count(&mut self, field: &str, v: &Value) -> Option<u32> {
        match v.as_u64() {
            Some(n) => match u32::try_from(n) {
                Ok(n) => Some(n),
                Err(_) => {
                    self.error(field, format!("{n} is too large"));
                    None
                }
            },
            None => {
                self.wrong(field, "a non-negative integer", v);
                None
            }
        }
    }
    fn time(&mut self, field: &str, v: &Value) -> Option<Timestamp> {
        let s = self.string(field, v)?;
        let t = Timestamp::parse(&s);
        if t.is_none() {
            self.error(field, format!("`{s}` is not an RFC 3339 timestamp"));
        }
        t
    }
    fn opt_time(&mut self, field: &str, v: &Value) -> Option<Timestamp> {
        if v.is_null() {
            None
        } else {
            self.time(field, v)
        }
    }
    fn string_list(&mut self, field: &str, v: &Value) -> Vec<String> {
        match v {
            Value::Null => Vec::new(),
            Value::Array(items) => items
                .iter()
                .filter_map(|item| self.string(field, item))
                .collect(),
            _ => {
                self.wrong(field, "an array of strings", v);
                Vec::new()
            }
        }
    }
    /// remember-core's `trust_score`: a level 1–5, or a legacy 0–1 float read as
    /// remember-core reads it (with a warning saying so).
    fn trust_level(&mut self, field: &str, v: &Value) -> Option<TrustLevel> {
        let n = self.opt_number(field, v)?;
        match TrustLevel::from_score(n) {
            Some(level) => {
                if n.fract() != 0.0 || n == 0.0 {
                    self.warn(
                        field,
                        format!(
                            "legacy trust score {n} read as level {} ({}), as remember-core reads it",
                            level.number(),
                            level
                        ),
                    );
                }
                Some(level)
            }
            None => {
                self.error(
                    field,
                    format!("{n} is neither a trust level 1–5 nor a legacy trust score 0–1"),
                );
                None
            }
        }
    }
    fn ratings(&mut self, field: &str, v: &Value) -> Vec<Rating> {
        let items = match v {
            Value::Null => return Vec::new(),
            Value::Array(items) => items,
            _ => {
                self.wrong(field, "an array", v);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in items {
            let rater = item.get("rater").and_then(Value::as_str);
            let value = item
                .get("rating")
                .and_then(Value::as_u64)
                .and_then(|n| u8::try_from(n).ok());
            match (rater, value) {
                (Some(rater), Some(value)) => out.push(Rating {
                    rater: rater.to_string(),
                    value,
                }),
                _ => self.wrong(field, "objects {rater, rating}", item),
            }
        }
        out
    }
    fn relationships(&mut self, field: &str, v: &Value) -> Vec<Relationship> {
        let items = match v {
            Value::Null => return Vec::new(),
            Value::Array(items) => items,
            _ => {
                self.wrong(field, "an array", v);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in items {
            let Value::Object(o) = item else {
                self.wrong(field, "an object {target, kind, strength}", item);
                continue;
            };
            let Some(target) = o
                .get("target")
                .and_then(|t| self.string("relationships.target", t))
            else {
                if !o.contains_key("target") {
                    self.error(field, "a relationship has no `target`".into());
                }
                continue;
            };
            let kind = match o.get("kind") {
                None | Some(Value::Null) => DEFAULT_RELATIONSHIP_KIND.to_string(),
                Some(k) => self.string("relationships.kind", k).unwrap_or_default(),
            };
            let strength = o
                .get("strength")
                .and_then(|s| self.opt_number("relationships.strength", s));
            out.push(Relationship {
                target,
                kind,
                strength,
            });
        }
        out
    }
    fn curated(&mut self, field: &str, v: &Value) -> Curated {
        match v {
            Value::Null => Curated::default(),
            Value::Object(o) => {
                let mut flag = |name: &str| match o.get(name) {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        self.wrong(&format!("curated.{name}"), "true or false", other);
                        false
                    }
                };
                let (status, text) = (flag("status"), flag("text"));
                let mut list = |name: &str| {
                    o.get(name)
                        .map(|k| self.string_list(&format!("curated.{name}"), k))
                        .unwrap_or_default()
                };
                let (tags_added, tags_removed) = (list("tags_added"), list("tags_removed"));
                let (links_added, links_removed) = (list("links_added"), list("links_removed"));
                let ratings_merged = match o.get("ratings_merged") {
                    None | Some(Value::Null) => (0, 0),
                    Some(Value::Object(r)) => {
                        let mut part = |name: &str| match r.get(name) {
                            None => 0,
                            Some(v) => {
                                let field = format!("curated.ratings_merged.{name}");
                                self.count(&field, v).unwrap_or(0)
                            }
                        };
                        (part("sum"), part("count"))
                    }
                    Some(other) => {
                        self.wrong("curated.ratings_merged", "an object {sum, count}", other);
                        (0, 0)
                    }
                };
                Curated {
                    status,
                    text,
                    tags_added,
                    tags_removed,
                    links_added,
                    links_removed,
                    ratings_merged,
                }
            }
            _ => {
                self.wrong(
                    field,
                    "an object {status, text, tags_added, tags_removed, links_added, links_removed, ratings_merged}",
                    v,
                );
                Curated::default()
            }
        }
    }
    fn source(&mut self, field: &str, v: &Value) -> Option<Source> {
        match v {
            Value::Null => None,
            Value::Object(o) => {
                let system = match o.get("system") {
                    Some(s) => self.string("source.system", s).unwrap_or_default(),
                    None => {
                        self.error("source.system", "required field is missing".into());
                        String::new()
                    }
                };
                let path = o
                    .get("path")
                    .and_then(|p| self.opt_string("source.path", p));
                let id = o.get("id").and_then(|p| self.opt_string("source.id", p));
                let keys = o
                    .get("keys")
                    .map(|k| self.string_list("source.keys", k))
                    .unwrap_or_default();
                Some(Source {
                    system,
                    path,
                    id,
                    keys,
                })
            }
            _ => {
                self.wrong(field, "an object {system, path, id}", v);
                None
            }
        }
    }
}
