#!/usr/bin/env bash
# Runs the official MCP Inspector (npm @modelcontextprotocol/inspector) in its CLI mode
# against `memlens mcp`: lists the tools, calls mem_search and remember_search_by, and
# makes one call memlens must refuse. Its answers are kept in tests/mcp_support/inspector/
# so that `cargo test` (tests/mcp_inspector.rs) checks memlens against them without a
# network. Needs node and npm; installs the inspector into $INSPECTOR_DIR (default: a
# cache directory under target/).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA="$ROOT/tests/mcp_support/inspector"
INSPECTOR_DIR=${INSPECTOR_DIR:-"$ROOT/target/mcp-inspector"}

cargo build --quiet --manifest-path "$ROOT/Cargo.toml"
BIN="$ROOT/target/debug/memlens"

mkdir -p "$INSPECTOR_DIR"
if [ ! -x "$INSPECTOR_DIR/node_modules/.bin/mcp-inspector" ]; then
    (cd "$INSPECTOR_DIR" && npm init -y >/dev/null && npm install --silent @modelcontextprotocol/inspector)
fi
INSPECTOR="$INSPECTOR_DIR/node_modules/.bin/mcp-inspector"
VERSION=$(node -p "require('$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector/package.json').version")

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
DB="$WORK/store.redb"
"$BIN" import --db "$DB" "$DATA/memories.jsonl" >/dev/null

inspect() {
    "$INSPECTOR" --cli "$BIN" mcp --db "$DB" "$@"
}

inspect --method tools/list >"$DATA/tools_list.json"
inspect --method tools/call --tool-name mem_search \
    --tool-arg query=fox --tool-arg track=false >"$DATA/mem_search.json"
inspect --method tools/call --tool-name remember_search_by \
    --tool-arg mode=byTime --tool-arg limit=2 >"$DATA/search_by.json"
inspect --method tools/call --tool-name mem_search \
    --tool-arg query=fox --tool-arg semantic=true >"$DATA/semantic.json"
echo "$VERSION" >"$DATA/inspector_version.txt"

echo "mcp_inspector: inspector $VERSION; answers written to $DATA"
jq -r '.tools[].name' "$DATA/tools_list.json" 2>/dev/null || true
