//! `update()` for every action, without a terminal: pure state changes checked directly,
//! and search-backed ones run through the headless browser on a real store, with the
//! expected lists computed by plain loops over the memories.

mod tui_common;

use memlens::model::{FEEL_DIMS, Memory, Timestamp, feel_index};
use memlens::search::{BrowseMode, Engine, NumericField, Order, SearchResponse};
use memlens::tui::action::Action;
use memlens::tui::effect::Effect;
use memlens::tui::filter_rows::{FilterKind, all_rows};
use memlens::tui::state::{Focus, Overlay, PAGE_SIZE, State, Tab};
use memlens::tui::update::update;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use std::time::Duration;
use tui_common::{fixture, fixture_with, literal_oracle, session};
use tui_textarea::{Input, Key};

fn blank() -> State {
    State::new("/tmp/x.redb".into(), (120, 40))
}

fn searches(effects: &[Effect]) -> Vec<&memlens::search::SearchRequest> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Search { request, .. } => Some(request.as_ref()),
            _ => None,
        })
        .collect()
}

fn key(c: char) -> Action {
    Action::SearchInput(Input {
        key: Key::Char(c),
        ..Input::default()
    })
}

#[test]
fn quit_and_close_or_quit() {
    let mut s = blank();
    assert_eq!(update(&mut s, Action::Quit), vec![Effect::Quit]);
    assert!(s.quitting);

    let mut s = blank();
    s.overlay = Some(Overlay::Help { scroll: 0 });
    assert!(update(&mut s, Action::CloseOrQuit).is_empty());
    assert_eq!(s.overlay, None);
    assert!(!s.quitting);
    assert_eq!(update(&mut s, Action::CloseOrQuit), vec![Effect::Quit]);
    assert!(s.quitting);
}

#[test]
fn help_toggles_and_closes() {
    let mut s = blank();
    s.take_config(&memlens::tui::config::Config::defaults(
        memlens::tui::theme::ColorMode::NoColor,
    ));
    update(&mut s, Action::ToggleHelp);
    assert_eq!(s.overlay, Some(Overlay::Help { scroll: 0 }));
    update(&mut s, Action::ScrollDown);
    update(&mut s, Action::ScrollDown);
    update(&mut s, Action::ScrollUp);
    assert_eq!(s.overlay, Some(Overlay::Help { scroll: 1 }));
    update(&mut s, Action::ToggleHelp);
    assert_eq!(s.overlay, None);
    update(&mut s, Action::ToggleHelp);
    update(&mut s, Action::CloseOverlay);
    assert_eq!(s.overlay, None);
    // closing with nothing open changes nothing
    assert!(update(&mut s, Action::CloseOverlay).is_empty());
    assert!(!s.quitting);
}

#[test]
fn focus_moves_between_panes() {
    let mut s = blank();
    update(&mut s, Action::FocusSearch);
    assert_eq!(s.focus, Focus::Search);
    assert!(s.in_text_box());
    update(&mut s, Action::LeaveSearch);
    assert_eq!(s.focus, Focus::List);
    update(&mut s, Action::FocusDetail);
    assert_eq!(s.focus, Focus::Detail);
    update(&mut s, Action::FocusList);
    assert_eq!(s.focus, Focus::List);
    let mut order = Vec::new();
    for _ in 0..4 {
        update(&mut s, Action::CycleFocus);
        order.push(s.focus);
    }
    assert_eq!(
        order,
        [Focus::Search, Focus::Detail, Focus::List, Focus::Search]
    );
    s.filters_open = true;
    update(&mut s, Action::CycleFocus);
    assert_eq!(s.focus, Focus::Filters);
}

#[test]
fn filter_panel_opens_with_a_histogram_job_per_slider_and_closes() {
    let mut s = blank();
    let effects = update(&mut s, Action::ToggleFilters);
    assert!(s.filters_open);
    assert_eq!(s.focus, Focus::Filters);
    let sliders = all_rows().iter().filter(|r| r.is_slider()).count();
    assert_eq!(
        sliders,
        31 + 3 + 6,
        "every feel_*, composite and numeric filter"
    );
    match &effects[..] {
        [Effect::Histograms { generation, jobs }] => {
            assert_eq!(*generation, s.histogram_generation);
            assert_eq!(jobs.len(), sliders);
            let mut rows: Vec<usize> = jobs.iter().map(|j| j.row).collect();
            rows.dedup();
            assert_eq!(rows.len(), sliders);
        }
        other => panic!("expected one histogram batch, got {other:?}"),
    }
    update(&mut s, Action::ToggleFilters);
    assert!(!s.filters_open);
    assert_eq!(s.focus, Focus::List);
    update(&mut s, Action::ToggleFilters);
    update(&mut s, Action::CloseFilters);
    assert!(!s.filters_open);
    assert_eq!(s.focus, Focus::List);
}

