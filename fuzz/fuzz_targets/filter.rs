//! `--filter KEY=VALUE`: each line of the input is one argument, applied in turn as the
//! command line applies them. The arguments that parse are then given to
//! `memlens search` on the scratch store, in each engine, as the command line gives them.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use memlens::search::command::{SearchArgs, run};
use memlens::search::request::{Engine, Filters};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut filters = Filters::default();
    let mut good = Vec::new();
    for arg in text.lines() {
        if filters.apply_arg(arg).is_ok() {
            good.push(arg.to_string());
        }
    }
    for engine in Engine::ALL {
        let args = SearchArgs {
            engine,
            mode: None,
            sort_field: None,
            order: None,
            filters: good.clone(),
            limit: 50,
            offset: 0,
            track: false,
            seed: None,
            json: true,
            query: vec!["stored".into()],
        };
        let mut out = Vec::new();
        let _ = run(common::store(), &args, &mut out);
    }
});
