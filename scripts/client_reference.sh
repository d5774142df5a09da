#!/usr/bin/env bash
# Regenerates tests/reference/ with the real clients' own code: installs the MCP reference
# memory server and remember-core from npm into a scratch directory (nothing installed is
# kept or committed) and runs scripts/client_reference.mjs there. `cargo test --test
# clients` then compares memlens's import with what these files say, without npm.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund \
  @modelcontextprotocol/server-memory@2026.8.31 \
  @modelcontextprotocol/sdk \
  @prmichaelsen/remember-core@1.0.1 >/dev/null
cp "$repo/scripts/client_reference.mjs" "$work/"
mkdir -p "$repo/tests/reference"
node "$work/client_reference.mjs" "$repo/tests/reference"
npm ls --depth=0 > "$repo/tests/reference/VERSIONS.txt"
echo "wrote $repo/tests/reference"
