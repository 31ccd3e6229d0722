"""The view spec's Appendix A, made with iceview.

It builds the ``event_agg`` view as Spark would record it, writes the first metadata file, replaces
the view's SQL with the fully qualified table name (a second file), reads both back, validates
them, and prints what a reader sees. Everything is written under a warehouse directory (a temporary
one unless ``--warehouse`` is given).

Run: .venv/bin/python examples/appendix_a.py [--warehouse DIR] [--pretty]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from pyiceberg.schema import Schema
from pyiceberg.types import DateType, IntegerType, NestedField

from iceview.files import new_metadata_location, read_metadata, write_metadata
from iceview.spec import SQLRepresentation, ViewMetadata, ViewVersion, validate

CREATE_SQL = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM events\nGROUP BY 2"
REPLACE_SQL = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM prod.default.events\nGROUP BY 2"
SCHEMA = Schema(
    NestedField(1, "event_count", IntegerType(), required=False, doc="Count of events"),
    NestedField(2, "event_date", DateType(), required=False),
    schema_id=1,
)
SUMMARY = {"engine-name": "Spark", "engine-version": "3.3.2"}


def version(version_id: int, sql: str, timestamp_ms: int) -> ViewVersion:
    return ViewVersion(
        version_id=version_id,
        timestamp_ms=timestamp_ms,
        schema_id=SCHEMA.schema_id,
        summary=SUMMARY,
        representations=(SQLRepresentation(sql, "spark"),),
        default_namespace=("default",),
        default_catalog="prod",
    )


def describe(md: ViewMetadata) -> None:
    current = md.current_version
    print(f"  view uuid        {md.uuid}")
    print(f"  location         {md.location}")
    print(f"  metadata file    {md.metadata_file_location}")
    print(f"  current version  {md.current_version_id} ({current.operation}), schema {md.current_schema_id}")
    print(
        f"  defaults         catalog {current.default_catalog!r}, namespace {'.'.join(current.default_namespace)}"
    )
    print(f"  properties       {dict(md.properties)}")
    print("  schema:")
    for field in md.schema.fields:
        doc = f"  -- {field.doc}" if field.doc else ""
        print(f"    {field.field_id}: {field.name} {field.field_type}{doc}")
    spark = md.sql_for("spark")
    assert spark is not None
    print("  spark SQL:")
    for line in spark.sql.splitlines():
        print(f"    {line}")
    log = ", ".join(f"v{e.version_id}@{e.timestamp_ms}" for e in md.history)
    print(f"  version log      {log}")
    problems = validate(md)
    print(f"  validate         {problems if problems else 'clean'}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--warehouse", help="directory to write into (default: a temporary directory)")
    parser.add_argument("--pretty", action="store_true", help="also print the last file as pretty JSON")
    args = parser.parse_args()
    warehouse = Path(args.warehouse or tempfile.mkdtemp(prefix="iceview-demo-")).resolve()
    location = f"file:{warehouse}/default.db/event_agg"

    print("1. CREATE OR REPLACE VIEW event_agg ... FROM events")
    created_at = int(time.time() * 1000)
    created = (
        ViewMetadata.builder()
        .set_location(location)
        .set_properties({"comment": "Daily event counts"})
        .set_current_version(version(1, CREATE_SQL, created_at), SCHEMA)
        .build()
    )
    first_file = new_metadata_location(location, created.properties, None)
    write_metadata(created, first_file)
    print(f"   wrote {first_file}")

    print("2. CREATE OR REPLACE VIEW default.event_agg ... FROM prod.default.events")
    base = read_metadata(first_file)
    replaced = (
        ViewMetadata.build_from(base)
        .set_current_version(version(2, REPLACE_SQL, created_at + 1), SCHEMA)
        .build()
    )
    second_file = new_metadata_location(location, replaced.properties, first_file)
    write_metadata(replaced, second_file)
    print(f"   wrote {second_file}")

    print("3. read back and validate")
    for path in (first_file, second_file):
        md = read_metadata(path)
        print(f" {Path(path).name}:")
        describe(md)
    if args.pretty:
        print(read_metadata(second_file).to_json(pretty=True))
    print("done: both files written, read back, and valid.")


if __name__ == "__main__":
    main()
