//! `memlens mcp` through a real MCP client (rmcp's): the tools and their schemas, every
//! tool with valid and with bad arguments, and the tools giving the command line's
//! answers for the same requests.

mod mcp_support;

use mcp_support::{Client, cli_json, memlens, store};
use memlens::model::{Composite, FEEL_DIMS};
use serde_json::{Value, json};

const TOOLS: [&str; 12] = [
    "mem_approve",
    "mem_get",
    "mem_link",
    "mem_reject",
    "mem_search",
    "mem_unlink",
    "memlens_review",
    "remember_create_memory",
    "remember_delete",
    "remember_rate",
    "remember_search_by",
    "remember_update_memory",
];

fn get(db: &str, id: &str) -> Value {
    cli_json(&["get", id, "--json", "--db", db])
}

#[tokio::test]
async fn the_tools_are_listed_with_schemas_that_follow_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 10);
    let client = Client::spawn(&db).await;
    let tools = client.service.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(names, TOOLS);
    let schema = |name: &str| -> Value {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        assert!(t.description.as_deref().is_some_and(|d| !d.is_empty()));
        Value::Object((*t.input_schema).clone())
    };
    for name in TOOLS {
        assert_eq!(schema(name)["type"], "object", "{name}");
    }
    let search = schema("mem_search");
    assert!(
        search["required"]
            .as_array()
            .unwrap()
            .contains(&json!("query"))
    );
    for key in [
        "query",
        "scope",
        "type",
        "module",
        "status",
        "exclude_rejected",
        "include_session_recap",
        "limit",
        "lexical_rank",
        "semantic",
        "min_score",
        "track",
    ] {
        assert!(search["properties"].get(key).is_some(), "mem_search {key}");
    }
    let by = schema("remember_search_by");
    let modes = by["properties"]["mode"]["enum"].as_array().unwrap();
    assert_eq!(modes.len(), 8);
    for key in [
        "query",
        "sort_order",
        "sort_field",
        "limit",
        "offset",
        "filters",
        "deleted_filter",
    ] {
        assert!(
            by["properties"].get(key).is_some(),
            "remember_search_by {key}"
        );
    }
    for name in ["remember_create_memory", "remember_update_memory"] {
        let props = &schema(name)["properties"];
        for d in &FEEL_DIMS {
            let p = &props[d.field];
            assert_eq!(p["minimum"].as_f64(), Some(d.min), "{name} {}", d.field);
            assert_eq!(p["maximum"].as_f64(), Some(d.max), "{name} {}", d.field);
        }
        for c in Composite::ALL {
            assert!(
                props.get(c.field()).is_none(),
                "{name} offers {}",
                c.field()
            );
        }
    }
    assert_eq!(
        schema("remember_create_memory")["required"],
        json!(["content"])
    );
    client.close().await;
}

