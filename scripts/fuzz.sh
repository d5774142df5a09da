#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ in turn, one core at a time, at the lowest priority,
# with libFuzzer's memory limit of 512 MB and 10 s per input. By default each target
# gets its share of 10,000,000 executions in all, by its speed (the slow importers
# fewer, the filter and config parsers more); RUNS=N gives every target N instead.
# New inputs go to fuzz/target/corpus/<target> (not committed), the log to
# fuzz/target/fuzz-<target>.log; the seeds in fuzz/corpus/<target> are read, never
# written. A crash, a timeout or running out of memory stops the run, its input in
# fuzz/artifacts/<target>/. At the end: each target's executions, executions per
# second and peak resident memory, and the total.
# Needs a nightly toolchain and `cargo install cargo-fuzz`.
#
#   scripts/fuzz.sh                      # every target, 10M executions in all
#   RUNS=100000 scripts/fuzz.sh filter   # some targets, this many executions each
set -eu
cd "$(dirname "$0")/../fuzz"
declare -A SHARE=(
    [import_jsonl]=600000
    [import_hivelore]=600000
    [import_mcp_memory]=600000
    [import_openmemory]=600000
    [detect_format]=600000
    [filter]=1000000
    [config]=6000000
)
ALL=(import_jsonl import_hivelore import_mcp_memory import_openmemory detect_format filter
     config)
TARGETS=("$@")
if [ "${#TARGETS[@]}" -eq 0 ]; then
    TARGETS=("${ALL[@]}")
fi
cargo +nightly fuzz build -s none
final_stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }
summary=()
total=0
for t in "${TARGETS[@]}"; do
    runs=${RUNS:-${SHARE[$t]:?unknown target $t}}
    mkdir -p "target/corpus/$t"
    echo "== $t: $runs executions"
    log="target/fuzz-$t.log"
    if ! nice -n 19 cargo +nightly fuzz run -s none "$t" "target/corpus/$t" "corpus/$t" -- \
        -runs="$runs" -rss_limit_mb=512 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "== $t FAILED (log: fuzz/$log)"
        exit 1
    fi
    units=$(final_stat number_of_executed_units "$log")
    line=$(printf '%-18s %12s executions %8s/s  peak RSS %4s MB' "$t" "$units" \
        "$(final_stat average_exec_per_sec "$log")" "$(final_stat peak_rss_mb "$log")")
    echo "$line"
    summary+=("$line")
    total=$((total + units))
done
echo "== summary"
printf '%s\n' "${summary[@]}"
printf '%-18s %12s executions\n' total "$total"
