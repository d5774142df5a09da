#!/usr/bin/env python3
"""Writes tests/reference/openmemory_export.zip the way OpenMemory's API writes the zip
its UI downloads (openmemory/api/app/routers/backup.py in mem0ai/mem0, POST
/api/v1/backup/export): `memories.json` (its tables, json.dumps indent=2) and
`memories.jsonl.gz` (one json.dumps record per line, gzip), both in a ZIP_DEFLATED
zip, timestamps as `datetime.astimezone(UTC).isoformat()`. Running OpenMemory itself
needs its database and vector store; this makes the same bytes from the same calls."""
import gzip
import io
import json
import sys
import zipfile
from datetime import UTC, datetime

out = sys.argv[1] if len(sys.argv) > 1 else "tests/reference/openmemory_export.zip"


def iso(*args):
    return datetime(*args, tzinfo=UTC).astimezone(UTC).isoformat()


app = {"id": "6d1c0f4e-0000-4000-8000-00000000a001", "name": "cursor"}
cats = [
    {"id": "c0000000-0000-4000-8000-000000000001", "name": "food"},
    {"id": "c0000000-0000-4000-8000-000000000002", "name": "work"},
]
memories = [
    ("m0000000-0000-4000-8000-000000000001", "likes green tea", {"source": "chat"}, "active",
     iso(2025, 1, 2, 3, 4, 5, 123456), iso(2025, 1, 3), None, None, [cats[0]]),
    ("m0000000-0000-4000-8000-000000000002", "", {}, "active",
     iso(2025, 2, 1), iso(2025, 2, 1), None, None, []),
    ("m0000000-0000-4000-8000-000000000003", "old project notes", {}, "archived",
     iso(2025, 3, 1), iso(2025, 3, 5), iso(2025, 3, 5), None, [cats[1]]),
    ("m0000000-0000-4000-8000-000000000004", "a deleted memory", {}, "deleted",
     iso(2025, 4, 1), iso(2025, 4, 2), None, iso(2025, 4, 3, 12), [cats[0], cats[1]]),
    ("m0000000-0000-4000-8000-000000000005", "paused for now", {"k": [1, 2]}, "paused",
     iso(2025, 5, 1), iso(2025, 5, 1), None, None, []),
]
tables = {
    "user": {"id": "u1", "user_id": "ada", "name": "Ada", "email": None, "metadata": {},
             "created_at": iso(2025, 1, 1), "updated_at": iso(2025, 1, 1)},
    "apps": [{**app, "owner_id": "u1", "description": None, "metadata": {}, "is_active": True,
              "created_at": iso(2025, 1, 1), "updated_at": iso(2025, 1, 1)}],
    "categories": [{**c, "description": None, "created_at": iso(2025, 1, 1),
                    "updated_at": iso(2025, 1, 1)} for c in cats],
    "memories": [
        {"id": i, "user_id": "u1", "app_id": app["id"], "content": content, "metadata": meta,
         "state": state, "created_at": created, "updated_at": updated, "archived_at": archived,
         "deleted_at": deleted, "category_ids": [c["id"] for c in cs]}
        for (i, content, meta, state, created, updated, archived, deleted, cs) in memories
    ],
    "memory_categories": [{"memory_id": m[0], "category_id": c["id"]} for m in memories for c in m[8]],
    "status_history": [],
    "access_controls": [],
    "export_meta": {"app_id_filter": None, "from_date": None, "to_date": None, "version": "1",
                    "generated_at": iso(2025, 6, 1)},
}
buf = io.BytesIO()
with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
    for (i, content, meta, state, created, updated, archived, deleted, cs) in memories:
        record = {"id": i, "content": content, "metadata": meta or {}, "created_at": created,
                  "updated_at": updated, "state": state, "app": app["name"],
                  "categories": [c["name"] for c in cs]}
        gz.write((json.dumps(record) + "\n").encode("utf-8"))
with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
    zf.writestr(zipfile.ZipInfo("memories.json", (2025, 6, 1, 0, 0, 0)), json.dumps(tables, indent=2),
                compress_type=zipfile.ZIP_DEFLATED)
    zf.writestr(zipfile.ZipInfo("memories.jsonl.gz", (2025, 6, 1, 0, 0, 0)), buf.getvalue(),
                compress_type=zipfile.ZIP_DEFLATED)
# The same export without its records file, as the fallback reads it.
with zipfile.ZipFile(out.replace(".zip", "_tables_only.zip"), "w", compression=zipfile.ZIP_DEFLATED) as zf:
    zf.writestr(zipfile.ZipInfo("export/memories.json", (2025, 6, 1, 0, 0, 0)), json.dumps(tables, indent=2),
                compress_type=zipfile.ZIP_DEFLATED)
print("wrote", out)