#[tokio::test]
async fn every_tool_works_and_its_change_is_what_the_command_line_sees() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 30);
    let dbs = db.to_str().unwrap();
    let client = Client::spawn(&db).await;

    let created = client
        .ok(
            "remember_create_memory",
            json!({"content": "an agent wrote this", "title": "Agent note", "type": "decision",
                   "tags": ["agent", "mcp"], "weight": 0.8, "trust": 0.3,
                   FEEL_DIMS[3].field: 0.4, "template_id": "t1"}),
        )
        .await;
    let id = created["memory_id"].as_str().unwrap().to_string();
    assert_eq!(created["ignored"], json!(["template_id"]));
    let stored = get(dbs, &id);
    assert_eq!(stored["body"], "an agent wrote this");
    assert_eq!(stored["title"], "Agent note");
    assert_eq!(stored["type"], "decision");
    assert_eq!(stored["tags"], json!(["agent", "mcp"]));
    assert_eq!(stored["weight"], 0.8);
    assert_eq!(stored[FEEL_DIMS[3].field], 0.4);

    let updated = client
        .ok(
            "remember_update_memory",
            json!({"memory_id": id, "content": "changed", FEEL_DIMS[3].field: null}),
        )
        .await;
    let fields = updated["updated_fields"].as_array().unwrap();
    assert!(fields.contains(&json!("body")), "{updated}");
    let stored = get(dbs, &id);
    assert_eq!(stored["body"], "changed");
    assert!(stored.get(FEEL_DIMS[3].field).is_none(), "{stored}");

    let got = client.ok("mem_get", json!({"id": id})).await;
    assert_eq!(got, get(dbs, &id), "mem_get is `memlens get --json`");

    // an agent's approval is recorded as the agent's, as hivelore's mem_approve does
    client.ok("mem_approve", json!({"id": id})).await;
    let stored = get(dbs, &id);
    assert_eq!(
        (stored["status"].clone(), stored["validated_by"].clone()),
        (json!("validated"), json!("agent"))
    );
    client
        .ok("mem_reject", json!({"id": id, "reason": "duplicate"}))
        .await;
    let stored = get(dbs, &id);
    assert_eq!(
        (stored["status"].clone(), stored["stale_reason"].clone()),
        (json!("rejected"), json!("duplicate"))
    );
    // hivelore's reason is optional: without one, the recorded reason stays
    client.ok("mem_reject", json!({"id": id})).await;
    assert_eq!(get(dbs, &id)["stale_reason"], "duplicate");
    client.ok("mem_approve", json!({"id": id})).await;
    client.ok("mem_reject", json!({"id": id})).await;
    client
        .ok("mem_reject", json!({"id": id, "reason": " "}))
        .await;
    let stored = get(dbs, &id);
    assert_eq!(
        (stored["status"].clone(), stored["stale_reason"].clone()),
        (json!("rejected"), Value::Null),
        "an approval cleared the reason and none was given since: {stored}"
    );
    // the agent rates as itself: its second rating replaces its first, and a
    // person's rating is kept apart
    client
        .ok("remember_rate", json!({"memory_id": id, "rating": 5}))
        .await;
    client
        .ok("remember_rate", json!({"memory_id": id, "rating": 2}))
        .await;
    let stored = get(dbs, &id);
    assert_eq!(stored["rating_count"], 1, "{stored}");
    let rater = stored["ratings"][0]["rater"].as_str().unwrap_or_default();
    assert!(rater.starts_with("agent"), "{stored}");
    client
        .ok(
            "mem_link",
            json!({"a": id, "b": "m001", "kind": "supports"}),
        )
        .await;
    assert_eq!(get(dbs, "m001")["relationship_count"], 1);
    client.ok("mem_unlink", json!({"a": "m001", "b": id})).await;
    assert_eq!(get(dbs, "m001")["relationship_count"], 0);
    client
        .ok(
            "remember_delete",
            json!({"memory_id": id, "reason": "done"}),
        )
        .await;
    let stored = get(dbs, &id);
    assert!(stored["deleted_at"].is_string());
    assert_eq!(stored["deleted_reason"], "done");
    // a write to a soft-deleted memory is kept, and the answer says it stays deleted
    let updated = client
        .ok(
            "remember_update_memory",
            json!({"memory_id": id, "title": "after the delete"}),
        )
        .await;
    assert!(
        updated["message"]
            .as_str()
            .unwrap_or_default()
            .contains("soft-deleted"),
        "{updated}"
    );
    let rated = client
        .ok("remember_rate", json!({"memory_id": id, "rating": 4}))
        .await;
    assert_eq!(rated["still_deleted"], json!([id]), "{rated}");

    let found = client
        .ok("mem_search", json!({"query": "alpha", "track": true}))
        .await;
    let first = found["matches"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(get(dbs, &first)["read_count"], 1, "track counts a read");
    client.close().await;
}

