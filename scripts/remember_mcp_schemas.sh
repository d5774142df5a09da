#!/usr/bin/env bash
# Regenerates tests/reference/remember_mcp_schemas.json from remember-mcp's own code:
# installs @prmichaelsen/remember-mcp (and the remember-core it depends on) from npm into a
# scratch directory (nothing installed is kept or committed) and runs
# scripts/remember_mcp_schemas.mjs there, which asks remember-mcp's MCP server for its
# tools and remember-core for what it does with their arguments. `cargo test --test
# remember_mcp_schema` then checks memlens's model and tools against that file, without npm.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund @prmichaelsen/remember-mcp@4.1.0 >/dev/null
cp "$repo/scripts/remember_mcp_schemas.mjs" "$work/"
mkdir -p "$repo/tests/reference"
node "$work/remember_mcp_schemas.mjs" "$repo/tests/reference"
echo "wrote $repo/tests/reference/remember_mcp_schemas.json"
