//! Property tests: any valid memory survives the store encoding, the canonical JSON
//! form, a JSONL export and re-import, and a hivelore file written and read back.

mod exchange_support;

use exchange_support::{export_all, import_jsonl, temp_store};
use memlens::exchange::Collected;
use memlens::exchange::RecordSink;
use memlens::exchange::fast_json::parse_canonical;
use memlens::exchange::hivelore::{is_field_key, read::parse_memory, write::render};
use memlens::exchange::json_line::write_json_line;
use memlens::model::{
    Checked, FEEL_COUNT, FEEL_DIMS, Memory, Rating, Relationship, Scope, Source, Status, Timestamp,
    TrustLevel, is_model_key,
};
use memlens::store::tables::{decode, encode};
use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;
use serde_json::Value;
use std::collections::HashMap;

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("(?s).{{0,{max}}}")).unwrap()
}

fn timestamp() -> impl Strategy<Value = Timestamp> {
    (0i64..4_102_444_800_000_000_000).prop_map(Timestamp)
}

fn unit() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1.0), Just(0.5), 0.0f64..=1.0]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e300f64..1e300).prop_map(Value::from),
        text(20).prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::from),
            btree_map("[a-z_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Keys for `extra`: mostly free names, sometimes one memlens's JSON form gives a
/// meaning to (which must never stand in for the real field).
fn extra_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "x_[a-z]{1,8}",
        1 => prop::sample::select(vec![
            "id", "body", "title", "source", "extra", "score", "snippet", "content",
            "trust_score", "rating_bayesian", "relationship_count", "feel_humor",
            "functional_urgency", "feel_unknown", "created_at", "relationships",
        ]).prop_map(String::from),
    ]
}

prop_compose! {
    fn relationship()(target in "\\PC{1,20}", kind in "[a-z_]{1,12}", strength in option::of(unit())) -> Relationship {
        Relationship { target, kind, strength }
    }
}

prop_compose! {
    fn source()(system in "[a-z-]{1,10}", path in option::of("[a-z/]{1,12}\\.md"), id in option::of("\\PC{1,10}"),
                keys in vec("[a-z_]{1,8}", 0..4)) -> Source {
        Source { system, path, id, keys }
    }
}

prop_compose! {
    fn core()(id in "\\PC{1,40}", title in option::of(text(40)), lead in "[a-zA-Z0-9#]", body in text(200),
              memory_type in "[a-z0-9_-]{1,40}", scope in 0..4usize, module in option::of("[a-z]{1,10}"),
              status in 0..6usize, tags in vec("\\PC{0,12}", 0..5)) -> Memory {
        let mut m = Memory::new(id, format!("{lead}{body}"), Timestamp(0));
        m.title = title;
        m.memory_type = memory_type;
        m.scope = Scope::ALL[scope];
        m.module = module.or_else(|| (m.scope == Scope::Module).then(|| "core".to_string()));
        m.status = Status::ALL[status];
        m.tags = tags;
        m
    }
}