#[tokio::test]
async fn bad_arguments_answer_an_error_with_a_message_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 12);
    let dbs = db.to_str().unwrap().to_string();
    let before = memlens(&["export", "--include-deleted", "--db", &dbs]).stdout;
    let client = Client::spawn(&db).await;
    let composite = Composite::ALL[2].field();
    let feel = FEEL_DIMS[3].field;
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "remember_search_by",
            json!({"mode": "byNothing"}),
            "unknown mode",
        ),
        ("remember_search_by", json!({}), "mode"),
        (
            "remember_search_by",
            json!({"mode": "byProperty"}),
            "sort_field",
        ),
        (
            "remember_search_by",
            json!({"mode": "byProperty", "sort_field": "shoe_size"}),
            "shoe_size",
        ),
        (
            "remember_search_by",
            json!({"mode": "byTime", "limit": 101}),
            "limit",
        ),
        (
            "remember_search_by",
            json!({"mode": "byTime", "limit": "ten"}),
            "limit",
        ),
        (
            "remember_search_by",
            json!({"mode": "byTime", "sort_order": "up"}),
            "sort_order",
        ),
        (
            "remember_search_by",
            json!({"mode": "byTime", "deleted_filter": "maybe"}),
            "deleted",
        ),
        (
            "remember_search_by",
            json!({"mode": "byTime", "filters": {"date_from": "last week"}}),
            "last week",
        ),
        (
            "remember_search_by",
            json!({"mode": "byTime", "filters": {"types": "note"}}),
            "types",
        ),
        // a misspelt argument is named, not silently dropped
        (
            "remember_search_by",
            json!({"mode": "byTime", "filters": {"weight_mim": 0.5}}),
            "unknown field `weight_mim`",
        ),
        (
            "remember_search_by",
            json!({"mode": "byTime", "limt": 5}),
            "unknown field `limt`",
        ),
        (
            "mem_approve",
            json!({"id": "x", "extra": 1}),
            "unknown field `extra`",
        ),
        ("mem_search", json!({}), "query"),
        (
            "mem_search",
            json!({"query": "x", "semantic": true}),
            "semantic search is not available",
        ),
        (
            "mem_search",
            json!({"query": "x", "scope": "galaxy"}),
            "galaxy",
        ),
        ("mem_search", json!({"query": 7}), "query"),
        (
            "remember_create_memory",
            json!({"content": "x", feel: 1.5}),
            feel,
        ),
        (
            "remember_create_memory",
            json!({"content": "x", feel: "high"}),
            feel,
        ),
        (
            "remember_create_memory",
            json!({"content": "x", composite: 0.5}),
            composite,
        ),
        (
            "remember_create_memory",
            json!({"content": "x", "colour": "red"}),
            "colour",
        ),
        (
            "remember_create_memory",
            json!({"title": "no content"}),
            "content",
        ),
        (
            "remember_create_memory",
            json!({"content": "x", "weight": 2}),
            "weight",
        ),
        (
            "remember_create_memory",
            json!({"id": "m001", "content": "x"}),
            "m001",
        ),
        (
            "remember_update_memory",
            json!({"memory_id": "nope", "content": "x"}),
            "nope",
        ),
        (
            "remember_update_memory",
            json!({"memory_id": "m001", composite: 1}),
            composite,
        ),
        (
            "remember_update_memory",
            json!({"memory_id": "m001", "feel_salience": 0.2, "functional_salience": 0.9}),
            "both name functional_salience",
        ),
        (
            "remember_create_memory",
            json!({"content": "x", "functional_salience": 0.2, "feel_salience": 0.2}),
            "both name functional_salience",
        ),
        (
            "remember_update_memory",
            json!({"memory_id": "m001"}),
            "nothing to update",
        ),
        ("mem_get", json!({"id": "nope"}), "nope"),
        ("mem_get", json!({"id": 3}), "id"),
        ("mem_approve", json!({"id": "nope"}), "nope"),
        ("mem_reject", json!({"id": "nope"}), "nope"),
        // arguments read through a flattened struct are named too
        (
            "remember_create_memory",
            json!({"content": "x", "weight": "high"}),
            "weight: invalid type: string \"high\", expected a number",
        ),
        (
            "remember_create_memory",
            json!({"content": "x", "tags": "notalist"}),
            "tags: invalid type",
        ),
        (
            "remember_update_memory",
            json!({"memory_id": "m001", "title": 3}),
            "title: invalid type",
        ),
        (
            "remember_rate",
            json!({"memory_id": "m001", "rating": 6}),
            "1–5",
        ),
        (
            "remember_rate",
            json!({"memory_id": "m001", "rating": 2.5}),
            "rating",
        ),
        ("remember_delete", json!({"memory_id": "nope"}), "nope"),
        ("mem_link", json!({"a": "m001", "b": "m001"}), "itself"),
        ("mem_link", json!({"a": "m001", "b": "nope"}), "nope"),
        (
            "mem_unlink",
            json!({"a": "m001", "b": "m004"}),
            "not linked",
        ),
        ("memlens_review", json!({"queue": "inbox"}), "not a queue"),
        ("memlens_review", json!({}), "queue"),
        (
            "memlens_review",
            json!({"queue": "pending", "limit": 0}),
            "limit",
        ),
        (
            "memlens_review",
            json!({"queue": "pending", "filters": {"date_from": "yesterday"}}),
            "yesterday",
        ),
    ];
    for (tool, args, expected) in cases {
        let message = client.refused(tool, args.clone()).await;
        assert!(message.contains(expected), "{tool} {args}: {message}");
        // the server still answers
        client.ok("mem_get", json!({"id": "m001"})).await;
    }
    client.close().await;
    let after = memlens(&["export", "--include-deleted", "--db", &dbs]).stdout;
    assert_eq!(before, after, "a refused call writes nothing");
}

