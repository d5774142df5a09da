#!/usr/bin/env python3
# Usage: scripts/mcp_latency.py BIN STORE CALLS [SETTLE]  (a store made by `memlens import`).
# Times tool calls through `memlens mcp` (raw JSON-RPC over stdio) against the same
# request from the CLI, on a store of N generated memories. Prints p50/p95 in ms.
# The server loads its index in the background when it starts and answers from the
# index on disk meanwhile: the first call is timed alone, then SETTLE seconds (default
# 5) pass before the calls that are summed.
import json, subprocess, sys, time, random, os
BIN, DB, CALLS = sys.argv[1], sys.argv[2], int(sys.argv[3])
SETTLE = float(sys.argv[4]) if len(sys.argv) > 4 else 5.0
p = subprocess.Popen([BIN, "mcp", "--db", DB], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
nid = [0]
def req(method, params):
    nid[0] += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": nid[0], "method": method, "params": params}) + "\n"); p.stdin.flush()
    while True:
        d = json.loads(p.stdout.readline())
        if d.get("id") == nid[0]: return d
req("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"); p.stdin.flush()
s = time.perf_counter(); req("tools/call", {"name": "remember_search_by", "arguments": {"mode": "byTime"}})
print(f"{'first call (index loading)':<30} {1e3 * (time.perf_counter() - s):8.1f} ms")
time.sleep(SETTLE)
def pct(xs, q):
    xs = sorted(xs); return xs[round((len(xs) - 1) * q)] * 1e3
cases = [
    ("mem_search literal", "mem_search", {"query": "river", "track": False}, ["search", "--json", "--limit=10", "river"]),
    ("mem_search lexical_rank", "mem_search", {"query": "river stone", "lexical_rank": True, "track": False}, ["search", "--json", "--limit=10", "--engine=bm25", "river", "stone"]),
    ("search_by byTime", "remember_search_by", {"mode": "byTime"}, ["search", "--json", "--limit=10", "--mode=time"]),
    ("search_by byProperty weight", "remember_search_by", {"mode": "byProperty", "sort_field": "weight"}, ["search", "--json", "--limit=10", "--mode=property", "--sort-field=weight"]),
    ("search_by byRandom", "remember_search_by", {"mode": "byRandom", "seed": 1}, ["search", "--json", "--limit=10", "--mode=random", "--seed=1"]),
]
# the two searches also run with a different query at each call (an answer kept from
# the previous identical call does not help them)
WORDS = ["river", "migration", "schema", "deploy", "cache", "token", "retry", "index",
         "config", "stone", "webhook", "ledger", "timeout", "queue", "branch", "build",
         "session", "review", "error", "test"]
cases += [
    ("mem_search literal, varied", "mem_search", None, ["search", "--json", "--limit=10", "migration"]),
    ("mem_search lexical, varied", "mem_search", "bm25", ["search", "--json", "--limit=10", "--engine=bm25", "migration", "cache"]),
]
for label, tool, args, flags in cases:
    t = []
    for i in range(CALLS):
        if args is None or args == "bm25":
            a = {"query": f"{WORDS[i % 20]} {WORDS[(i * 7 + 3) % 20]}" if args else WORDS[i % 20], "track": False}
            if args:
                a["lexical_rank"] = True
        else:
            a = args
        s = time.perf_counter(); r = req("tools/call", {"name": tool, "arguments": a}); t.append(time.perf_counter() - s)
        assert not r["result"].get("isError"), r
    c = []
    for _ in range(max(5, CALLS // 5)):
        s = time.perf_counter(); subprocess.run([BIN] + flags + ["--db", DB], check=True, stdout=subprocess.DEVNULL); c.append(time.perf_counter() - s)
    print(f"{label:<30} server p50 {pct(t,.5):8.1f} p95 {pct(t,.95):8.1f}   CLI p50 {pct(c,.5):8.1f} p95 {pct(c,.95):8.1f}  ms")
cr, seen = [], []
for i in range(20):
    s = time.perf_counter()
    r = req("tools/call", {"name": "remember_create_memory", "arguments": {"id": f"bench-{os.getpid()}-{i}", "content": "new"}})
    cr.append(time.perf_counter() - s)
    subprocess.run([BIN, "get", f"bench-{os.getpid()}-{i}", "--json", "--db", DB], check=True, stdout=subprocess.DEVNULL)
    seen.append(time.perf_counter() - s)
after = []
for i in range(20):
    req("tools/call", {"name": "remember_create_memory", "arguments": {"id": f"then-{os.getpid()}-{i}", "content": "written, then searched"}})
    s = time.perf_counter()
    req("tools/call", {"name": "mem_search", "arguments": {"query": "river", "track": False}})
    after.append(time.perf_counter() - s)
print(f"{'mem_search after a create':<30} server p50 {pct(after,.5):8.1f} p95 {pct(after,.95):8.1f}  ms")
print(f"{'create (durable)':<30} server p50 {pct(cr,.5):8.1f} p95 {pct(cr,.95):8.1f}  ms")
print(f"{'create -> get in 3rd process':<30}        p50 {pct(seen,.5):8.1f} p95 {pct(seen,.95):8.1f}  ms")
p.stdin.close(); p.wait()
