#!/usr/bin/env python3
# Usage: scripts/browser_latency.py BIN STORE [CREATES]
# The time from an agent's write to the open browser showing it: the browser runs on
# STORE in tmux (160x40); once its index has loaded, an agent creates CREATES memories
# (default 20) through its own `memlens mcp` (raw JSON-RPC over stdio), and the screen
# is read every 10 ms until each new memory's title is in the list (the newest memory
# is first in the time order the browser opens on). Also times an agent's update of a
# memory already on the screen. Prints p50/p95 in ms. Needs tmux.
import json, os, subprocess, sys, time

import tmux_screen

BIN, DB = sys.argv[1], sys.argv[2]
CREATES = int(sys.argv[3]) if len(sys.argv) > 3 else 20
SESSION = f"memlens-latency-{os.getpid()}"


def wait_for(pred, limit):
    return tmux_screen.wait_for(SESSION, pred, limit)


subprocess.run(["tmux", "new-session", "-d", "-s", SESSION, "-x", "160", "-y", "40",
                f"{BIN} --db {DB}"], check=True)
try:
    opened = time.perf_counter()
    wait_for(lambda t: " match" in t and "loading" not in t, 120)
    print(f"browser open and its index loaded after {time.perf_counter() - opened:.1f} s")
    agent = subprocess.Popen([BIN, "mcp", "--db", DB], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)
    nid = [0]

    def call(method, params):
        nid[0] += 1
        agent.stdin.write(json.dumps({"jsonrpc": "2.0", "id": nid[0], "method": method,
                                      "params": params}) + "\n")
        agent.stdin.flush()
        while True:
            d = json.loads(agent.stdout.readline())
            if d.get("id") == nid[0]:
                return d

    call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "latency", "version": "1"}})
    agent.stdin.write(json.dumps({"jsonrpc": "2.0",
                                  "method": "notifications/initialized"}) + "\n")
    agent.stdin.flush()

    def pct(xs, q):
        xs = sorted(xs)
        return xs[round((len(xs) - 1) * q)] * 1e3

    acked, shown = [], []
    for i in range(CREATES):
        title = f"Latency probe {os.getpid()} number {i}"
        start = time.perf_counter()
        r = call("tools/call", {"name": "remember_create_memory",
                                "arguments": {"content": f"probe {i}", "title": title}})
        assert not r["result"].get("isError"), r
        acked.append(time.perf_counter() - start)
        seen = wait_for(lambda t: title in t, 30)
        shown.append(seen - start)
        time.sleep(0.3)
    last = json.loads(r["result"]["content"][0]["text"])["memory_id"]
    updated = []
    for i in range(max(5, CREATES // 2)):
        title = f"Latency probe retitled {i}"
        start = time.perf_counter()
        call("tools/call", {"name": "remember_update_memory",
                            "arguments": {"memory_id": last, "title": title}})
        updated.append(wait_for(lambda t: title in t, 30) - start)
        time.sleep(0.3)
    agent.stdin.close()
    agent.wait()
    print(f"create acknowledged      p50 {pct(acked, .5):8.1f} p95 {pct(acked, .95):8.1f} ms")
    print(f"create → shown           p50 {pct(shown, .5):8.1f} p95 {pct(shown, .95):8.1f} ms")
    print(f"update → shown           p50 {pct(updated, .5):8.1f} p95 {pct(updated, .95):8.1f} ms")
    print("target (SPEC §6): an agent's change shown in the open browser within 1 s")
finally:
    subprocess.run(["tmux", "kill-session", "-t", SESSION])