/// `remember_search_by` answers what `memlens search --json` prints for the same
/// request; `mem_search` finds what `memlens search` finds.
#[tokio::test]
async fn the_tools_give_the_command_lines_answers() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 60);
    let dbs = db.to_str().unwrap();
    let client = Client::spawn(&db).await;
    let feel = FEEL_DIMS[3].field;
    let cases: Vec<(Value, Vec<String>)> = vec![
        (
            json!({"mode": "byTime"}),
            vec!["--mode=time".into(), "--limit=10".into()],
        ),
        (
            json!({"mode": "byTime", "sort_order": "asc", "offset": 5, "limit": 7,
                   "filters": {"types": ["note", "decision"], "weight_min": 0.2}}),
            vec![
                "--mode=time".into(),
                "--order=asc".into(),
                "--offset=5".into(),
                "--limit=7".into(),
                "--filter=type=note,decision".into(),
                "--filter=weight=0.2..".into(),
            ],
        ),
        (
            json!({"mode": "byDensity", "filters": {"has_relationships": true}}),
            vec![
                "--mode=density".into(),
                "--limit=10".into(),
                "--filter=has_relationships=true".into(),
            ],
        ),
        (
            json!({"mode": "byRating", "limit": 20}),
            vec!["--mode=rating".into(), "--limit=20".into()],
        ),
        (
            json!({"mode": "byDiscovery", "limit": 15}),
            vec!["--mode=discovery".into(), "--limit=15".into()],
        ),
        (
            json!({"mode": "byProperty", "sort_field": feel, "sort_order": "asc"}),
            vec![
                "--mode=property".into(),
                format!("--sort-field={feel}"),
                "--order=asc".into(),
                "--limit=10".into(),
            ],
        ),
        (
            json!({"mode": "bySignificance"}),
            vec!["--mode=significance".into(), "--limit=10".into()],
        ),
        (
            json!({"mode": "byBroad", "query": "bravo", "deleted_filter": "include"}),
            vec![
                "--mode=broad".into(),
                "--limit=50".into(),
                "--filter=deleted=include".into(),
                "bravo".into(),
            ],
        ),
        (
            json!({"mode": "byRandom", "seed": 7, "limit": 5, "filters": {"tags": ["t1", "t2"]}}),
            vec![
                "--mode=random".into(),
                "--seed=7".into(),
                "--limit=5".into(),
                "--filter=tag=t1,t2".into(),
            ],
        ),
        (
            json!({"mode": "byTime", "filters": {"date_from": "2026-02-01", "date_to": "2026-03-31",
                                                 "rating_min": 3.0, "relationship_count_max": 0}}),
            vec![
                "--mode=time".into(),
                "--limit=10".into(),
                "--filter=created_at=2026-02-01..2026-03-31".into(),
                "--filter=rating_min=3".into(),
                "--filter=relationship_count=..0".into(),
            ],
        ),
    ];
    for (args, flags) in cases {
        let tool = client.ok("remember_search_by", args.clone()).await;
        let mut cli = vec!["search", "--json", "--db", dbs];
        cli.extend(flags.iter().map(String::as_str));
        let expected = cli_json(&cli);
        assert!(
            !expected["results"].as_array().unwrap().is_empty(),
            "{args}: an empty answer proves little"
        );
        assert_eq!(tool, expected, "{args} vs {flags:?}");
    }

    for (args, flags) in [
        (
            json!({"query": "alpha echo", "track": false}),
            vec!["alpha", "echo"],
        ),
        (
            json!({"query": "charlie", "lexical_rank": true, "type": "note", "track": false}),
            vec!["--engine=bm25", "--filter=type=note", "charlie"],
        ),
        (
            json!({"query": "delta", "include_session_recap": true, "exclude_rejected": true, "track": false}),
            vec![
                "--filter=include_session_recap=true",
                "--filter=exclude_rejected=true",
                "delta",
            ],
        ),
    ] {
        let tool = client.ok("mem_search", args.clone()).await;
        let mut cli = vec!["search", "--json", "--limit=10", "--db", dbs];
        cli.extend(flags);
        let expected = cli_json(&cli);
        let ids = |v: &Value, list: &str| -> Vec<Value> {
            v[list]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].clone())
                .collect()
        };
        assert!(!ids(&expected, "results").is_empty(), "{args}");
        assert_eq!(ids(&tool, "matches"), ids(&expected, "results"), "{args}");
        assert_eq!(tool["total"], expected["total"], "{args}");
        assert_eq!(
            tool["notice"],
            expected.get("notice").cloned().unwrap_or(Value::Null)
        );
    }
    client.close().await;
}

