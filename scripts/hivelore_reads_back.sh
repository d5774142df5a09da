#!/usr/bin/env bash
# What the real hivelore serves from a project memlens has curated in place.
#
# Copies the shared fixtures into a fresh project, runs every memlens command of
# tests/data/hivelore_verbs.txt on it with --hivelore, then loads the project with
# hivelore's own code (packages/core: loader.ts, parser.ts, usage.ts,
# memory-lifecycle.ts, run through tsx with its gray-matter and zod) and writes, per
# memory: id, status, related_ids, read_count (usage.json) and whether hivelore
# retires it. The output is kept as tests/data/hivelore_served.json, which
# tests/hivelore_served.rs holds memlens's own reading of the same project to.
#
# Needs node ≥ 20, npm and network (or HIVELORE_SRC pointing to a hivelore checkout).
# Usage: scripts/hivelore_reads_back.sh [OUT.json]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/tests/data/hivelore_served.json}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

src="${HIVELORE_SRC:-}"
if [ -z "$src" ]; then
  git clone --quiet --depth 1 https://github.com/Doucs91/hivelore "$work/hivelore"
  src="$work/hivelore"
fi
mkdir -p "$work/reader/core"
cp -r "$src/packages/core/src/." "$work/reader/core/"
(cd "$work/reader" && npm init -y >/dev/null && npm install --silent gray-matter zod@3 tsx >/dev/null)
cat > "$work/reader/read.mts" <<'TS'
import { loadMemoriesFromDirDetailed } from "./core/loader.js";
import { loadUsageIndex, getUsage } from "./core/usage.js";
import { isRetiredMemory } from "./core/memory-lifecycle.js";
const root = process.argv[2]!;
const paths = { root, haiveDir: `${root}/.ai`, memoriesDir: `${root}/.ai/memories` } as any;
const { loaded, invalid } = await loadMemoriesFromDirDetailed(paths.memoriesDir);
const usage = await loadUsageIndex(paths);
const rows = loaded
  .map(({ memory }) => ({
    id: memory.frontmatter.id,
    status: memory.frontmatter.status,
    related_ids: memory.frontmatter.related_ids,
    read_count: getUsage(usage, memory.frontmatter.id).read_count,
    retired: isRetiredMemory(memory.frontmatter, memory.body, new Date("2026-12-01T00:00:00Z")),
  }))
  .sort((a, b) => (a.id < b.id ? -1 : 1));
console.log(JSON.stringify({ invalid: invalid.length, memories: rows }, null, 1));
TS

project="$work/project"
mkdir -p "$project/.ai/memories/team"
cp "$here/../shared/fixtures/hivelore/memories/"*.md "$project/.ai/memories/team/"
(cd "$here" && cargo build --quiet)
while read -r line; do
  [ -z "$line" ] && continue
  # shellcheck disable=SC2086
  "$here/target/debug/memlens" --hivelore "$project" $line >/dev/null
done < "$here/tests/data/hivelore_verbs.txt"
(cd "$work/reader" && npx tsx read.mts "$project") > "$out"
echo "wrote $out"
