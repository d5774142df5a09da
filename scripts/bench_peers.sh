#!/usr/bin/env bash
# Installs the peers and the text sources the memlens benchmarks compare against:
# fortunes and wordnet (corpus text), fzf, sqlite3 (FTS5), hyperfine, ripgrep, and
# tantivy-py. Idempotent: already-installed packages are left alone. Run as root.
# Prints the version of every peer at the end; a peer that cannot be installed is
# reported and skipped, never fatal.
set -u

export DEBIAN_FRONTEND=noninteractive
APT_PACKAGES=(fortunes fortunes-min wordnet-base wamerican fzf sqlite3 hyperfine ripgrep)

if [ "$(id -u)" -ne 0 ]; then
    echo "bench_peers: not root; skipping apt-get (run as root to install packages)" >&2
else
    missing=()
    for p in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$p")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        apt-get update -qq || echo "bench_peers: apt-get update failed" >&2
        for p in "${missing[@]}"; do
            apt-get install -y -qq --no-install-recommends "$p" >/dev/null \
                || echo "bench_peers: could not install $p (continuing)" >&2
        done
    fi
fi

PYTHON=${PYTHON:-python3}
if "$PYTHON" -c 'import tantivy' 2>/dev/null; then
    :
elif "$PYTHON" -m pip install --quiet tantivy 2>/dev/null \
    || "$PYTHON" -m pip install --quiet --break-system-packages tantivy 2>/dev/null; then
    :
else
    echo "bench_peers: tantivy-py is not installable here (pip install tantivy failed); tantivy rows will say 'peer missing'" >&2
fi

echo "peer versions:"
version() {
    local name=$1
    shift
    local v
    if v=$("$@" 2>/dev/null | head -n 1) && [ -n "$v" ]; then
        printf '  %-10s %s\n' "$name" "$v"
    else
        printf '  %-10s missing\n' "$name"
    fi
}
version fzf fzf --version
version sqlite3 sqlite3 -version
version hyperfine hyperfine --version
version ripgrep rg --version
version grep grep --version
version tantivy "$PYTHON" -c 'import importlib.metadata as m; print("tantivy-py", m.version("tantivy"))'
version python "$PYTHON" --version
printf '  %-10s %s\n' fortunes "$(ls /usr/share/games/fortunes 2>/dev/null | grep -vc '\.')"
printf '  %-10s %s\n' wordnet "$(ls /usr/share/wordnet/data.* 2>/dev/null | wc -l) data files"