#[tokio::test]
async fn a_random_draw_is_uniform_over_the_whole_filtered_set_and_repeats_with_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 40);
    let client = Client::spawn(&db).await;
    let filtered = json!({"types": ["note", "decision"]});
    let kept = cli_json(&[
        "search",
        "--json",
        "--mode=time",
        "--limit=1000",
        "--filter=type=note,decision",
        "--db",
        db.to_str().unwrap(),
    ]);
    let pool: Vec<Value> = kept["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    let mut seen = std::collections::HashSet::new();
    for seed in 0..40u64 {
        let a = client
            .ok(
                "remember_search_by",
                json!({"mode": "byRandom", "seed": seed, "limit": 3, "filters": filtered}),
            )
            .await;
        assert_eq!(
            a["total"].as_u64(),
            Some(pool.len() as u64),
            "the pool's size"
        );
        let ids: Vec<Value> = a["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect();
        assert_eq!(ids.len(), 3);
        for id in &ids {
            assert!(pool.contains(id), "{id} passes the filters");
            seen.insert(id.clone());
        }
        let again = client
            .ok(
                "remember_search_by",
                json!({"mode": "byRandom", "seed": seed, "limit": 3, "filters": filtered}),
            )
            .await;
        assert_eq!(a, again, "seed {seed} repeats");
    }
    // 40 draws of 3 among the 14 kept: missing one by chance is below 1e-3 (and the
    // seeds are fixed, so the outcome is too).
    assert_eq!(seen.len(), pool.len(), "every kept memory can be drawn");
    client.close().await;
}

#[tokio::test]
async fn private_blocks_never_reach_an_agent_and_are_not_matched() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 10);
    let dbs = db.to_str().unwrap();
    let client = Client::spawn(&db).await;
    let body = format!(
        "Deploy key rotation runbook. <private>the root password is swordfish42</private> {}",
        "Rotate every quarter and after staff leave. ".repeat(12)
    );
    client
        .ok(
            "remember_create_memory",
            json!({"id": "runbook", "content": body, "title": "Rotation runbook"}),
        )
        .await;
    let answers = [
        client
            .ok("mem_search", json!({"query": "runbook", "track": false}))
            .await,
        client
            .ok(
                "mem_search",
                json!({"query": "rotation", "lexical_rank": true, "track": false}),
            )
            .await,
        client.ok("mem_get", json!({"id": "runbook"})).await,
        client
            .ok(
                "remember_search_by",
                json!({"mode": "byTime", "query": "runbook"}),
            )
            .await,
        client
            .ok(
                "remember_search_by",
                json!({"mode": "byBroad", "limit": 100}),
            )
            .await,
        client
            .ok(
                "remember_search_by",
                json!({"mode": "byRandom", "limit": 100, "seed": 1}),
            )
            .await,
    ];
    for answer in &answers {
        let text = answer.to_string();
        assert!(text.contains("runbook"), "the memory is there: {text}");
        assert!(
            !text.contains("swordfish"),
            "private text reached an agent: {text}"
        );
        assert!(
            text.contains("[private: ") || !text.contains("Deploy key"),
            "the placeholder marks the block: {text}"
        );
    }
    // the private words are not matched
    let none = client
        .ok(
            "mem_search",
            json!({"query": "swordfish42", "track": false}),
        )
        .await;
    assert_eq!(none["total"], 0, "{none}");
    // and the CLI's broad scan masks it too
    let broad = cli_json(&[
        "search",
        "--json",
        "--mode=broad",
        "--limit=100",
        "--db",
        dbs,
    ]);
    assert!(!broad.to_string().contains("swordfish"), "{broad}");
    // while the store keeps the block byte for byte
    let export = memlens(&["export", "--db", dbs]);
    assert!(String::from_utf8_lossy(&export.stdout).contains("swordfish42"));
    client.close().await;
}

