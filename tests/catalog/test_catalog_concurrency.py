"""Concurrency: 8 processes × 50 replaces of one view, on SQLite and on PostgreSQL.

Every writer retries on conflicts (``commit.retry.*`` set on the view so that none gives up). The
test then checks what the optimistic protocol promises:

* every acknowledged commit appears exactly once in the final versions and version log, and nothing
  else does (no lost update, no duplicate);
* the files the pointer held are numbered 00000..00400 with no gap: each commit was made on top of
  the one before it;
* every one of those files parses and validates, holds the versions of its predecessor plus its own;
* no other file is left in the metadata folder (failed attempts deleted theirs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from catalog_support import CatalogEnv, file_path, metadata_files
from catalog_worker import SCHEMA

from iceview import files
from iceview.spec.validate import validate

WRITERS = 8
COMMITS = 50
WORKER = Path(__file__).with_name("catalog_worker.py")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    tests_dir = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (tests_dir, env.get("PYTHONPATH")) if p)
    return env


def test_concurrent_replaces(env: CatalogEnv, tmp_path: Path) -> None:
    catalog = env.catalog()
    catalog.create_namespace("ns")
    view = catalog.create_view(
        "ns.v",
        schema=SCHEMA,
        queries={"spark": "SELECT -1 AS w, -1 AS i"},
        default_namespace=("ns",),
        properties={
            "version.history.num-entries": "1000",
            "commit.retry.num-retries": "10000",
            "commit.retry.min-wait-ms": "2",
            "commit.retry.max-wait-ms": "64",
        },
    )
    created = view.metadata_location
    assert created is not None
    go = tmp_path / "go"
    outs = [tmp_path / f"writer-{w}.jsonl" for w in range(WRITERS)]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                "replace",
                env.url,
                env.warehouse_uri,
                "ns.v",
                str(w),
                str(COMMITS),
                str(outs[w]),
                str(go),
            ],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for w in range(WRITERS)
    ]
    time.sleep(0.5)
    go.touch()
    start = time.monotonic()
    try:
        for p in procs:
            output, _ = p.communicate(timeout=300)
            assert p.returncode == 0, output
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    elapsed = time.monotonic() - start

    records = [json.loads(line) for out in outs for line in out.read_text().splitlines()]
    errors = [r for r in records if "error" in r]
    assert not errors, errors[:5]
    acknowledged = {(r["writer"], r["i"]): r["location"] for r in records}
    assert len(acknowledged) == WRITERS * COMMITS

    final = catalog.load_view("ns.v").metadata
    assert not validate(final)
    sql_to_version: dict[str, int] = {}
    for v in final.versions:
        sql = v.representations[0].sql  # type: ignore[union-attr]
        assert sql not in sql_to_version, f"duplicate version for {sql}"
        sql_to_version[sql] = v.version_id
    expected_sql = {f"SELECT {w} AS w, {i} AS i" for (w, i) in acknowledged} | {"SELECT -1 AS w, -1 AS i"}
    assert set(sql_to_version) == expected_sql
    log_ids = [e.version_id for e in final.version_log]
    assert sorted(log_ids) == sorted(sql_to_version.values())  # each version made current exactly once
    assert len(set(log_ids)) == len(log_ids) == WRITERS * COMMITS + 1

    # the files the pointer held: 00000 (create) and one per acknowledged commit, numbered with no gap
    held = [created, *acknowledged.values()]
    assert len(set(held)) == len(held)
    numbers = sorted(files.parse_version(loc) for loc in held)
    assert numbers == list(range(WRITERS * COMMITS + 1))
    by_number = {files.parse_version(loc): loc for loc in held}
    previous_ids: set[int] = set()
    for n in range(WRITERS * COMMITS + 1):
        metadata = files.read_metadata(by_number[n])
        assert not validate(metadata), (by_number[n], validate(metadata))
        ids = set(metadata.version_ids)
        assert previous_ids < ids and len(ids - previous_ids) == 1
        assert metadata.current_version_id in ids - previous_ids
        previous_ids = ids
    # failed attempts deleted their files
    folder = Path(file_path(created)).parent
    assert len(metadata_files(folder)) == WRITERS * COMMITS + 1
    catalog.close()
    print(f"{env.backend}: {WRITERS * COMMITS} commits by {WRITERS} writers in {elapsed:.1f} s")
