//! The allocator of the `memlens` program, in a real process: chosen by
//! `MEMLENS_ALLOCATOR` when the process starts, and used for every allocation after.

use memlens::allocator::{ALLOCATOR_ENV, Allocator, MIMALLOC, in_use};

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// Set in the runs of this test binary that check one choice: the allocator it expects.
const EXPECTED: &str = "MEMLENS_TEST_EXPECTED_ALLOCATOR";

/// Runs this test alone in a new process of this binary, with the allocator variable
/// set to `value` (or unset), expecting `expected` to be in use there.
fn run_alone(value: Option<&str>, expected: &str) {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "the_allocator_is_the_one_the_process_started_with",
        "--nocapture",
    ])
    .env(EXPECTED, expected)
    .env_remove(ALLOCATOR_ENV);
    if let Some(value) = value {
        cmd.env(ALLOCATOR_ENV, value);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{value:?}: {text}");
    assert!(text.contains("1 passed"), "{value:?}: {text}");
}

#[test]
fn the_allocator_is_the_one_the_process_started_with() {
    match std::env::var(EXPECTED) {
        Ok(expected) => {
            // this process allocated long before this line: the choice is made
            let strings: Vec<String> = (0..10_000).map(|i| i.to_string()).collect();
            assert_eq!(strings[9_999], "9999");
            assert_eq!(in_use(), expected);
        }
        Err(_) => {
            run_alone(Some(MIMALLOC), MIMALLOC);
            run_alone(Some("system"), "system");
            run_alone(None, "system");
        }
    }
}
