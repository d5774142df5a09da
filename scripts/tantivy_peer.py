#!/usr/bin/env python3
"""tantivy-py peer for the memlens scale benchmark.

Usage: tantivy_peer.py TSV INDEX_DIR
Reads `id<TAB>title<TAB>body` lines into memory, then times indexing them (add every
document and commit once) and prints `DOCS SECONDS` on stdout.
"""
import sys
import time

import tantivy


def main() -> None:
    tsv, index_dir = sys.argv[1], sys.argv[2]
    docs = []
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t", 2)
            if len(parts) == 3:
                docs.append(parts)
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("title")
    builder.add_text_field("body")
    schema = builder.build()
    index = tantivy.Index(schema, path=index_dir)
    started = time.perf_counter()
    writer = index.writer()
    for doc_id, title, body in docs:
        writer.add_document(tantivy.Document(id=doc_id, title=title, body=body))
    writer.commit()
    writer.wait_merging_threads()
    print(len(docs), time.perf_counter() - started)


if __name__ == "__main__":
    main()
