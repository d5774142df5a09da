#!/usr/bin/env bash
# Regenerates screenshots/*.png: runs the real browser on the demo store in tmux at
# 120×40 and 80×24, drives it with keys (browse, query, the Random tab, filters, help,
# the editor, each review queue with the side-by-side duplicate pair),
# captures each screen with its colours and renders it to PNG (Python + Pillow +
# DejaVu Sans Mono).
#
#   scripts/screenshots.sh            (installs tmux, Pillow and the font when missing)
#
# MEMLENS_BIN=path overrides the program; it is run as `$MEMLENS_BIN demo --db FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v tmux >/dev/null || need_apt+=(tmux)
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf
[ -f "$FONT" ] || need_apt+=(fonts-dejavu-core)
if [ ${#need_apt[@]} -gt 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
fi
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install --quiet pillow

if [ -z "${MEMLENS_BIN:-}" ]; then
    if grep -q "tui::run" src/main.rs src/commands/*.rs 2>/dev/null; then
        cargo build --quiet --bin memlens
        MEMLENS_BIN=target/debug/memlens
    else
        # until `memlens demo` opens the browser: the same browser on the same demo store
        cargo build --quiet --example tui
        MEMLENS_BIN=target/debug/examples/tui
    fi
fi

work=$(mktemp -d)
trap 'tmux kill-session -t memlens-shots 2>/dev/null || true; rm -rf "$work"' EXIT

keys() { tmux send-keys -t memlens-shots "$@"; sleep 0.4; }
shot() { tmux capture-pane -t memlens-shots -e -p >"$work/$1.ansi"; \
         python3 scripts/render_ansi.py "$work/$1.ansi" "screenshots/$1.png" "$2" "$3"; \
         echo "screenshots/$1.png"; }

for size in 120x40 80x24; do
    w=${size%x*}; h=${size#*x}
    tmux kill-session -t memlens-shots 2>/dev/null || true
    tmux new-session -d -s memlens-shots -x "$w" -y "$h" \
        "env COLORTERM=truecolor TERM=xterm-256color XDG_CONFIG_HOME=$work/config $MEMLENS_BIN demo --db $work/demo-$size.redb 2>$work/stderr-$size"
    sleep 2
    keys j j j
    shot "browse_$size" "$w" "$h"
    keys / w e b h o o k
    shot "query_$size" "$w" "$h"
    keys C-u
    keys Escape
    # the Random tab: a draw from every memory
    keys 7
    sleep 1
    shot "random_$size" "$w" "$h"
    keys 1
    keys f
    for _ in $(seq 8); do keys j; done
    keys l l l l H H H
    for _ in $(seq 11); do keys j; done
    keys l l l l
    shot "filters_$size" "$w" "$h"
    keys Escape
    keys '?'
    shot "help_$size" "$w" "$h"
    keys q
    # the editor on the selected memory: a word typed into the body, not saved
    keys e
    keys BTab
    keys R e v i e w e d : Space
    shot "editor_$size" "$w" "$h"
    keys Escape
    keys y
    keys q
    sleep 1
    # the review queues, on the demo store (its memories that wait for a person come
    # from assets/review_demo.jsonl: approvals, agent-validated ones, a conflict)
    tmux kill-session -t memlens-shots 2>/dev/null || true
    tmux new-session -d -s memlens-shots -x "$w" -y "$h" \
        "env COLORTERM=truecolor TERM=xterm-256color XDG_CONFIG_HOME=$work/config $MEMLENS_BIN --db $work/demo-$size.redb 2>$work/stderr-review-$size"
    sleep 2
    keys 8
    sleep 1
    shot "review_pending_$size" "$w" "$h"
    # each queue is listed off the screen's loop: give it a second
    keys '{'; sleep 1
    shot "review_approval_$size" "$w" "$h"
    keys '}' '}'; sleep 1
    shot "review_agent_$size" "$w" "$h"
    keys '}'; sleep 1
    shot "review_stale_$size" "$w" "$h"
    keys '}'; sleep 1
    keys j
    shot "review_duplicates_$size" "$w" "$h"
    keys '}'; sleep 1
    shot "review_conflicts_$size" "$w" "$h"
    keys q
done
