#!/usr/bin/env python3
"""Independent BM25 reference for memlens (SPEC §3.2), fed memlens's own tokens.

Scores come from rank_bm25's BM25Okapi (pip package `rank_bm25`), whose score formula is
SPEC's  idf·tf·(k1+1)/(tf + k1·(1 − b + b·dl/avgdl))  with k1 = 1.2, b = 0.75. Its idf is
not SPEC's (it uses ln((N − df + 0.5)/(df + 0.5)) with an epsilon floor), so `_calc_idf`
is overridden with SPEC's  ln(1 + (N − df + 0.5)/(df + 0.5)).  When rank_bm25 cannot be
imported or installed, a plain implementation of the same formula is used instead and
the output says so.

Input (JSON lines):
  --docs FILE     {"id": "...", "tokens": ["...", ...]}   one per document
  --queries FILE  {"qid": 1, "tokens": ["...", ...]}      distinct tokens per query
Output:
  --out FILE      {"qid": 1, "scores": {"doc id": score, ...}}  scores > 0 only
  --qrels FILE    optional Cranfield qrels (query number 1..N in file order, doc id,
                  grade 1–4 with 1 best, -1 = of no interest): prints mean nDCG@10 and
                  recall@100 of the ranking score desc, then doc id asc.
Gains for nDCG: grade 1 → 4, 2 → 3, 3 → 2, 4 → 1, -1 → 0; DCG = Σ gain / log2(rank + 1).
"""
import argparse
import json
import math
import subprocess
import sys

K1 = 1.2
B = 0.75


def spec_idf(n, df):
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def load_rank_bm25():
    try:
        import rank_bm25  # noqa: F401
    except ImportError:
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "rank_bm25"]
        if subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) != 0:
            cmd.append("--break-system-packages")
            subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        return None

    class SpecBM25(BM25Okapi):
        """BM25Okapi with SPEC's idf (no epsilon floor: SPEC's idf is never negative)."""

        def _calc_idf(self, nd):
            for word, df in nd.items():
                self.idf[word] = spec_idf(self.corpus_size, df)

    return SpecBM25


def plain_scores(docs, query):
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    df = {}
    freqs = []
    for d in docs:
        f = {}
        for t in d:
            f[t] = f.get(t, 0) + 1
        freqs.append(f)
        for t in f:
            df[t] = df.get(t, 0) + 1
    out = []
    for d, f in zip(docs, freqs):
        s = 0.0
        for q in query:
            tf = f.get(q, 0)
            if tf:
                s += spec_idf(n, df[q]) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(d) / avgdl))
        out.append(s)
    return out


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def metrics(rankings, qrels_path):
    judged = {}
    with open(qrels_path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3:
                continue
            q, doc, grade = int(parts[0]), parts[1], int(parts[2])
            gain = 5 - grade if 1 <= grade <= 4 else 0
            judged.setdefault(q, {})[doc] = gain
    ndcg_sum, recall_sum, counted = 0.0, 0.0, 0
    for qid, ranking in rankings.items():
        gains = judged.get(qid, {})
        relevant = {d for d, g in gains.items() if g > 0}
        if not relevant:
            continue
        dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranking[:10]))
        ideal = sorted((g for g in gains.values() if g > 0), reverse=True)[:10]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        ndcg_sum += dcg / idcg
        recall_sum += len(relevant & set(ranking[:100])) / len(relevant)
        counted += 1
    return ndcg_sum / counted, recall_sum / counted, counted


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--docs", required=True)
    p.add_argument("--queries", required=True)
    p.add_argument("--out")
    p.add_argument("--qrels")
    p.add_argument("--plain", action="store_true", help="skip rank_bm25, use the plain formula")
    args = p.parse_args()
    docs = read_lines(args.docs)
    queries = read_lines(args.queries)
    ids = [d["id"] for d in docs]
    tokens = [d["tokens"] for d in docs]
    engine = None if args.plain else load_rank_bm25()
    model = engine(tokens, k1=K1, b=B) if engine else None
    print("reference: " + ("rank_bm25 BM25Okapi with SPEC idf" if model else "plain SPEC formula"),
          file=sys.stderr)
    rankings = {}
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    for q in queries:
        scores = list(model.get_scores(q["tokens"])) if model else plain_scores(tokens, q["tokens"])
        hits = {ids[i]: float(s) for i, s in enumerate(scores) if s > 0}
        rankings[q["qid"]] = [d for d, _ in sorted(hits.items(), key=lambda kv: (-kv[1], kv[0]))]
        if out:
            out.write(json.dumps({"qid": q["qid"], "scores": hits}) + "\n")
    if out:
        out.close()
    if args.qrels:
        ndcg, recall, n = metrics(rankings, args.qrels)
        print(f"reference  nDCG@10 {ndcg:.6f}  recall@100 {recall:.6f}  over {n} queries")


if __name__ == "__main__":
    main()