/// `memlens_review` lists what `memlens review --json` lists for the same queue, page
/// and search; a narrowed queue is the whole queue's entries whose memory (of a pair:
/// either one) the search finds.
#[tokio::test]
async fn the_review_tool_lists_the_queues_the_command_line_lists() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 60);
    let dbs = db.to_str().unwrap();
    let client = Client::spawn(&db).await;
    // the tool's arguments, the command line's, and the search that narrows (if any)
    type Case<'a> = (Value, Vec<&'a str>, Option<Vec<&'a str>>);
    let cases: Vec<Case> = vec![
        (
            json!({"queue": "duplicates"}),
            vec!["duplicates", "--limit=10"],
            None,
        ),
        (
            json!({"queue": "stale", "offset": 3, "limit": 5}),
            vec!["stale", "--offset=3", "--limit=5"],
            None,
        ),
        (
            json!({"queue": "duplicates", "query": "bravo", "filters": {"types": ["note", "todo"]}}),
            vec![
                "duplicates",
                "--limit=10",
                "--filter=type=note,todo",
                "bravo",
            ],
            Some(vec!["--filter=type=note,todo", "bravo"]),
        ),
        (
            json!({"queue": "stale", "query": "charlie", "lexical_rank": true, "limit": 100}),
            vec!["stale", "--limit=100", "--engine=bm25", "charlie"],
            // a queue holds session recaps; so does the search that narrows it
            Some(vec![
                "--engine=bm25",
                "--filter=include_session_recap=true",
                "charlie",
            ]),
        ),
    ];
    for (args, flags, search) in cases {
        let tool = client.ok("memlens_review", args.clone()).await;
        let mut cli = vec!["review", "--json", "--db", dbs];
        cli.extend(flags.iter().copied());
        let expected = cli_json(&cli);
        let entries = expected["entries"].as_array().unwrap();
        assert!(!entries.is_empty(), "{args}: an empty queue proves little");
        assert_eq!(tool["entries"], expected["entries"], "{args}");
        assert_eq!(tool["total"], expected["total"], "{args}");
        let queue = args["queue"].as_str().unwrap();
        assert_eq!(tool["counts"][queue], tool["total"], "{args}");
        let Some(search) = search else { continue };
        // the oracle: the whole queue, kept where the search finds either memory
        let whole = cli_json(&["review", queue, "--json", "--db", dbs]);
        let mut find = vec!["search", "--json", "--limit=100000", "--db", dbs];
        find.extend(search);
        let found: std::collections::HashSet<Value> = cli_json(&find)["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect();
        let kept: Vec<&Value> = whole["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| found.contains(&e["id"]) || found.contains(&e["other"]["id"]))
            .collect();
        assert!(
            kept.len() < whole["entries"].as_array().unwrap().len(),
            "{args}: the search narrows"
        );
        assert_eq!(tool["total"], kept.len(), "{args}");
        let shown: Vec<&Value> = tool["entries"].as_array().unwrap().iter().collect();
        assert_eq!(shown, kept[..shown.len()], "{args}");
    }
    client.close().await;
}

/// `memlens mcp` on `db` run to its end on `input` (sent at once, then closed).
fn run_mcp(db: &std::path::Path, input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(mcp_support::bin())
        .args(["mcp", "--db", db.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Every line `memlens mcp` on `db` writes for `lines` sent at once (without waiting
/// for answers), each parsed.
fn served(db: &std::path::Path, lines: &[String]) -> Vec<Value> {
    let all: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = run_mcp(db, &all);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

/// An MCP client's first request.
fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

/// A line that is not a JSON-RPC message is answered with JSON-RPC's error (the
/// protocol library alone passed over it and left the client waiting), and the session
/// goes on: the next request is answered.
#[test]
fn a_line_that_is_not_json_rpc_gets_an_error_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 3);
    let lines = served(
        &db,
        &[
            "{not json".to_string(),
            json!({"id": 5, "method": "ping"}).to_string(),
            initialize().to_string(),
        ],
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        (lines[0]["id"].clone(), lines[0]["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    assert_eq!(
        (lines[1]["id"].clone(), lines[1]["error"]["code"].clone()),
        (json!(5), json!(-32600))
    );
    assert_eq!(lines[2]["id"], 1);
    assert_eq!(lines[2]["result"]["serverInfo"]["name"], "memlens");
}

#[test]
fn requests_sent_without_waiting_are_served_in_the_order_sent() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 3);
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
    };
    let mut lines = vec![
        initialize(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    // twenty retitlings of one memory, each followed by a read of it; then a new
    // memory and a read of it, a line no request can be read from, and a last read
    let id = get_first_id(&db);
    for i in 0..20u64 {
        lines.push(call(
            100 + 2 * i,
            "remember_update_memory",
            json!({"memory_id": id, "title": format!("T{i}")}),
        ));
        lines.push(call(101 + 2 * i, "mem_get", json!({"id": id})));
    }
    lines.push(call(
        200,
        "remember_create_memory",
        json!({"id": "made-now", "content": "written then read"}),
    ));
    lines.push(call(201, "mem_get", json!({"id": "made-now"})));
    lines.push(json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}));
    lines.push(call(202, "mem_get", json!({"id": id})));
    let lines: Vec<String> = lines.iter().map(Value::to_string).collect();
    let answers = served(&db, &lines);
    let ids: Vec<Value> = answers.iter().map(|a| a["id"].clone()).collect();
    let mut expected: Vec<Value> = vec![json!(1)];
    expected.extend(
        (100..=201)
            .filter(|i| *i < 140 || *i >= 200)
            .map(|i| json!(i)),
    );
    // the request with an id rmcp cannot read is answered with that id, in its place
    expected.extend([json!(1.5), json!(202)]);
    assert_eq!(ids, expected, "answers in the order of the requests");
    let title = |a: &Value| {
        let text = a["result"]["content"][0]["text"].as_str().expect("a text");
        serde_json::from_str::<Value>(text).expect("JSON")["title"].clone()
    };
    for i in 0..20usize {
        // each read sees the retitling sent just before it
        assert_eq!(
            title(&answers[2 + 2 * i]),
            json!(format!("T{i}")),
            "read {i}"
        );
    }
    assert_eq!(answers[42]["result"]["isError"], false, "{}", answers[42]);
    assert_eq!(title(&answers[44]), json!("T19"), "the last write stays");
    assert_eq!(get(db.to_str().unwrap(), &id)["title"], "T19");
}

/// The id of the first memory `memlens search` lists in `db`.
fn get_first_id(db: &std::path::Path) -> String {
    let listed = mcp_support::cli_json(&["search", "--json", "--db", db.to_str().unwrap()]);
    listed["results"][0]["id"]
        .as_str()
        .expect("an id")
        .to_string()
}

/// A call of a tool that is not there is invalid params naming it and the tools there
/// are; a client that closes its side before the session begins ends the server
/// without an error (exit 0), as closing it after does.
#[test]
fn a_tool_of_no_such_name_is_named_and_a_client_gone_before_initialize_is_no_failure() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 3);
    let call = |name: &str| {
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": name, "arguments": {}}})
        .to_string()
    };
    let lines = served(
        &db,
        &[
            initialize().to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            call("mem_serch"),
        ],
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1]["id"], 2);
    assert_eq!(lines[1]["error"]["code"], -32602, "{}", lines[1]);
    let message = lines[1]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("\"mem_serch\"") && message.contains("mem_search, mem_unlink"),
        "{message}"
    );
    for input in ["", "\n"] {
        let out = run_mcp(&db, input);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{input:?}: {err}");
        assert!(err.is_empty(), "{input:?}: {err}");
    }
}

