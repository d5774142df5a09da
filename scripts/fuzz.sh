#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ in turn, one core at a time, at the lowest priority:
# RUNS executions each (default 1,500,000), libFuzzer's memory limit 512 MB and 10 s per
# input. New inputs go to fuzz/target/corpus/<target> (not committed), the log to
# fuzz/target/fuzz-<target>.log; the seeds in
# fuzz/corpus/<target> are read, never written. A crash stops the run, its input in
# fuzz/artifacts/<target>/. Needs a nightly toolchain and `cargo install cargo-fuzz`.
#
#   scripts/fuzz.sh                      # every target
#   RUNS=100000 scripts/fuzz.sh filter   # some targets, fewer executions
set -eu
cd "$(dirname "$0")/../fuzz"
RUNS=${RUNS:-1500000}
TARGETS=("$@")
if [ "${#TARGETS[@]}" -eq 0 ]; then
    TARGETS=(import_jsonl import_hivelore import_mcp_memory import_openmemory detect_format
             filter config)
fi
cargo +nightly fuzz build
for t in "${TARGETS[@]}"; do
    mkdir -p "target/corpus/$t"
    echo "== $t: $RUNS executions"
    log="target/fuzz-$t.log"
    if ! nice -n 19 cargo +nightly fuzz run "$t" "target/corpus/$t" "corpus/$t" -- \
        -runs="$RUNS" -rss_limit_mb=512 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "== $t FAILED (log: fuzz/$log)"
        exit 1
    fi
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^Done" "$log" || true
done