prop_compose! {
    fn memory()(mut m in core(), weight in unit(), trust in unit(), confidence in option::of(unit()),
                created in timestamp(), updated in timestamp(), deleted in option::of(timestamp()),
                reason in option::of(text(30)), last_read in option::of(timestamp()), read_count in any::<u32>(),
                ratings in (0u32..10_000).prop_flat_map(|n| (Just(n), n..=5 * n)),
                rels in vec(relationship(), 0..4), feel in vec(option::of(0.0f64..=1.0), FEEL_COUNT),
                trust_level in option::of(1u8..=5), raters in vec(1u8..=5, 0..3),
                valence_negative in any::<bool>(), rem in option::of(any::<u32>()), source in option::of(source()),
                extra in btree_map(extra_key(), json_value(), 0..4)) -> Memory {
        m.weight = weight;
        m.trust = trust;
        m.confidence = confidence;
        m.created_at = created;
        m.updated_at = updated;
        m.deleted_at = deleted;
        m.deleted_reason = reason;
        m.last_read_at = last_read;
        m.read_count = read_count;
        (m.rating_count, m.rating_sum) = ratings;
        m.trust_level = trust_level.and_then(TrustLevel::from_number);
        // raters' ratings are counted in the aggregate beside the imported ones
        m.ratings = raters
            .iter()
            .enumerate()
            .map(|(i, &value)| Rating { rater: format!("rater {i}"), value })
            .collect();
        m.rating_count += raters.len() as u32;
        m.rating_sum += raters.iter().map(|&v| u32::from(v)).sum::<u32>();
        m.relationships = rels.into_iter().filter(|r| r.target != m.id).collect();
        for (i, dim) in FEEL_DIMS.iter().enumerate() {
            m.feel[i] = feel[i].map(|v| if dim.min < 0.0 && valence_negative { -v } else { v });
        }
        m.rem_visits = rem;
        m.source = source;
        m.extra = extra.into_iter().collect();
        m.normalise();
        m
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_store_encoding_round_trips(m in memory()) {
        prop_assume!(m.validate().is_empty());
        prop_assert_eq!(decode(&encode(&m)), Ok(m));
    }

    #[test]
    fn the_direct_json_writer_writes_the_canonical_line(m in memory()) {
        let mut line = Vec::new();
        write_json_line(&m, &mut line);
        prop_assert_eq!(String::from_utf8(line).unwrap(), m.to_json_line());
    }

    #[test]
    fn a_json_line_stored_by_schema_1_decodes_to_its_memory(m in memory()) {
        prop_assume!(m.validate().is_empty());
        prop_assert_eq!(decode(m.to_json_line().as_bytes()), Ok(m));
    }

    #[test]
    fn a_damaged_store_encoding_never_decodes(
        m in memory(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        bits in 1u8..=255,
    ) {
        prop_assume!(m.validate().is_empty());
        let bytes = encode(&m);
        // cut short: never a memory
        let at = cut.index(bytes.len());
        prop_assert!(decode(&bytes[..at]).is_err());
        // a byte changed: its checksum says so
        let mut changed = bytes.clone();
        changed[flip.index(bytes.len())] ^= bits;
        prop_assert!(decode(&changed).is_err());
    }

    #[test]
    fn the_fast_reader_reads_canonical_lines_as_the_general_one(m in memory(), now in timestamp()) {
        prop_assume!(m.validate().is_empty());
        let line = m.to_json_line();
        let fast = parse_canonical(&line, now).map(Checked::into_memory);
        if m.extra.keys().any(|k| is_model_key(k)) || m.trust_level.is_some() || !m.ratings.is_empty() {
            // The nested `extra` object, the trust level and the raters are the general
            // reader's to read.
            prop_assert!(fast.is_none());
        } else {
            prop_assert_eq!(fast.as_ref(), Some(&m));
        }
    }

    #[test]
    fn the_fast_reader_never_disagrees_on_odd_lines(
        fields in btree_map(
            prop_oneof![
                Just("id".to_string()), Just("body".to_string()), Just("title".to_string()),
                Just("weight".to_string()), Just("tags".to_string()), Just("read_count".to_string()),
                Just("created_at".to_string()), Just("updated_at".to_string()), Just("scope".to_string()),
                Just("module".to_string()), Just("feel_valence".to_string()), Just("relationships".to_string()),
                Just("source".to_string()), Just("content".to_string()), Just("rem_visits".to_string()),
                "[a-z_]{1,8}",
            ],
            prop_oneof![
                json_value(),
                Just(Value::from("2026-01-01T00:00:00Z")),
                Just(Value::from("module")),
                Just(serde_json::json!([{"target": "t", "strength": 0.5}])),
                Just(serde_json::json!({"system": "s"})),
            ],
            0..8,
        ),
        now in timestamp(),
    ) {
        let obj: serde_json::Map<String, Value> = fields.into_iter().collect();
        let line = Value::Object(obj.clone()).to_string();
        if let Some(fast) = parse_canonical(&line, now).map(Checked::into_memory) {
            let (general, warnings) = Memory::from_json(&obj, now).expect("the general reader accepts it too");
            prop_assert!(warnings.is_empty());
            prop_assert_eq!(fast, general);
        }
    }

    #[test]
    fn canonical_json_round_trips_without_warnings(m in memory(), now in timestamp()) {
        prop_assume!(m.validate().is_empty());
        let (back, warnings) = Memory::from_json(&m.to_json(), now).expect("valid");
        prop_assert!(warnings.is_empty(), "{:?}", warnings);
        prop_assert_eq!(back, m);
    }

    #[test]
    fn a_hivelore_file_reads_back_the_same_memory(m in memory()) {
        prop_assume!(m.validate().is_empty());
        // A frontmatter key is either a field or kept in extra, never both.
        prop_assume!(!m.extra.keys().any(|k| is_field_key(k)));
        let text = render(&m);
        let mut sink = Collected::default();
        sink.file("x.md");
        parse_memory(&text, "x.md", "x", &mut sink, &HashMap::new(), Timestamp(0));
        prop_assert!(sink.problems.is_empty(), "{:?}\n{}", sink.problems, text);
        prop_assert_eq!(sink.memories.len(), 1);
        let mut back = sink.memories.remove(0).2;
        prop_assert_eq!(back.source.as_ref().map(|s| s.system.as_str()), Some("hivelore"));
        back.source = m.source.clone();
        let key = |r: &Relationship| (r.target.clone(), r.kind.clone(), r.strength.map(f64::to_bits));
        let mut want = m.clone();
        want.relationships.sort_by_key(key);
        back.relationships.sort_by_key(key);
        prop_assert_eq!(back, want, "{}", text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn export_then_import_changes_nothing(ms in vec(memory(), 1..8)) {
        let mut seen = std::collections::HashSet::new();
        let ms: Vec<Memory> = ms.into_iter().filter(|m| m.validate().is_empty() && seen.insert(m.id.clone())).collect();
        prop_assume!(!ms.is_empty());
        let text: String = ms.iter().map(|m| m.to_json_line() + "\n").collect();
        let (_a, first) = temp_store();
        import_jsonl(&first, "in.jsonl", &text).expect("import");
        let export1 = export_all(&first);
        let (_b, second) = temp_store();
        import_jsonl(&second, "export.jsonl", &export1).expect("re-import");
        prop_assert_eq!(&export_all(&second), &export1);
        let mut want: Vec<&Memory> = ms.iter().collect();
        want.sort_by(|a, b| a.id.cmp(&b.id));
        let got: Vec<Memory> = export1
            .lines()
            .map(|l| decode(l.as_bytes()).expect("decodes"))
            .collect();
        prop_assert_eq!(got.iter().collect::<Vec<_>>(), want);
    }
}

/// A hivelore file read through `parse_memory`: its one memory (problems fail the test).
fn hivelore_memory(text: &str) -> Memory {
    let mut sink = Collected::default();
    sink.file("x.md");
    parse_memory(text, "x.md", "x", &mut sink, &HashMap::new(), Timestamp(0));
    assert!(sink.problems.is_empty(), "{:?}", sink.problems);
    sink.memories.remove(0).2
}

#[test]
fn extra_fields_named_like_memlens_fields_survive_canonical_json() {
    // hivelore keeps `source`, `body`, `trust_score`, `feel_significance` and
    // `extra` in extra; written flat they replaced or were read as memlens's own
    let m = hivelore_memory(
        "---\nid: a\nsource: 0.7\nbody: not the body\nfeel_significance: 3\nextra: 1\nfeel_salience: x\ntopic: t\n---\nthe body\n",
    );
    for key in [
        "source",
        "body",
        "feel_significance",
        "extra",
        "feel_salience",
        "topic",
    ] {
        assert!(m.extra.contains_key(key), "{key} not in extra");
    }
    let (back, warnings) = Memory::from_json(&m.to_json(), Timestamp(0)).expect("reads back");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(back, m);
    let line = m.to_json_line();
    let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&line).unwrap();
    assert_eq!(Memory::from_json(&obj, Timestamp(0)).unwrap().0, m);
}

#[test]
fn a_hivelore_file_with_unicode_noncharacters_reads_back() {
    // U+FFFE and U+FFFF are outside YAML's printable set: written raw (plain, quoted
    // or in a block) the file did not load
    let mut m = hivelore_memory("---\nid: a\n---\nthe body\n");
    m.title = Some("a\u{fffe}b".into());
    m.tags = vec!["mach\u{ffff}".into()];
    m.extra
        .insert("entityType".into(), Value::from("x\u{ffff}"));
    m.extra
        .insert("notes".into(), Value::from("two\nlines \u{fffe}\n"));
    let back = hivelore_memory(&render(&m));
    let mut want = m.clone();
    want.source = back.source.clone();
    assert_eq!(back, want);
}

#[test]
fn a_hivelore_file_with_plain_and_kinded_links_reads_back_in_the_same_order() {
    // a plain `related` link listed before a kinded one in `relationships:` is written
    // back in `related_ids`, after the others: it read back in another order
    let read = hivelore_memory(concat!(
        "---\nid: a\nrelationships:\n",
        "  - target: b\n    note: an unknown key\n",
        "  - target: c\n    kind: supersedes\n",
        "  - target: d\n    kind: related\n    strength: 0.5\n",
        "related_ids:\n  - e\n",
        "---\nthe body\n"
    ));
    let targets: Vec<&str> = read
        .relationships
        .iter()
        .map(|r| r.target.as_str())
        .collect();
    assert_eq!(targets, ["c", "d", "b", "e"]);
    let mut back = hivelore_memory(&render(&read));
    back.source = read.source.clone();
    assert_eq!(back, read);
}
