"""Makes tests/reference/openmemory_export.zip with OpenMemory's own code (mem0's
openmemory/api, run by scripts/openmemory_export.sh from inside that directory): its
FastAPI app on a fresh SQLite database, a few memories written through its models and
put into every state through its own endpoints and functions, then the zip its
`POST /api/v1/backup/export` answers, saved as downloaded.

The one part of OpenMemory not run is the LLM that picks a memory's categories (an
OpenAI call made on every insert and update): `get_categories_for_memory` answers the
categories given below, and OpenMemory's own `categorize_memory` stores them.

Beside it, `openmemory_export_tables_only.zip` holds the same `memories.json` alone (in a
folder), the zip OpenMemory's import reads when it has no `memories.jsonl.gz`."""
import datetime
import io
import os
import sys
import tempfile
import time
import uuid
import zipfile

out = sys.argv[1]
work = tempfile.mkdtemp(prefix="openmemory-")
os.environ["DATABASE_URL"] = f"sqlite:///{work}/openmemory.db"
os.environ["USER"] = "ada"  # OpenMemory's default user (app/config.py)
os.environ.setdefault("OPENAI_API_KEY", "unused-no-call-is-made")
# SQLite keeps naive datetimes, which the exporter reads as local time.
os.environ["TZ"] = "UTC"
time.tzset()
sys.path.insert(0, os.getcwd())

import app.models as models  # noqa: E402

CATEGORIES = {
    "likes green tea": ["preferences", "food"],
    "old project notes": ["work"],
    "a deleted memory": ["food", "work"],
    "written from cursor": ["work"],
}
models.get_categories_for_memory = lambda content: CATEGORIES.get(content, [])

from fastapi.testclient import TestClient  # noqa: E402
from main import app  # noqa: E402  (creates the tables, the default user and app)
from app.database import SessionLocal  # noqa: E402
from app.models import Memory, MemoryState, User  # noqa: E402
from app.routers.memories import update_memory_state  # noqa: E402
from app.utils.db import get_user_and_app  # noqa: E402

UTC = datetime.UTC


def at(*args):
    return datetime.datetime(*args, tzinfo=UTC)


MEMORIES = [
    # id, app, content, metadata, created_at
    ("0a000000-0000-4000-8000-000000000001", "openmemory", "likes green tea",
     {"source": "chat", "confidence": 0.9}, at(2025, 1, 2, 3, 4, 5, 123456)),
    ("0a000000-0000-4000-8000-000000000002", "openmemory", "", {}, at(2025, 2, 1)),
    ("0a000000-0000-4000-8000-000000000003", "openmemory", "old project notes", {},
     at(2025, 3, 1)),
    ("0a000000-0000-4000-8000-000000000004", "openmemory", "a deleted memory", {},
     at(2025, 4, 1)),
    ("0a000000-0000-4000-8000-000000000005", "openmemory", "paused for now",
     {"k": [1, 2], "nested": {"a": None}}, at(2025, 5, 1)),
    ("0a000000-0000-4000-8000-000000000006", "cursor", "written from cursor", None,
     at(2025, 6, 1, 12, 30)),
]

db = SessionLocal()
user = db.query(User).filter(User.user_id == "ada").one()
for mid, app_name, content, metadata, created in MEMORIES:
    _, app_obj = get_user_and_app(db, user_id="ada", app_id=app_name)
    # as POST /api/v1/memories/ stores what mem0 answered
    memory = Memory(id=uuid.UUID(mid), user_id=user.id, app_id=app_obj.id, content=content,
                    metadata_=metadata, state=MemoryState.active, created_at=created,
                    updated_at=created)
    db.add(memory)
    db.commit()

client = TestClient(app)
ids = {content: mid for mid, _, content, _, _ in MEMORIES}
r = client.post("/api/v1/memories/actions/archive",
                params={"user_id": str(user.id)}, json=[ids["old project notes"]])
assert r.status_code == 200, r.text
r = client.post("/api/v1/memories/actions/pause",
                json={"memory_ids": [ids["paused for now"]], "user_id": "ada"})
assert r.status_code == 200, r.text
# DELETE /api/v1/memories/ first removes the vector from mem0's store, then calls this.
update_memory_state(db, uuid.UUID(ids["a deleted memory"]), MemoryState.deleted, user.id)
db.close()

r = client.post("/api/v1/backup/export", json={"user_id": "ada"})
assert r.status_code == 200, r.text
assert r.headers["content-type"] == "application/zip", r.headers
with open(out, "wb") as f:
    f.write(r.content)
print(f"wrote {out} ({len(r.content)} bytes, {r.headers['content-disposition']})")

tables_only = out.replace(".zip", "_tables_only.zip")
with zipfile.ZipFile(io.BytesIO(r.content)) as zf:
    tables = zf.read("memories.json")
with zipfile.ZipFile(tables_only, "w", compression=zipfile.ZIP_DEFLATED) as zf:
    zf.writestr("export/memories.json", tables)
print(f"wrote {tables_only}")