#[test]
fn tabs_switch_modes_and_each_switch_searches_from_the_top() {
    let mut s = blank();
    let expected = [
        (Action::ShowTime, BrowseMode::Time),
        (Action::ShowDensity, BrowseMode::Density),
        (Action::ShowRating, BrowseMode::Rating),
        (Action::ShowDiscovery, BrowseMode::Discovery),
        (Action::ShowRelevance, BrowseMode::Relevance),
    ];
    for (action, mode) in expected {
        s.selected = 5;
        let effects = update(&mut s, action);
        let reqs = searches(&effects);
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].mode, mode);
        assert_eq!(reqs[0].offset, 0);
        assert_eq!(s.selected, 0);
    }
    let effects = update(&mut s, Action::ShowProperty);
    assert!(matches!(
        searches(&effects)[0].mode,
        BrowseMode::Property(_)
    ));
    update(&mut s, Action::NextTab);
    assert_eq!(s.tab, Tab::Random, "the last tab");
    update(&mut s, Action::NextTab);
    assert_eq!(s.tab, Tab::Relevance, "wraps from the last tab");
    update(&mut s, Action::PreviousTab);
    assert_eq!(s.tab, Tab::Random, "wraps from the first tab");
    update(&mut s, Action::PreviousTab);
    assert_eq!(s.tab, Tab::Property);
    update(&mut s, Action::PreviousTab);
    assert_eq!(s.tab, Tab::Discovery);
}

#[test]
fn flip_order_alternates_and_a_tab_change_resets_it() {
    let mut s = blank();
    let e = update(&mut s, Action::FlipOrder);
    assert_eq!(searches(&e)[0].order, Some(Order::Asc));
    let e = update(&mut s, Action::FlipOrder);
    assert_eq!(searches(&e)[0].order, Some(Order::Desc));
    update(&mut s, Action::FlipOrder);
    update(&mut s, Action::ShowTime);
    assert_eq!(s.order, None);
}

#[test]
fn property_picker_chooses_the_field() {
    let mut s = blank();
    update(&mut s, Action::PickPropertyField);
    let Some(Overlay::FieldPicker { selected }) = s.overlay else {
        panic!("picker not open")
    };
    let all = NumericField::all();
    assert_eq!(all[selected], s.property_field);
    update(&mut s, Action::PickerNext);
    update(&mut s, Action::PickerNext);
    update(&mut s, Action::PickerPrevious);
    let chosen = all[selected + 1];
    let e = update(&mut s, Action::PickerAccept);
    assert_eq!(s.overlay, None);
    assert_eq!(s.tab, Tab::Property);
    assert_eq!(s.property_field, chosen);
    assert_eq!(searches(&e)[0].mode, BrowseMode::Property(chosen));
    // the picker stops at both ends
    update(&mut s, Action::PickPropertyField);
    for _ in 0..200 {
        update(&mut s, Action::PickerPrevious);
    }
    assert_eq!(s.overlay, Some(Overlay::FieldPicker { selected: 0 }));
    for _ in 0..200 {
        update(&mut s, Action::PickerNext);
    }
    assert_eq!(
        s.overlay,
        Some(Overlay::FieldPicker {
            selected: all.len() - 1
        })
    );
}

