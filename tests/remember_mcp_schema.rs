//! memlens against remember-mcp's own tool schemas: `tests/reference/remember_mcp_schemas.json`
//! is what remember-mcp's MCP server lists for `remember_create_memory`,
//! `remember_update_memory` and `remember_search_by`, and what remember-core (the library
//! behind it) does with their arguments (`scripts/remember_mcp_schemas.sh` regenerates it).
//! Every scored argument there must mean a memlens dimension with the same range, and
//! `memlens mcp` must take every argument those tools take, with the same meaning.

mod mcp_support;

use mcp_support::{Client, store_of};
use memlens::model::{FEEL_DIMS, input_aliases, input_dim_index};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::Path;

const TOOLS: [&str; 3] = [
    "remember_create_memory",
    "remember_update_memory",
    "remember_search_by",
];

/// The byProperty sort fields remember-mcp's description lists that memlens does not
/// sort by, and why.
const UNSUPPORTED_SORT_FIELDS: [(&str, &str); 2] = [
    (
        "strength",
        "a relationship's property in remember-core; a memlens memory has none (its links carry it)",
    ),
    (
        "version",
        "remember-core's edit counter; memlens keeps no version number (the undo log holds the history)",
    ),
];

fn reference() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/remember_mcp_schemas.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn props<'a>(reference: &'a Value, tool: &str) -> &'a Map<String, Value> {
    reference["tools"][tool]["properties"].as_object().unwrap()
}

/// The scored arguments of a tool: the `feel_*` and `functional_*` numbers.
fn scored(properties: &Map<String, Value>) -> Vec<(&String, &Value)> {
    properties
        .iter()
        .filter(|(k, _)| k.starts_with("feel_") || k.starts_with("functional_"))
        .collect()
}

#[test]
fn the_reference_is_remember_mcps_own_listing() {
    let r = reference();
    assert_eq!(r["package"], "@prmichaelsen/remember-mcp");
    assert!(r["version"].as_str().is_some_and(|v| !v.is_empty()));
    for tool in TOOLS {
        assert!(!props(&r, tool).is_empty(), "{tool}");
    }
    // the 29-name form: 21 feel_* and 8 layer-2 names with the feel_ prefix
    for tool in ["remember_create_memory", "remember_update_memory"] {
        assert_eq!(scored(props(&r, tool)).len(), 29, "{tool}");
    }
}

