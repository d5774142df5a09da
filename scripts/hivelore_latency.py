#!/usr/bin/env python3
# Usage: scripts/hivelore_latency.py BIN FILES [WRITES]
# The time from a memory file written by another process to the open browser showing
# it, on a hivelore project of FILES memory files (the fixtures in
# ../shared/fixtures/hivelore copied under new ids into a temporary project). The
# browser runs `BIN --hivelore PROJECT` in tmux (160x40); once its index is loaded,
# WRITES new files (default 10) are written as an agent's `mem_save` would, then one
# existing file is edited WRITES times, and the screen is read every 10 ms until each
# change is on it (the newest memory is first in the time order the browser opens on).
# Prints p50/p95/max in ms. Needs tmux.
import os, pathlib, shutil, subprocess, sys, tempfile, time

import tmux_screen

BIN, FILES = sys.argv[1], int(sys.argv[2])
WRITES = int(sys.argv[3]) if len(sys.argv) > 3 else 10
HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent.parent / "shared/fixtures/hivelore/memories"
SESSION = f"memlens-hl-latency-{os.getpid()}"

texts = []
for p in sorted(FIXTURES.glob("*.md")):
    t = p.read_text()
    if f"\nid: {p.stem}\n" in t:
        texts.append((p.stem, t))
root = pathlib.Path(tempfile.mkdtemp(prefix="memlens-hl-latency-"))
team = root / ".ai/memories/team"
team.mkdir(parents=True)
for i in range(FILES):
    stem, t = texts[i % len(texts)]
    new = stem if i < len(texts) else f"{stem}-copy{i // len(texts)}"
    (team / f"{new}.md").write_text(t.replace(f"\nid: {stem}\n", f"\nid: {new}\n", 1))


def wait_for(pred, limit):
    return tmux_screen.wait_for(SESSION, pred, limit)


def memory(mid, line):
    return (f"---\nid: {mid}\nscope: team\ntype: gotcha\nstatus: draft\n"
            f"created_at: '2099-01-01T00:00:{len(line) % 60:02d}.000Z'\n---\n{line}\n")


def pct(xs, q):
    xs = sorted(xs)
    return xs[round((len(xs) - 1) * q)] * 1e3


subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "160", "-y", "40",
                f"{BIN} --hivelore {root}"], check=True)
try:
    opened = time.perf_counter()
    wait_for(lambda t: " match" in t and "loading" not in t, 600)
    print(f"{FILES} files: browser open and its index loaded after "
          f"{time.perf_counter() - opened:.1f} s")
    added, edited = [], []
    for i in range(WRITES):
        line = f"Live probe {os.getpid()} number {i}"
        path = team / f"2099-01-01-gotcha-live-probe-{i}.md"
        start = time.perf_counter()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(memory(path.stem, line))
        os.replace(tmp, path)  # as hivelore writes: whole, then renamed
        added.append(wait_for(lambda t: line in t, 30) - start)
        time.sleep(0.3)
    probe = team / "2099-01-01-gotcha-live-probe-0.md"
    for i in range(WRITES):
        line = f"Live probe edited {os.getpid()} round {i}"
        start = time.perf_counter()
        tmp = probe.with_suffix(".tmp")
        tmp.write_text(memory(probe.stem, line))
        os.replace(tmp, probe)
        edited.append(wait_for(lambda t: line in t, 30) - start)
        time.sleep(0.3)
    for name, xs in (("file added → shown ", added), ("file edited → shown", edited)):
        print(f"{name}  p50 {pct(xs, .5):7.1f}  p95 {pct(xs, .95):7.1f}  "
              f"max {max(xs) * 1e3:7.1f} ms")
    print("target (issue): within a second")
finally:
    subprocess.run(["tmux", "kill-session", "-t", SESSION])
    shutil.rmtree(root, ignore_errors=True)