#[test]
fn typing_edits_the_query_and_every_change_searches() {
    let mut s = blank();
    update(&mut s, Action::FocusSearch);
    let before = s.generation;
    let e1 = update(&mut s, key('a'));
    let e2 = update(&mut s, key('b'));
    assert_eq!(s.query_text(), "ab");
    assert_eq!(searches(&e1)[0].query, "a");
    assert_eq!(searches(&e2)[0].query, "ab");
    assert_eq!(s.generation, before + 2);
    // Enter never makes a second line
    let e = update(
        &mut s,
        Action::SearchInput(Input {
            key: Key::Enter,
            ..Input::default()
        }),
    );
    assert!(e.is_empty());
    assert_eq!(s.query.lines().len(), 1);
    let e = update(&mut s, Action::CycleEngine);
    assert_eq!(searches(&e)[0].engine, Engine::Bm25);
    update(&mut s, Action::CycleEngine);
    update(&mut s, Action::CycleEngine);
    assert_eq!(s.engine, Engine::Literal);
    let e = update(&mut s, Action::ClearQuery);
    assert_eq!(s.query_text(), "");
    assert_eq!(searches(&e)[0].query, "");
    assert!(
        update(&mut s, Action::ClearQuery).is_empty(),
        "nothing to clear"
    );
}

#[test]
fn paste_goes_into_the_search_bar_without_controls() {
    let mut s = blank();
    let e = update(&mut s, Action::Paste("led\u{1b}[2Jger\nfix".into()));
    assert_eq!(s.focus, Focus::Search);
    let q = s.query_text();
    assert!(!q.chars().any(char::is_control), "{q:?}");
    assert_eq!(q, "led [2Jger fix");
    assert_eq!(searches(&e)[0].query, q);
    s.overlay = Some(Overlay::Help { scroll: 0 });
    assert!(update(&mut s, Action::Paste("x".into())).is_empty());
}

#[test]
fn stale_answers_are_dropped_by_generation() {
    let mut s = blank();
    update(&mut s, Action::FocusSearch);
    let old = s.generation + 1;
    update(&mut s, key('a'));
    update(&mut s, key('b'));
    assert!(s.searching);
    let stale = SearchResponse {
        total: 99,
        ..SearchResponse::default()
    };
    update(
        &mut s,
        Action::SearchDone {
            generation: old,
            response: stale,
            offset: 0,
            elapsed: Duration::from_millis(5),
        },
    );
    assert_eq!(
        s.results.total, 0,
        "an older generation's answer is ignored"
    );
    assert!(s.searching);
    let fresh = SearchResponse {
        total: 0,
        notice: Some("n".into()),
        ..SearchResponse::default()
    };
    let current = s.generation;
    update(
        &mut s,
        Action::SearchDone {
            generation: current,
            response: fresh,
            offset: 0,
            elapsed: Duration::from_millis(5),
        },
    );
    assert!(!s.searching);
    assert_eq!(s.results.notice.as_deref(), Some("n"));

    update(&mut s, Action::ToggleFilters);
    let hist = memlens::tui::state::SliderHistogram {
        counts: vec![1, 2],
        ..Default::default()
    };
    let current = s.histogram_generation;
    update(
        &mut s,
        Action::HistogramDone {
            generation: current - 1,
            row: 8,
            histogram: hist.clone(),
        },
    );
    assert_eq!(s.histograms[8], None);
    update(
        &mut s,
        Action::HistogramDone {
            generation: current,
            row: 8,
            histogram: hist.clone(),
        },
    );
    assert_eq!(s.histograms[8], Some(hist));
}

#[test]
fn background_arrivals_update_loading_and_messages() {
    let mut s = blank();
    assert!(s.loading);
    update(&mut s, Action::SearcherReady);
    assert!(!s.loading);
    let mut s = blank();
    update(&mut s, Action::LoadFailed("store is damaged".into()));
    assert!(!s.loading);
    assert_eq!(s.message.as_deref(), Some("store is damaged"));
    let facets = memlens::tui::state::Facets {
        types: vec!["a".into()],
        ..Default::default()
    };
    update(&mut s, Action::FacetsLoaded(facets.clone()));
    assert_eq!(s.facets, facets);
    // a detail nobody asked for is ignored; a failure for the shown one is reported
    s.detail_target = Some("x".into());
    update(
        &mut s,
        Action::DetailFailed {
            id: "y".into(),
            reason: "nope".into(),
        },
    );
    assert_eq!(s.message.as_deref(), Some("store is damaged"));
    update(
        &mut s,
        Action::DetailFailed {
            id: "x".into(),
            reason: "gone".into(),
        },
    );
    assert_eq!(s.message.as_deref(), Some("gone"));
}

