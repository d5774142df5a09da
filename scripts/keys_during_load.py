#!/usr/bin/env python3
# Usage: scripts/keys_during_load.py BIN STORE [RUNS]
# The time from a key pressed while the browser's in-memory index is still loading to
# the screen showing its answer: the browser opens on STORE in tmux (160x40); once its
# first screen is up (the status line says it is loading), one key is sent — a tab
# switch (3 Density, 4 Rating, 5 Discovery), a filter step (the weight slider's lower
# bound, in the open filter panel), or an engine change with a query typed (to bm25;
# to fuzzy after the change to bm25 was answered) — and the
# screen is read until the status line shows the new answer's match count or time.
# Each key gets a fresh browser, RUNS times (default 5), and the answer counts only if
# the status line still says "loading" when it appears.
# Prints median and max in ms per key. Needs tmux. Reading the screen this way (one
# `tmux capture-pane` after another) keeps one core busy, which slows the browser on a
# two-core machine; `MEMLENS_BENCH_ROWS=browser cargo bench --bench requests` times the
# same keys in a pty without that cost.
import os, re, statistics, subprocess, sys, time

import tmux_screen

BIN, DB = sys.argv[1], sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
SESSION = f"memlens-keys-{os.getpid()}"


def status(text):
    lines = [l for l in text.splitlines() if " matches" in l or " match " in l]
    return lines[-1] if lines else ""


def count(line):
    found = re.search(r"(\d+) match", line)
    return found.group(1) if found else None


def send(*keys):
    subprocess.run(["tmux", "send-keys", "-t", SESSION, *keys], check=True)


def one(prepare, key, changed):
    subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "160", "-y", "40",
                    f"{BIN} --db {DB}"], check=True)
    try:
        tmux_screen.wait_for(SESSION, lambda t: "loading" in status(t), 30)
        before = tmux_screen.screen(SESSION)
        prepare(before)
        before = tmux_screen.screen(SESSION)
        pressed = time.perf_counter()
        send(key)
        while True:
            now = tmux_screen.screen(SESSION)
            if changed(before, now):
                shown = time.perf_counter()
                return (shown - pressed) * 1e3, "loading" in status(now)
            if time.perf_counter() - pressed > 30:
                raise SystemExit(f"no answer; screen:\n{now}")
    finally:
        pid = subprocess.run(["tmux", "display", "-p", "-t", SESSION, "#{pane_pid}"],
                             capture_output=True, text=True).stdout.strip()
        subprocess.run(["tmux", "kill-session", "-t", SESSION])
        # the browser gone (its load ended) before the next one opens
        while pid and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.05)
        time.sleep(0.3)


def rows(text):
    return [l[:70] for l in text.splitlines()[5:12]]


def tab(name):
    # the list's first rows and the status line (the answer's time) show the new answer
    return lambda b, n: status(n) != status(b) and rows(n) != rows(b)


def nothing(_):
    pass


def typed(word):
    def prepare(before):
        send("/")
        send("-l", word)
        # the query's own answer first (the match count changes), the load still going
        tmux_screen.wait_for(SESSION, lambda t: word in t and "loading" in status(t)
                             and count(status(t)) != count(status(before)), 30)
    return prepare


def typed_then(word, key):
    # the query typed and answered, then `key` pressed and answered, the load still going
    def prepare(before):
        typed(word)(before)
        shown = tmux_screen.screen(SESSION)
        send(key)
        tmux_screen.wait_for(SESSION, lambda t: status_changed(shown, t)
                             and "loading" in status(t), 30)
    return prepare


def weight_slider(before):
    # the filter panel open with the weight slider chosen (the panel's histograms
    # asked for as it opens), the load still going
    send("f")
    tmux_screen.wait_for(SESSION, lambda t: "Filters" in t, 30)
    send(*(["j"] * 8))
    tmux_screen.wait_for(SESSION, lambda t: "▸weight" in t and "loading" in status(t), 30)


def status_changed(b, n):
    # a new answer's status line (while the search runs the status line holds no count)
    return status(n) != "" and status(n) != status(b)


# a session of its own keeps the tmux server up between the browsers
subprocess.run(["tmux", "new-session", "-d", "-s", SESSION + "-keep"], check=True)
cases = [
    ("tab switch → Density", nothing, "3", tab("Density")),
    ("tab switch → Rating", nothing, "4", tab("Rating")),
    ("tab switch → Discovery", nothing, "5", tab("Discovery")),
    ("filter step → weight ≥ 0.05", weight_slider, "l", status_changed),
    ("engine change → bm25 (water)", typed("water"), "C-t", status_changed),
    ("engine change → fuzzy (water)", typed_then("water", "C-t"), "C-t", status_changed),
]
for name, prepare, key, changed in cases:
    times, during = [], 0
    for _ in range(RUNS):
        ms, loading = one(prepare, key, changed)
        times.append(ms)
        during += loading
    print(f"| {name} | {statistics.median(times):.0f} | {max(times):.0f} | {during} of {RUNS} |",
          flush=True)
subprocess.run(["tmux", "kill-session", "-t", SESSION + "-keep"])