#[test]
fn memlens_keeps_remember_cores_scored_dimensions_in_its_order() {
    let r = reference();
    let core: Vec<&str> = r["remember_core"]["scoring_dimensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let ours: Vec<&str> = FEEL_DIMS.iter().map(|d| d.field).collect();
    assert_eq!(ours, core);
}

#[test]
fn every_scored_argument_means_a_memlens_dimension_with_the_same_range() {
    let r = reference();
    let core = &r["remember_core"];
    let mut aliases_used = BTreeSet::new();
    for (tool, stores) in [
        ("remember_create_memory", &core["create_stores"]),
        ("remember_update_memory", &core["update_stores"]),
    ] {
        for (name, schema) in scored(props(&r, tool)) {
            let i = input_dim_index(name)
                .unwrap_or_else(|| panic!("{tool}: {name} means no memlens dimension"));
            let dim = &FEEL_DIMS[i];
            assert_eq!(schema["type"], "number", "{tool} {name}");
            assert_eq!(
                (schema["minimum"].as_f64(), schema["maximum"].as_f64()),
                (Some(dim.min), Some(dim.max)),
                "{tool} {name}: remember-mcp's range against {}'s",
                dim.field
            );
            if name != dim.field {
                // the 29-name form: a layer-2 dimension under the feel_ prefix
                assert_eq!(dim.alias, Some(name.as_str()), "{name}");
                assert_eq!(
                    name.strip_prefix("feel_"),
                    dim.field.strip_prefix("functional_"),
                    "{name} is {}",
                    dim.field
                );
                aliases_used.insert(name.clone());
            }
            // Where remember-core stores the argument, it stores it as the field memlens
            // reads it as. remember-core 1.0.1 drops the 8 layer-2 names of the 29-name
            // form on create, and every scored argument on update (REM scores them
            // later); memlens keeps each as the dimension it names (SPEC 2.1 and 7).
            match &stores[name.as_str()] {
                Value::Null => {}
                Value::String(stored) => assert_eq!(stored, dim.field, "{tool} {name}"),
                other => panic!("{tool} {name}: {other}"),
            }
        }
    }
    // memlens accepts no other name for a dimension than remember-mcp's
    let ours: BTreeSet<String> = input_aliases().map(|(a, _)| a).collect();
    assert_eq!(ours, aliases_used);
}

/// A value remember-mcp's schema allows for an argument.
fn sample(name: &str, schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    let ty = match &schema["type"] {
        Value::Array(types) => types.iter().find(|t| *t != "null").cloned().unwrap(),
        other => other.clone(),
    };
    match ty.as_str().unwrap() {
        "string" if name.starts_with("date_") || name.ends_with("_date") => {
            json!("2026-03-12T21:00:00Z")
        }
        "string" => json!("sample"),
        "number" => number(
            match (schema["minimum"].as_f64(), schema["maximum"].as_f64()) {
                // a count (limit 1–100) at a whole number, a score (0–1) in its middle
                (Some(lo), Some(hi)) if hi - lo > 2.0 => ((lo + hi) / 2.0).floor(),
                (Some(lo), Some(hi)) => (lo + hi) / 2.0,
                (Some(lo), None) => lo.max(1.0),
                _ => 1.0,
            },
        ),
        "boolean" => json!(false),
        "array" => json!(["sample"]),
        "object" => match schema["properties"].as_object() {
            Some(inner) => Value::Object(
                inner
                    .iter()
                    .map(|(k, s)| (k.clone(), sample(k, s)))
                    .collect(),
            ),
            None => json!({}),
        },
        other => panic!("{name}: type {other}"),
    }
}

/// A number as a JavaScript client writes it: a whole number without a fraction.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// The JSON types a schema allows, `integer` counting as a `number`.
fn types(schema: &Value) -> BTreeSet<String> {
    let list = match &schema["type"] {
        Value::Array(t) => t.clone(),
        Value::Null => vec![],
        one => vec![one.clone()],
    };
    list.iter()
        .map(|t| t.as_str().unwrap().replace("integer", "number"))
        .collect()
}

/// remember-mcp's schema of one property against memlens's: present, of a type memlens
/// takes, with the same bounds and at least its enum values.
fn check_property(path: &str, theirs: &Value, ours: Option<&Value>) {
    let ours = ours.unwrap_or_else(|| panic!("memlens's schema has no {path}"));
    let (t, o) = (types(theirs), types(ours));
    // an untyped property (accepted and ignored) takes any value
    assert!(
        o.is_empty() || t.iter().all(|ty| ty == "null" || o.contains(ty)),
        "{path}: remember-mcp {t:?}, memlens {o:?}"
    );
    for bound in ["minimum", "maximum"] {
        if let Some(b) = theirs[bound].as_f64() {
            assert_eq!(ours[bound].as_f64(), Some(b), "{path} {bound}");
        }
    }
    if let Some(values) = theirs["enum"].as_array() {
        let ours = ours["enum"].as_array().cloned().unwrap_or_default();
        for v in values {
            assert!(ours.contains(v), "{path}: memlens's enum lacks {v}");
        }
    }
    if let Some(inner) = theirs["properties"].as_object() {
        for (k, s) in inner {
            check_property(&format!("{path}.{k}"), s, ours["properties"].get(k));
        }
    }
}

/// A store of memories at each confidentiality level, and one without a level.
fn import_levels(dir: &Path) -> std::path::PathBuf {
    let lines: String = (1..=5)
        .map(|level| {
            format!(
                "{{\"id\":\"level{level}\",\"content\":\"confidential at {level}\",\"trust_score\":{level},\"created_at\":\"2026-01-0{level}T00:00:00Z\"}}\n"
            )
        })
        .collect();
    store_of(
        dir,
        &(lines + "{\"id\":\"unlevelled\",\"body\":\"no level\"}\n"),
    )
}

fn ids(answer: &Value) -> Vec<String> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn memlens_mcp_takes_every_argument_remember_mcp_takes() {
    let r = reference();
    let dir = tempfile::tempdir().unwrap();
    let db = import_levels(dir.path());
    let client = Client::spawn(&db).await;
    let tools = client.service.list_all_tools().await.unwrap();
    for tool in TOOLS {
        let ours = tools.iter().find(|t| t.name == tool).unwrap();
        let ours = Value::Object((*ours.input_schema).clone());
        for (name, theirs) in props(&r, tool) {
            check_property(
                &format!("{tool}.{name}"),
                theirs,
                ours["properties"].get(name),
            );
        }
        // memlens requires nothing remember-mcp leaves optional
        let required = |s: &Value| -> BTreeSet<String> {
            s["required"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        assert!(
            required(&ours).is_subset(&required(&r["tools"][tool])),
            "{tool}: memlens requires {:?}",
            required(&ours)
        );
    }

    // an update's scores may be null (it unscores them), so a client that checks its
    // arguments against the schema lets that through; a create's may not
    let schema = |tool: &str| {
        let t = tools.iter().find(|t| t.name == tool).unwrap();
        Value::Object((*t.input_schema).clone())
    };
    let field = FEEL_DIMS[0].field;
    assert!(types(&schema("remember_update_memory")["properties"][field]).contains("null"));
    assert!(!types(&schema("remember_create_memory")["properties"][field]).contains("null"));

    // A call with every argument remember-mcp's schema has, each at a value it allows.
    let every = |tool: &str| -> Map<String, Value> {
        props(&r, tool)
            .iter()
            .map(|(k, s)| (k.clone(), sample(k, s)))
            .collect()
    };
    let ignored_of = |answer: &Value| -> BTreeSet<String> {
        answer["ignored"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let created = client
        .ok(
            "remember_create_memory",
            Value::Object(every("remember_create_memory")),
        )
        .await;
    let id = created["memory_id"].as_str().unwrap().to_string();
    let stored = mcp_support::cli_json(&["get", &id, "--json", "--db", db.to_str().unwrap()]);
    for (name, _) in scored(props(&r, "remember_create_memory")) {
        let field = FEEL_DIMS[input_dim_index(name).unwrap()].field;
        assert!(stored[field].is_number(), "{name} was kept as {field}");
    }
    let mut update = every("remember_update_memory");
    update.insert("memory_id".into(), json!(id));
    let updated = client
        .ok("remember_update_memory", Value::Object(update))
        .await;
    // what memlens has no use for is named, and only that
    for (tool, answer) in [
        ("remember_create_memory", &created),
        ("remember_update_memory", &updated),
    ] {
        let ignored = ignored_of(answer);
        for name in &ignored {
            assert!(props(&r, tool).contains_key(name), "{tool} ignored {name}");
        }
        for name in ["content", "title", "type", "weight", "tags"] {
            assert!(!ignored.contains(name), "{tool} ignored {name}");
        }
    }

    let search = every("remember_search_by");
    let modes = r["tools"]["remember_search_by"]["properties"]["mode"]["enum"]
        .as_array()
        .unwrap();
    for mode in modes {
        let mut args = search.clone();
        args.insert("mode".into(), mode.clone());
        // memlens refuses what a mode does not use, where remember-mcp passes over it:
        // an offset into a random draw, a sort field outside byProperty
        if mode == "byRandom" {
            args.remove("offset");
        }
        if mode == "byProperty" {
            args.insert("sort_field".into(), json!("feel_salience"));
        } else {
            args.remove("sort_field");
        }
        client.ok("remember_search_by", Value::Object(args)).await;
    }
    let listed = r["tools"]["remember_search_by"]["sort_field_values"]
        .as_array()
        .unwrap();
    assert!(listed.len() > 40, "{listed:?}");
    for field in listed {
        let field = field.as_str().unwrap();
        let args = json!({"mode": "byProperty", "sort_field": field});
        if let Some((_, why)) = UNSUPPORTED_SORT_FIELDS.iter().find(|(f, _)| *f == field) {
            let message = client.refused("remember_search_by", args).await;
            assert!(message.contains(field), "{field} ({why}): {message}");
        } else {
            client.ok("remember_search_by", args).await;
        }
    }
    client.close().await;
}

#[tokio::test]
async fn trust_filters_and_sorting_mean_the_confidentiality_level_as_in_remember_core() {
    let r = reference();
    let filters = &r["remember_core"]["filter_fields"];
    // remember-core compares these stored fields; memlens's name for each
    let ours = [
        ("content_type", "type"),
        ("tags", "tags"),
        ("weight", "weight"),
        ("trust_score", "trust_level"),
        ("created_at", "created_at"),
        ("rating_bayesian", "rating_bayesian"),
        ("relationship_count", "relationship_count"),
    ];
    for (filter, fields) in filters.as_object().unwrap() {
        for field in fields.as_array().unwrap() {
            assert!(
                ours.iter().any(|(theirs, _)| field == theirs),
                "filters.{filter} compares {field}, which this test does not map"
            );
        }
    }
    assert_eq!(filters["trust_min"], json!(["trust_score"]));
    assert_eq!(filters["trust_max"], json!(["trust_score"]));

    let dir = tempfile::tempdir().unwrap();
    let db = import_levels(dir.path());
    let client = Client::spawn(&db).await;
    let by_time =
        |filters: Value| json!({"mode": "byTime", "sort_order": "asc", "filters": filters});
    let low = client
        .ok("remember_search_by", by_time(json!({"trust_max": 2})))
        .await;
    assert_eq!(ids(&low), ["level1", "level2"]);
    let high = client
        .ok("remember_search_by", by_time(json!({"trust_min": 4})))
        .await;
    assert_eq!(ids(&high), ["level4", "level5"]);
    let sorted = client
        .ok(
            "remember_search_by",
            json!({"mode": "byProperty", "sort_field": "trust_score", "sort_order": "desc"}),
        )
        .await;
    assert_eq!(
        ids(&sorted)[..5],
        ["level5", "level4", "level3", "level2", "level1"]
    );
    client.close().await;
}