#[test]
fn sliders_step_by_a_twentieth_and_turn_off_at_full_width() {
    let mut s = blank();
    update(&mut s, Action::ToggleFilters);
    let rows = all_rows();
    let humor = feel_index("humor").expect("dim");
    let row = rows
        .iter()
        .position(|r| *r == FilterKind::Feel(humor))
        .expect("row");
    for _ in 0..row {
        update(&mut s, Action::NextFilter);
    }
    assert_eq!(s.filter_row, row);
    let e = update(&mut s, Action::LowerBoundUp);
    assert_eq!(searches(&e).len(), 1, "a slider step searches");
    assert!(e.iter().any(|e| matches!(e, Effect::Histograms { .. })));
    update(&mut s, Action::LowerBoundUp);
    assert!((s.filters.feel[humor].min.expect("min") - 0.10).abs() < 1e-9);
    update(&mut s, Action::UpperBoundDown);
    assert!((s.filters.feel[humor].max.expect("max") - 0.95).abs() < 1e-9);
    update(&mut s, Action::UpperBoundUp);
    assert_eq!(s.filters.feel[humor].max, None, "back at the top: open");
    update(&mut s, Action::LowerBoundDown);
    update(&mut s, Action::LowerBoundDown);
    assert_eq!(s.filters.feel[humor].min, None, "back at the bottom: open");
    assert!(
        update(&mut s, Action::LowerBoundDown).is_empty(),
        "no change, no search"
    );
    // the lower bound never passes the upper one
    for _ in 0..10 {
        update(&mut s, Action::UpperBoundDown);
    }
    for _ in 0..40 {
        update(&mut s, Action::LowerBoundUp);
    }
    let r = s.filters.feel[humor];
    assert!(r.min.expect("min") <= r.max.expect("max") + 1e-9, "{r:?}");
    update(&mut s, Action::ResetFilter);
    assert!(s.filters.feel[humor].is_open());
    // valence spans −1..1
    let valence = feel_index("valence").expect("dim");
    assert_eq!(FEEL_DIMS[valence].min, -1.0);
    s.filter_row = rows
        .iter()
        .position(|r| *r == FilterKind::Feel(valence))
        .expect("row");
    update(&mut s, Action::LowerBoundUp);
    assert!((s.filters.feel[valence].min.expect("min") + 0.95).abs() < 1e-9);
    update(&mut s, Action::ResetAllFilters);
    assert_eq!(s.active_filters(), 0);
    // the chosen row stops at both ends
    for _ in 0..100 {
        update(&mut s, Action::PreviousFilter);
    }
    assert_eq!(s.filter_row, 0);
    for _ in 0..100 {
        update(&mut s, Action::NextFilter);
    }
    assert_eq!(s.filter_row, rows.len() - 1);
}

#[test]
fn choice_rows_cycle_through_any_and_each_value() {
    let mut s = blank();
    s.facets.types = vec!["decision".into(), "gotcha".into()];
    s.filter_row = all_rows()
        .iter()
        .position(|r| *r == FilterKind::Type)
        .expect("row");
    let mut seen = Vec::new();
    for _ in 0..3 {
        update(&mut s, Action::LowerBoundUp);
        seen.push(s.filters.types.clone());
    }
    assert_eq!(
        seen,
        vec![
            vec!["decision".to_string()],
            vec!["gotcha".to_string()],
            vec![]
        ]
    );
    update(&mut s, Action::LowerBoundDown);
    assert_eq!(s.filters.types, vec!["gotcha".to_string()]);
    s.filter_row = 0; // deleted: hidden → shown → only
    update(&mut s, Action::LowerBoundUp);
    update(&mut s, Action::LowerBoundUp);
    assert_eq!(s.filters.deleted, memlens::search::DeletedFilter::Only);
}

#[test]
fn typed_query_lists_exactly_what_a_plain_loop_finds() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    b.type_keys("/");
    b.type_keys("payouts");
    let mut got: Vec<String> = b
        .state
        .results
        .hits
        .iter()
        .map(|h| h.memory.id.clone())
        .collect();
    got.sort();
    assert_eq!(got, literal_oracle(&f.memories, "payouts"));
    assert_eq!(b.state.results.total, got.len());
    assert_eq!(b.state.query_text(), "payouts");
}

fn time_order(memories: &[Memory]) -> Vec<String> {
    let mut live: Vec<&Memory> = memories.iter().filter(|m| !m.is_deleted()).collect();
    live.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
    live.iter().map(|m| m.id.clone()).collect()
}