/// An agent's first call on a path where no store is yet creates an empty one (said on
/// stderr, the client's log): a search finds nothing, then a memory it creates is
/// there for the next call and for the command line.
#[test]
fn a_server_on_a_path_with_no_store_yet_creates_one_for_the_first_memory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new").join("memories.redb");
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
        .to_string()
    };
    let lines = [
        initialize().to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        call(2, "mem_search", json!({"query": "first"})),
        call(
            3,
            "remember_create_memory",
            json!({"id": "first-one", "content": "the first memory"}),
        ),
        call(4, "mem_search", json!({"query": "first"})),
    ];
    let all: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = run_mcp(&db, &all);
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    for a in &answers[1..] {
        assert_eq!(a["result"]["isError"], false, "{a}");
    }
    let found = |a: &Value| {
        let text = a["result"]["content"][0]["text"].as_str().expect("a text");
        serde_json::from_str::<Value>(text).expect("JSON")["total"].clone()
    };
    assert_eq!(found(&answers[1]), json!(0), "{}", answers[1]);
    assert_eq!(found(&answers[3]), json!(1), "{}", answers[3]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("created an empty one"), "{stderr}");
    assert_eq!(
        get(db.to_str().unwrap(), "first-one")["body"],
        "the first memory"
    );
}

/// `remember_search_by`'s list filters take each item as one value: a tag with a comma
/// in it is found by that tag (not by its halves), and an empty list filters nothing.
#[test]
fn a_list_filters_item_is_one_value_even_with_a_comma() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 3);
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
        .to_string()
    };
    let by = |filters: Value| json!({"mode": "byTime", "filters": filters});
    let answers = served(
        &db,
        &[
            initialize().to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            call(
                2,
                "remember_create_memory",
                json!({"id": "comma", "content": "x", "tags": ["a,b"]}),
            ),
            call(
                3,
                "remember_create_memory",
                json!({"id": "plain", "content": "y", "tags": ["a"]}),
            ),
            call(4, "remember_search_by", by(json!({"tags": ["a,b"]}))),
            call(5, "remember_search_by", by(json!({"tags": ["a"]}))),
            call(6, "remember_search_by", by(json!({"tags": []}))),
            call(7, "remember_search_by", by(json!({}))),
        ],
    );
    let ids = |a: &Value| -> Vec<String> {
        let text = a["result"]["content"][0]["text"].as_str().expect("a text");
        let v: Value = serde_json::from_str(text).expect("JSON");
        let mut ids: Vec<String> = v["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&answers[3]), ["comma"], "{}", answers[3]);
    assert_eq!(ids(&answers[4]), ["plain"], "{}", answers[4]);
    assert_eq!(answers[5]["result"]["isError"], false, "{}", answers[5]);
    assert_eq!(
        ids(&answers[5]),
        ids(&answers[6]),
        "an empty list filters nothing"
    );
}

/// A request whose text holds half of a UTF-16 surrogate pair (a JavaScript client's
/// string cut inside an emoji) is answered, with its id, the half read as U+FFFD.
#[test]
fn a_lone_surrogate_in_a_request_is_read_as_the_replacement_character() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 3);
    let lines = served(
        &db,
        &[
            initialize().to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mem_search","arguments":{"query":"emoji \ud83d"}}}"#.to_string(),
        ],
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1]["id"], 9, "{}", lines[1]);
    assert_eq!(lines[1]["result"]["isError"], false, "{}", lines[1]);
}
