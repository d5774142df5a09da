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

/// Set in the run of this test binary that checks where huge pages are advised.
const ADVISE: &str = "MEMLENS_TEST_ADVISE_HUGE_PAGES";

/// The `VmFlags` of the mapping of this process that holds `address`.
#[cfg(target_os = "linux")]
fn flags_at(address: usize) -> String {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut holds = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ')
            && let Some((from, to)) = range.split_once('-')
            && let (Ok(from), Ok(to)) = (
                usize::from_str_radix(from, 16),
                usize::from_str_radix(to, 16),
            )
        {
            holds = (from..to).contains(&address);
        } else if holds && let Some(flags) = line.strip_prefix("VmFlags:") {
            return flags.trim().to_string();
        }
    }
    panic!("no mapping holds {address:#x}");
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn huge_pages_are_advised_for_large_blocks() {
    if std::env::var_os(ADVISE).is_none() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            eprintln!("skipped: this kernel has no transparent huge pages");
            return;
        }
        // alone in a process of its own: the advice lasts as long as the process
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "huge_pages_are_advised_for_large_blocks",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ADVISE, "1")
            .env_remove(ALLOCATOR_ENV)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("1 passed"), "{text}");
        return;
    }
    let huge = |flags: &str| flags.split_whitespace().any(|f| f == "hg");
    // before: neither a large block nor the heap is advised
    let before = vec![1u8; 8 << 20];
    assert!(!huge(&flags_at(before.as_ptr() as usize + (4 << 20))));
    assert!(memlens::allocator::use_huge_pages());
    // a large block: the huge pages within it (the heap's growth is checked in a real
    // request, in tests/cli.rs, where the main thread allocates)
    let block = vec![1u8; 8 << 20];
    assert!(huge(&flags_at(block.as_ptr() as usize + (4 << 20))));
    drop((before, block));
}