#[test]
fn moving_the_selection_follows_the_list_and_fills_the_detail_pane() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let order = time_order(&f.memories);
    assert_eq!(b.state.results.total, order.len());
    let shown =
        |b: &memlens::tui::headless::Headless| b.state.detail.as_ref().map(|d| d.memory.id.clone());
    assert_eq!(shown(&b).as_deref(), Some(order[0].as_str()));
    b.dispatch(Action::SelectNext);
    b.dispatch(Action::SelectNext);
    b.dispatch(Action::SelectPrevious);
    assert_eq!(b.state.selected, 1);
    assert_eq!(shown(&b).as_deref(), Some(order[1].as_str()));
    b.dispatch(Action::SelectLast);
    assert_eq!(b.state.selected, order.len() - 1);
    assert_eq!(shown(&b).as_deref(), order.last().map(String::as_str));
    b.dispatch(Action::SelectNext);
    assert_eq!(b.state.selected, order.len() - 1, "stays on the last");
    b.dispatch(Action::SelectFirst);
    b.dispatch(Action::SelectPrevious);
    assert_eq!(b.state.selected, 0, "stays on the first");
    b.dispatch(Action::PageDown);
    let rows = memlens::tui::update::list_rows(&b.state);
    assert_eq!(b.state.selected, rows.min(order.len() - 1));
    b.dispatch(Action::PageUp);
    assert_eq!(b.state.selected, 0);
    assert!(
        b.state
            .detail
            .as_ref()
            .and_then(|d| d.links.as_ref())
            .is_some()
    );
}

#[test]
fn a_long_list_loads_the_page_around_the_selection() {
    let base = Timestamp::parse("2026-01-01T00:00:00Z").expect("time");
    let memories: Vec<Memory> = (0..(PAGE_SIZE as i64 * 2 + 50))
        .map(|i| {
            Memory::new(
                format!("m{i:04}"),
                format!("body {i}"),
                Timestamp(base.0 + i * 1_000_000_000),
            )
        })
        .collect();
    let f = fixture_with(memories);
    let order = time_order(&f.memories);
    let mut b = session(&f, (80, 24));
    assert_eq!(b.state.results.hits.len(), PAGE_SIZE, "one page at a time");
    b.dispatch(Action::SelectLast);
    let last = order.len() - 1;
    assert_eq!(b.state.selected, last);
    let hit = b.state.selected_hit().expect("the last page is loaded");
    assert_eq!(hit.memory.id, order[last]);
    for step in 0..30 {
        b.dispatch(Action::PageUp);
        let at = b.state.selected;
        let hit = b.state.selected_hit().expect("page loaded");
        assert_eq!(hit.memory.id, order[at], "after {step} pages up");
        let rows = memlens::tui::update::list_rows(&b.state);
        for row in b.state.list_top..(b.state.list_top + rows).min(order.len()) {
            assert!(
                b.state.results.get(row).is_some(),
                "visible row {row} loaded"
            );
        }
    }
}

#[test]
fn relationships_can_be_followed_and_gone_back_from() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    b.type_keys("/");
    b.type_keys("mem-04");
    b.dispatch(Action::LeaveSearch);
    b.dispatch(Action::FocusDetail);
    let detail = b.state.detail.clone().expect("detail");
    assert_eq!(detail.memory.id, "mem-04");
    let links = detail.links.expect("links read");
    // mem-04 names mem-03 (and mem-08 names mem-07, not it)
    let ids: Vec<(&str, bool)> = links.iter().map(|l| (l.id.as_str(), l.outgoing)).collect();
    assert_eq!(ids, vec![("mem-03", true)]);
    assert_eq!(detail.relationship_count, 1);
    b.dispatch(Action::NextRelationship);
    assert_eq!(b.state.detail_link, 0, "stops at the last link");
    b.dispatch(Action::PreviousRelationship);
    b.dispatch(Action::FollowRelationship);
    let followed = b.state.detail.clone().expect("followed detail");
    assert_eq!(followed.memory.id, "mem-03");
    assert_eq!(b.state.back_stack, vec!["mem-04".to_string()]);
    // links are undirected: mem-03 shows mem-04 as linking to it
    let back: Vec<(String, bool)> = followed
        .links
        .expect("links read")
        .into_iter()
        .map(|l| (l.id, l.outgoing))
        .collect();
    assert_eq!(back, vec![("mem-04".to_string(), false)]);
    b.dispatch(Action::GoBack);
    assert_eq!(
        b.state.detail.as_ref().map(|d| d.memory.id.as_str()),
        Some("mem-04")
    );
    assert!(b.state.back_stack.is_empty());
    b.dispatch(Action::GoBack);
    assert_eq!(
        b.state.detail.as_ref().map(|d| d.memory.id.as_str()),
        Some("mem-04")
    );
}

