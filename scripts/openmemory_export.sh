#!/usr/bin/env bash
# Regenerates tests/reference/openmemory_export.zip (and its tables-only variant) with
# OpenMemory's own code: mem0's openmemory/api at a pinned commit, taken from a git
# checkout of mem0 given as the argument or else downloaded, run in a scratch virtualenv
# by scripts/openmemory_export.py (nothing fetched or installed is kept or committed).
# `cargo test --test clients` then imports the zip as downloaded.
#   scripts/openmemory_export.sh [MEM0_GIT_DIR]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
# The last commit of mem0 with OpenMemory in it (it left the repository after this).
commit=540d23d610fcdc9a1f8795875c013af67d35ae93
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ $# -ge 1 ]; then
  git -C "$1" archive "$commit" openmemory/api | tar -x -C "$work"
else
  curl -fsSL "https://codeload.github.com/mem0ai/mem0/tar.gz/$commit" |
    tar -xz -C "$work" --strip-components=1 "mem0-$commit/openmemory/api"
fi
python3 -m venv "$work/venv"
# What openmemory/api/requirements.txt asks for to import the app and run its export
# (its database drivers, LLM clients and test tools left out), at versions known to work.
"$work/venv/bin/pip" install -q \
  fastapi==0.165.0 sqlalchemy==2.1.9 python-dotenv==1.2.4 python-multipart==0.0.34 \
  fastapi-pagination==0.16.1 mem0ai==2.2.1 openai==3.57.0 "mcp[cli]==1.30.0" \
  tenacity==9.2.1 httpx==0.29.0
mkdir -p "$repo/tests/reference"
cd "$work/openmemory/api"
"$work/venv/bin/python" "$repo/scripts/openmemory_export.py" \
  "$repo/tests/reference/openmemory_export.zip"
