#!/bin/sh
# Near-duplicate detection on a labelled set at 100k and 1M memories (benches/duplicates.rs).
# Needs fortunes for part of the real text: installed here when missing (Debian).
set -e
cd "$(dirname "$0")/.."
if [ ! -d /usr/share/games/fortunes ]; then
    apt-get install -y fortunes >/dev/null
fi
for n in ${SIZES:-100000 1000000}; do
    MEMLENS_BENCH_N=$n cargo bench --bench duplicates
done