#[test]
fn a_missing_relationship_target_is_shown_and_not_followed() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    b.type_keys("/mem-08");
    b.dispatch(Action::FocusDetail);
    let links = b
        .state
        .detail
        .as_ref()
        .and_then(|d| d.links.clone())
        .expect("links");
    let missing = links
        .iter()
        .position(|l| l.id == "gone-forever")
        .expect("listed");
    assert_eq!(links[missing].headline, None);
    b.state.detail_link = missing;
    b.dispatch(Action::FollowRelationship);
    assert_eq!(
        b.state.detail.as_ref().map(|d| d.memory.id.as_str()),
        Some("mem-08")
    );
    assert!(
        b.state
            .message
            .as_deref()
            .is_some_and(|m| m.contains("gone-forever"))
    );
}

#[test]
fn the_detail_pane_scrolls_within_its_text() {
    let f = fixture();
    let mut b = session(&f, (80, 24));
    b.dispatch(Action::SelectNext); // the newest live memory with feel_* scores
    b.dispatch(Action::FocusDetail);
    let max = memlens::tui::view::detail::max_scroll(&b.state);
    assert!(max > 0, "a scored memory's detail is taller than 80×24");
    for _ in 0..(max + 10) {
        b.dispatch(Action::ScrollDown);
    }
    assert_eq!(b.state.detail_scroll, max);
    b.dispatch(Action::ScrollUp);
    assert_eq!(b.state.detail_scroll, max - 1);
    b.dispatch(Action::FocusList);
    b.dispatch(Action::SelectNext);
    assert_eq!(b.state.detail_scroll, 0, "another memory starts at the top");
}

#[test]
fn moving_a_slider_keeps_only_memories_in_its_range() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let humor = feel_index("humor").expect("dim");
    b.type_keys("f");
    b.state.filter_row = all_rows()
        .iter()
        .position(|r| *r == FilterKind::Feel(humor))
        .expect("row");
    for _ in 0..10 {
        b.type_keys("l");
    }
    let min = b.state.filters.feel[humor].min.expect("min set");
    assert!((min - 0.5).abs() < 1e-9);
    let mut expected: Vec<String> = f
        .memories
        .iter()
        .filter(|m| !m.is_deleted() && m.feel[humor].is_some_and(|v| v >= min))
        .map(|m| m.id.clone())
        .collect();
    expected.sort();
    let mut got: Vec<String> = b
        .state
        .results
        .hits
        .iter()
        .map(|h| h.memory.id.clone())
        .collect();
    got.sort();
    assert_eq!(got, expected);
    // its histogram: the memories the other filters keep that have the field
    let row = b.state.filter_row;
    let hist = b.state.histograms[row].clone().expect("histogram computed");
    let present = f
        .memories
        .iter()
        .filter(|m| !m.is_deleted() && m.feel[humor].is_some())
        .count();
    assert_eq!(hist.present, present);
    assert_eq!(
        hist.counts.iter().map(|c| *c as usize).sum::<usize>(),
        present
    );
    assert_eq!(hist.kept, expected.len());
}

#[test]
fn resize_keeps_the_selection_on_screen() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    b.dispatch(Action::SelectLast);
    b.dispatch(Action::Resize(80, 24));
    let rows = memlens::tui::update::list_rows(&b.state);
    let (top, sel) = (b.state.list_top, b.state.selected);
    assert!(
        top <= sel && sel < top + rows,
        "top {top} sel {sel} rows {rows}"
    );
    b.dispatch(Action::Resize(20, 5));
    assert_eq!(b.state.size, (20, 5));
}

