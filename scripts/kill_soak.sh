#!/bin/sh
# Kills memlens writes (imports and curation verbs) thousands of times and checks after
# each kill that `memlens check` finds the store clean and that it is exactly as before
# or as after the write (tests/kill.rs, its ignored test).
#
#   scripts/kill_soak.sh [MINUTES] [KILLS]     default: 15 minutes, at most 100000 kills
#
# MEMLENS_KILL_SEED sets the seed. Runs under `nice -n 19`; prints a tally after every
# 40 kills and stops at the first kill that leaves the store damaged or half-written.
set -eu
cd "$(dirname "$0")/.."
minutes=${1:-15}
kills=${2:-100000}
MEMLENS_KILL_MINUTES=$minutes MEMLENS_KILLS=$kills \
  exec nice -n 19 cargo test --release --test kill -- --ignored --nocapture many_killed_writes
