"""The ```python blocks of README.md and docs/*.md, and what they run against.

* :func:`blocks` reads a page: every ```python block, with the ```text block that follows it (its
  printed output, when the page shows one);
* :func:`run_page` runs a page's blocks in order in one namespace and compares what each prints
  with what the page shows (:func:`normalise` puts aside what differs from run to run);
* :func:`build_docs_catalog` makes the catalog the pages expect: ``prod``, configured in a
  ``.pyiceberg.yaml`` in the working directory;
* :func:`spark_events` and :func:`serve_content` give Spark and an ``iceview serve`` server the
  tables the Spark and server pages read.

See tests/docs/test_doc_snippets.py for the conventions.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import re
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixtures.events import EVENT_AGG_SCHEMA, EVENT_AGG_SQL, EVENT_ROWS, create_events_table

REPO = Path(__file__).resolve().parents[2]
SHOWN_ROOT = "/home/me/project"
"""The working directory as the pages show it (in printed paths)."""
SHOWN_SERVER = "http://127.0.0.1:8181/"
"""An ``iceview serve`` server as the pages show it: the address it listens on by default."""
CATALOG = "prod"

_FENCE = re.compile(r"^```\s*([\w+-]*)\s*$")
# fences that would be Python under another name, and so escape the check
_PYTHON_ALIASES = {"py", "py3", "python3", "pycon", "ipython", "pyi"}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")
_MILLIS = re.compile(r"\b1\d{12}\b")
_TABLE_LINE = re.compile(r"^[|+].*[|+]$")  # a line of a table Spark's DataFrame.show() prints


def pages() -> list[Path]:
    """README.md and docs/*.md."""
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def page_name(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


@dataclass
class Block:
    """One ```python block: its code, the line of its first code line, and the output the page
    shows for it (the ```text block right after it), if any."""

    page: str
    line: int
    code: str
    output: str | None = None
    output_line: int | None = None


@dataclass
class Page:
    name: str
    blocks: list[Block] = field(default_factory=list)
    misfenced: list[str] = field(default_factory=list)
    """``line N: ```py`` for every fence that is Python under another name."""


def blocks(name: str, text: str) -> Page:
    """The ```python blocks of a page, each with the ```text block that follows it (nothing but
    blank lines in between) as its output."""
    page = Page(name)
    lines = text.splitlines()
    fences: list[tuple[str, int, int]] = []  # (language, first content line index, end index)
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        language = match.group(1).lower()
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        fences.append((language, i + 1, end))
        if language in _PYTHON_ALIASES:
            page.misfenced.append(f"line {i + 1}: ```{match.group(1)}")
        i = end + 1
    for n, (language, start, end) in enumerate(fences):
        if language != "python":
            continue
        block = Block(name, start + 1, "\n".join(lines[start:end]) + "\n")
        if n + 1 < len(fences):
            next_language, next_start, next_end = fences[n + 1]
            between = lines[end + 1 : next_start - 1]
            if next_language == "text" and all(not line.strip() for line in between):
                block.output = "\n".join(lines[next_start:next_end]) + "\n"
                block.output_line = next_start + 1
        page.blocks.append(block)
    return page


def read_page(path: Path) -> Page:
    return blocks(page_name(path), path.read_text(encoding="utf-8"))


def normalise(text: str, replacements: Mapping[str, str]) -> list[str]:
    """Lines without what differs from run to run: ``replacements`` (the working directory, a
    server's address) first, then uuids, times and epoch milliseconds, and the column widths of
    Spark's tables (which follow the length of the paths in them); trailing spaces and leading and
    trailing blank lines dropped."""
    for old, new in replacements.items():
        text = text.replace(old, new)
    text = _UUID.sub("<UUID>", text)
    text = _ISO_TIME.sub("<TIME>", text)
    text = _MILLIS.sub("<MS>", text)
    out = [line.rstrip() for line in text.splitlines()]
    out = [re.sub(r" +", " ", re.sub(r"-+", "-", line)) if _TABLE_LINE.match(line) else line for line in out]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


class SnippetError(AssertionError):
    """A block failed: it raised, or printed something else than the page shows."""


def run_page(
    page: Page,
    namespace: dict[str, Any],
    *,
    root: Path,
    server: str | None = None,
) -> None:
    """Run the page's blocks in order in ``namespace``; raise :class:`SnippetError` naming the
    page and the block's first line at the first block that raises or prints something else than
    the page shows. ``server``: the address of the ``iceview serve`` server the page's
    :data:`SHOWN_SERVER` stands for."""
    actual_replacements = {str(root): SHOWN_ROOT}
    if server is not None:
        actual_replacements[server] = SHOWN_SERVER
    for block in page.blocks:
        code = block.code
        if server is not None:
            code = code.replace(SHOWN_SERVER, server)
        printed = io.StringIO()
        try:
            # padded so that tracebacks give the page's own line numbers
            compiled = compile("\n" * (block.line - 1) + code, str(REPO / page.name), "exec")
            with contextlib.redirect_stdout(printed):
                exec(compiled, namespace)
        except Exception as e:
            # from the page's frame on (the first frame is this function's exec or compile)
            frames = e.__traceback__.tb_next if e.__traceback__ is not None else None
            trace = "".join(traceback.format_exception(type(e), e, frames))
            raise SnippetError(
                f"{page.name}: the block at line {block.line} raised {type(e).__name__}: {e}\n"
                f"--- printed before ---\n{printed.getvalue()}--- traceback ---\n{trace}"
            ) from e
        if block.output is None:
            continue
        expected = normalise(block.output, {})
        got = normalise(printed.getvalue(), actual_replacements)
        if got != expected:
            diff = "\n".join(
                difflib.unified_diff(
                    expected, got, f"shown (line {block.output_line})", "printed", lineterm=""
                )
            )
            raise SnippetError(
                f"{page.name}: the block at line {block.line} printed something else than the "
                f"```text block at line {block.output_line} shows\n{diff}"
            )


# ----------------------------------------------------------------------------- what the pages read

# the view spec's Appendix A, as the demo (examples/pipeline.py) makes it, in namespace db
APPENDIX_A_2 = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM prod.db.events\nGROUP BY 2"
DAILY_SQL = "SELECT count(1), CAST(event_ts AS DATE) FROM prod.db.events GROUP BY 2"


def build_docs_catalog(root: Path) -> Path:
    """The catalog the pages use, in ``root`` (their working directory): ``prod``, an embedded
    SQLite catalog in ``root/warehouse``, configured in ``root/.pyiceberg.yaml``. It holds the
    Iceberg table ``db.events`` (6 rows, written through PyIceberg) and two views over it, each
    with Spark SQL only: ``db.event_agg`` (Appendix A of the view spec: versions 1 and 2) and
    ``db.daily`` (``n``, ``day``). Returns the configuration file."""
    from pyiceberg.schema import Schema
    from pyiceberg.types import DateType, LongType, NestedField

    from iceview.catalog.sql import SqlCatalog

    warehouse = root / "warehouse"
    warehouse.mkdir(parents=True, exist_ok=True)
    uri = f"sqlite:///{warehouse / 'catalog.db'}"
    config = root / ".pyiceberg.yaml"
    config.write_text(f"catalog:\n  {CATALOG}:\n    uri: {uri}\n    warehouse: file://{warehouse}\n")
    daily = Schema(
        NestedField(1, "n", LongType(), required=True, doc="events"),
        NestedField(2, "day", DateType(), required=False),
    )
    spark = {"engine-name": "spark", "engine-version": "3.5.9"}
    with SqlCatalog(CATALOG, uri=uri, warehouse=f"file://{warehouse}") as catalog:
        catalog.create_namespace("db")
        create_events_table(catalog, "db.events")
        view = catalog.create_view(
            "db.event_agg",
            schema=EVENT_AGG_SCHEMA,
            queries={"spark": EVENT_AGG_SQL},
            default_namespace=("db",),
            default_catalog=CATALOG,
            properties={"comment": "Daily event counts"},
            summary=spark,
        )
        view.replace_version(
            schema=EVENT_AGG_SCHEMA,
            queries={"spark": APPENDIX_A_2},
            default_namespace=("db",),
            default_catalog=CATALOG,
            summary=spark,
        )
        catalog.create_view(
            "db.daily",
            schema=daily,
            queries={"spark": DAILY_SQL},
            default_namespace=("db",),
            properties={"comment": "Daily counts"},
            summary=spark,
        )
    return config


@contextlib.contextmanager
def spark_events(spark: Any) -> Iterator[None]:
    """``spark_catalog.db.events``, the rows of ``db.events`` in Spark's own catalog, where
    SparkViews reads ``prod.db.events`` when ``prod`` is not a Spark catalog (docs/spark.md,
    "Virtual"): a Spark view over the rows (no Spark job writes a table), dropped afterwards with
    the database ``db`` if this made it. Spark's own catalog is shared by the sessions of the
    test process."""
    rows = ", ".join(f"({i}, TIMESTAMP_NTZ '{ts}', '{source}')" for i, ts, source in EVENT_ROWS)
    made_db = not spark.sql("SHOW DATABASES IN spark_catalog LIKE 'db'").collect()
    spark.sql("CREATE DATABASE IF NOT EXISTS spark_catalog.db")
    spark.sql(
        "CREATE VIEW spark_catalog.db.events AS SELECT CAST(event_id AS BIGINT) AS event_id, event_ts, "
        f"source FROM VALUES {rows} AS t(event_id, event_ts, source)"
    )
    try:
        yield
    finally:
        spark.sql("DROP VIEW IF EXISTS spark_catalog.db.events")
        if made_db:
            spark.sql("DROP DATABASE IF EXISTS spark_catalog.db")


def serve_content(uri: str) -> None:
    """On an ``iceview serve`` server: namespace ``db`` and the Iceberg table ``db.t`` (``id``:
    1, 2, 3), what docs/spark.md reads through Spark's REST catalog."""
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, NestedField

    tables = RestCatalog("setup", uri=uri)
    tables.create_namespace("db")
    table = tables.create_table("db.t", Schema(NestedField(1, "id", IntegerType(), required=False)))
    table.append(pa.table({"id": pa.array([1, 2, 3], pa.int32())}))