#[test]
fn mouse_wheel_and_clicks_act_on_the_pane_under_the_pointer() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let areas = memlens::tui::view::layout((120, 40), false).expect("layout");
    b.dispatch(Action::Wheel {
        column: areas.list.x + 2,
        row: areas.list.y + 2,
        lines: 3,
    });
    assert_eq!(b.state.selected, 3);
    b.dispatch(Action::Click {
        column: areas.list.x + 2,
        row: areas.list.y + 1 + 1,
    });
    assert_eq!(b.state.selected, 1);
    assert_eq!(b.state.focus, Focus::List);
    b.dispatch(Action::Click {
        column: areas.search.x + 3,
        row: areas.search.y + 1,
    });
    assert_eq!(b.state.focus, Focus::Search);
    let detail = areas.detail.expect("detail shown");
    b.dispatch(Action::Click {
        column: detail.x + 3,
        row: detail.y + 3,
    });
    assert_eq!(b.state.focus, Focus::Detail);
    b.dispatch(Action::Wheel {
        column: detail.x + 3,
        row: detail.y + 3,
        lines: 3,
    });
    let max = memlens::tui::view::detail::max_scroll(&b.state);
    assert!(max > 0);
    assert_eq!(b.state.detail_scroll, max.min(3));
    // a click on the second tab label shows the Time tab
    let x = (0..120)
        .find(|x| memlens::tui::view::tabs::tab_at(&b.state, areas.tabs, *x) == Some(Tab::Time))
        .expect("time tab somewhere");
    b.dispatch(Action::Click { column: x, row: 0 });
    assert_eq!(b.state.tab, Tab::Time);
}

#[test]
fn keys_reach_the_search_bar_only_when_it_has_focus() {
    let f = fixture();
    let mut b = session(&f, (80, 24));
    b.type_keys("j");
    assert_eq!(b.state.selected, 1, "j moves in the list");
    b.type_keys("/jq");
    assert_eq!(b.state.query_text(), "jq", "j types in the search bar");
    b.press(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(b.state.focus, Focus::List);
    assert_eq!(b.state.query_text(), "jq", "the query stays");
    b.press(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(b.state.quitting);
}

/// The help overlay and the detail pane page and jump to either end, and stop there:
/// scrolled to the end, one line up shows the line before at once.
#[test]
fn help_and_detail_page_and_jump_to_either_end() {
    let f = fixture();
    let mut b = session(&f, (80, 24));
    // the whole note, which fits the overlay's width
    let note = "Keys in force: the defaults and the config's [keys.*] tables.";
    b.type_keys("?");
    assert!(!tui_common::screen(&b).contains(note));
    b.press(KeyCode::End, KeyModifiers::NONE);
    let end = tui_common::screen(&b);
    assert!(end.contains(note), "{end}");
    // the note is the help's last line: on the overlay's last row
    let rows: Vec<&str> = end.lines().collect();
    let at = rows.iter().position(|r| r.contains(note)).unwrap();
    assert!(rows[at + 1].contains('╰'), "{end}");
    b.press(KeyCode::Char('k'), KeyModifiers::NONE);
    assert!(
        !tui_common::screen(&b).contains(note),
        "one line up hides the last"
    );
    b.press(KeyCode::Char('j'), KeyModifiers::NONE);
    b.press(KeyCode::Char('j'), KeyModifiers::NONE);
    assert_eq!(tui_common::screen(&b), end, "the end stops scrolling");
    b.press(KeyCode::Char('g'), KeyModifiers::NONE);
    let top = tui_common::screen(&b);
    // the help's first line (the list's keys' title) on the overlay's first row
    let rows: Vec<&str> = top.lines().collect();
    let first = rows.iter().position(|r| r.contains(" Help ")).unwrap() + 1;
    assert!(rows[first].contains("┃List "), "{top}");
    assert!(!top.contains(note), "{top}");
    b.press(KeyCode::PageDown, KeyModifiers::NONE);
    let Some(Overlay::Help { scroll }) = b.state.overlay else {
        panic!("help closed")
    };
    // a page is the overlay's height less its borders: 24 rows less 2 around, less 2
    assert_eq!(scroll, 20);
    b.press(KeyCode::PageUp, KeyModifiers::NONE);
    b.press(KeyCode::PageUp, KeyModifiers::NONE);
    assert_eq!(tui_common::screen(&b), top);
    // the detail pane of the first memory beside the list: scores and body run past
    // its height
    let mut b = session(&f, (120, 24));
    // the first memory that has scores: its detail runs past the pane
    let mut last = 0;
    for _ in 0..10 {
        b.press(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(b.state.focus, Focus::Detail);
        b.press(KeyCode::End, KeyModifiers::NONE);
        last = b.state.detail_scroll;
        if last > 1 {
            break;
        }
        b.press(KeyCode::Esc, KeyModifiers::NONE);
        b.press(KeyCode::Char('j'), KeyModifiers::NONE);
    }
    assert!(last > 1, "a detail pane longer than the screen");
    let end = tui_common::screen(&b);
    b.press(KeyCode::Char('j'), KeyModifiers::NONE);
    assert_eq!(tui_common::screen(&b), end, "the end stops scrolling");
    b.press(KeyCode::Char('k'), KeyModifiers::NONE);
    assert_eq!(b.state.detail_scroll, last - 1);
    b.press(KeyCode::PageDown, KeyModifiers::NONE);
    assert_eq!(b.state.detail_scroll, last);
    b.press(KeyCode::Home, KeyModifiers::NONE);
    assert_eq!(b.state.detail_scroll, 0);
    b.press(KeyCode::PageDown, KeyModifiers::NONE);
    let page = b.state.detail_scroll;
    assert!(page > 1 && page <= last, "{page} of {last}");
}

/// The help overlay's title and the filter panel's hint name the keys in force: a
/// config that moves them is what they show.
#[test]
fn help_title_and_filter_hint_name_the_keys_in_force() {
    use memlens::tui::config::Config;
    use memlens::tui::theme::ColorMode;
    let f = fixture();
    let text = r#"
[keys.help]
"ctrl-d" = "scroll_down"
"ctrl-e" = "scroll_up"
"x" = "close_overlay"
"j" = "none"
"k" = "none"
"down" = "none"
"up" = "none"
"esc" = "none"
"?" = "none"
"q" = "none"
[keys.filters]
"z" = "lower_bound_down"
"h" = "none"
"esc" = "none"
"c" = "close_filters"
[keys.picker]
"enter" = "none"
"y" = "picker_accept"
"#;
    let config = Config::parse(text, ColorMode::NoColor).expect("valid config");
    let mut b = tui_common::session_with(&f, (120, 40), config);
    b.dispatch(Action::ToggleHelp);
    let screen = tui_common::screen(&b);
    assert!(
        screen.contains("Help · Ctrl-d/Ctrl-e scroll · x close"),
        "{screen}"
    );
    b.dispatch(Action::CloseOverlay);
    b.dispatch(Action::ToggleFilters);
    let screen = tui_common::screen(&b);
    assert!(
        screen.contains("z/l low · H/L high · 0 reset · c close"),
        "{screen}"
    );
    b.dispatch(Action::CloseFilters);
    b.dispatch(Action::PickPropertyField);
    let screen = tui_common::screen(&b);
    assert!(screen.contains("Sort by · y choose"), "{screen}");
    // the defaults read as before
    let mut d = session(&f, (120, 40));
    d.dispatch(Action::ToggleHelp);
    assert!(tui_common::screen(&d).contains("Help · j/k scroll · Esc close"));
    d.dispatch(Action::CloseOverlay);
    d.dispatch(Action::ToggleFilters);
    assert!(tui_common::screen(&d).contains("h/l low · H/L high · 0 reset · Esc close"));
}

/// A tab that sorts by a field shows each memory's value of it at the row's end, as
/// the command line's table does; the time tab shows none.
#[test]
fn a_tab_sorted_by_a_field_shows_its_value_on_each_row() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    b.dispatch(Action::ShowDensity);
    let hit = b.state.results.hits[0].clone();
    let title = hit.memory.shown_headline().to_string();
    // the list pane's text of the hit's row, between its borders
    let list_row = |b: &memlens::tui::headless::Headless| -> String {
        let screen = tui_common::screen(b);
        let row = screen
            .lines()
            .find(|l| l.contains(title.get(..20).unwrap_or(&title)))
            .unwrap_or_else(|| panic!("{screen}"));
        row.split('┃').nth(1).unwrap_or(row).trim_end().to_string()
    };
    let row = list_row(&b);
    assert!(row.ends_with(&hit.relationship_count.to_string()), "{row}");
    b.dispatch(Action::ShowTime);
    let row = list_row(&b);
    assert!(
        !row.ends_with(&format!(" {}", hit.relationship_count)),
        "{row}"
    );
}
