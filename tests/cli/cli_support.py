"""A demo catalog for the CLI tests, and ways to run ``iceview``: click's CliRunner in-process,
and a real subprocess (the installed console script, or ``python -m iceview.cli``).

The catalog is an embedded SQLite database in a temporary folder, configured through
``PYICEBERG_CATALOG__DEMO__*`` variables; ``HOME`` and ``PYICEBERG_HOME`` point into the
temporary folder, so the real home directory is never read.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from pyiceberg.schema import Schema
from pyiceberg.types import (
    DateType,
    ListType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)

from fixtures.events import EVENT_AGG_SCHEMA, EVENT_AGG_SQL, create_events_table
from iceview.catalog.sql import SqlCatalog
from iceview.cli import cli
from iceview.function import NewDefinition

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
CATALOG = "demo"
VIEW = "default.event_agg"
OTHER = "analytics.daily.users"

SQL_1 = EVENT_AGG_SQL
SQL_2 = "SELECT\n    COUNT(1), CAST(event_ts AS DATE)\nFROM prod.default.events\nGROUP BY 2"
SQL_3 = "SELECT\n    COUNT(1), CAST(event_ts AS DATE), source\nFROM prod.default.events\nGROUP BY 2, 3"
SCHEMA_1 = EVENT_AGG_SCHEMA
SCHEMA_3 = Schema(
    NestedField(1, "event_count", LongType(), required=True, doc="Count of events"),
    NestedField(2, "event_date", DateType(), required=False),
    NestedField(3, "source", StringType(), required=False),
)
USERS_SCHEMA = Schema(
    NestedField(1, "user_id", LongType(), required=True),
    NestedField(2, "tags", ListType(3, StringType(), element_required=False), required=False),
)

# the events lake (add_events): an Iceberg table and two views over it, one with Spark SQL and one
# with Trino SQL only (as Trino would have created it)
EVENTS = "default.events"
BY_SOURCE = "default.events_by_source"
SOURCE_STATS = "default.source_stats"
BY_SOURCE_SQL = "SELECT source, count(1) AS events, min(event_ts) AS first_seen\nFROM events\nGROUP BY source"
BY_SOURCE_SCHEMA = Schema(
    NestedField(1, "source", StringType(), required=False),
    NestedField(2, "events", LongType(), required=True),
    NestedField(3, "first_seen", TimestampType(), required=False),
)
SOURCE_STATS_SQL = "SELECT source, count(*) AS events, max(event_id) AS last_id\nFROM events\nWHERE event_id > 1\nGROUP BY source"
SOURCE_STATS_SCHEMA = Schema(
    NestedField(1, "source", StringType(), required=False),
    NestedField(2, "events", LongType(), required=True),
    NestedField(3, "last_id", LongType(), required=False),
)
# (source, events, first_seen) of BY_SOURCE and (source, events, last_id) of SOURCE_STATS, by source
BY_SOURCE_ROWS = [
    ("api", 1, datetime.datetime(2026, 11, 21, 11, 0)),
    ("app", 2, datetime.datetime(2026, 11, 20, 9, 30)),
    ("web", 3, datetime.datetime(2026, 11, 20, 8, 0)),
]
SOURCE_STATS_ROWS = [("api", 1, 4), ("app", 2, 6), ("web", 2, 5)]

# environment variables that would change what the CLI prints or which configuration it reads
SCRUBBED = ("FORCE_COLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


@dataclass
class Demo:
    """A demo catalog: ``default.event_agg`` with versions 1, 2, 3 (3 current) and
    ``analytics.daily.users`` (spark and trino SQL)."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def database(self) -> Path:
        return self.root / "catalog.db"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    def catalog(self) -> SqlCatalog:
        return SqlCatalog(CATALOG, uri=f"sqlite:///{self.database}", warehouse=f"file://{self.warehouse}")

    def metadata_file(self, view: str = VIEW) -> Path:
        """The local path of a view's current metadata file."""
        with self.catalog() as catalog:
            location = catalog.load_view(view).metadata_location
        assert location is not None and location.startswith("file://")
        return Path(location[len("file://") :])

    def overwrite_current_metadata(self, data: bytes, view: str = VIEW) -> Path:
        path = self.metadata_file(view)
        path.write_bytes(data)
        return path


def base_env(root: Path) -> dict[str, str]:
    """The environment the CLI runs in: a private home, the demo catalog under ``root`` as the
    default catalog, no colour forcing."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PYICEBERG") and k not in SCRUBBED}
    env.update(
        {
            "HOME": str(home),
            "PYICEBERG_HOME": str(home),
            f"PYICEBERG_CATALOG__{CATALOG.upper()}__URI": f"sqlite:///{root / 'catalog.db'}",
            f"PYICEBERG_CATALOG__{CATALOG.upper()}__WAREHOUSE": f"file://{root / 'warehouse'}",
            "PYICEBERG_DEFAULT_CATALOG": CATALOG,
        }
    )
    return env


def build_demo(root: Path) -> Demo:
    """Create the demo catalog under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    demo = Demo(root, base_env(root))
    with demo.catalog() as catalog:
        catalog.create_namespace("default")
        catalog.create_namespace(("analytics", "daily"))
        spark_351 = {"engine-name": "Spark", "engine-version": "3.5.1"}
        view = catalog.create_view(
            VIEW,
            schema=SCHEMA_1,
            queries={"spark": SQL_1},
            default_namespace=("default",),
            default_catalog="prod",
            properties={"comment": "Daily event counts"},
            summary=spark_351,
        )
        view.replace_version(
            schema=SCHEMA_1,
            queries={"spark": SQL_2},
            default_namespace="default",
            default_catalog="prod",
            summary=spark_351,
        )
        view.replace_version(
            schema=SCHEMA_3,
            queries={"spark": SQL_3},
            default_namespace="default",
            summary={"engine-name": "Spark", "engine-version": "3.5.2"},
        )
        catalog.create_view(
            OTHER,
            schema=USERS_SCHEMA,
            queries={
                "spark": "SELECT id AS user_id, tags FROM users",
                "trino": "SELECT id AS user_id, tags FROM users",
            },
            default_namespace=("analytics", "daily"),
        )
    return demo


CELSIUS = "default.to_celsius"


def add_events(demo: Demo) -> Demo:
    """Add the events lake to a demo catalog: the Iceberg table ``default.events`` (6 rows, written
    through PyIceberg), the view ``default.events_by_source`` (Spark SQL), the view
    ``default.source_stats`` (Trino SQL only) and the SQL UDF ``default.to_celsius`` (two
    definitions, ``double`` at version 2)."""
    with demo.catalog() as catalog:
        create_events_table(catalog, EVENTS)
        catalog.create_view(
            BY_SOURCE,
            schema=BY_SOURCE_SCHEMA,
            queries={"spark": BY_SOURCE_SQL},
            default_namespace=("default",),
            summary={"engine-name": "Spark", "engine-version": "3.5.2"},
        )
        catalog.create_view(
            SOURCE_STATS,
            schema=SOURCE_STATS_SCHEMA,
            queries={"trino": SOURCE_STATS_SQL},
            default_namespace=("default",),
            summary={"engine-name": "Trino", "engine-version": "476"},
        )
        celsius = catalog.create_function(
            CELSIUS,
            [
                NewDefinition([("f", "double")], "double", {"spark": "(f - 32) * 5 / 9"}),
                NewDefinition([("f", "int")], "double", {"spark": "(f - 32) * 5.0 / 9"}),
            ],
            doc="Fahrenheit to Celsius",
        )
        celsius.replace_definition("double", {"spark": "(f - 32) / 1.8", "trino": "(f - 32) / 1.8"})
    return demo


def build_lake(root: Path) -> Demo:
    """A demo catalog with the events lake."""
    return add_events(build_demo(root))


def terminal(env: dict[str, str], columns: int = 100) -> dict[str, str]:
    """``env`` as on a terminal ``columns`` wide (rich's TTY_COMPATIBLE): the form people see,
    where a pipe gets the plain form. Read its output through :func:`screen`."""
    return {**env, "TTY_COMPATIBLE": "1", "COLUMNS": str(columns)}


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def screen(text: str) -> str:
    """Terminal output without its colours and styles."""
    return _ANSI.sub("", text)


def invoke(env: dict[str, str], *args: str, input: str | None = None) -> Result:
    """``iceview ARGS`` through click's CliRunner (stdout and stderr kept apart)."""
    runner = CliRunner()
    return runner.invoke(cli, list(args), env=env, input=input, catch_exceptions=False, prog_name="iceview")


def iceview_command() -> list[str]:
    """The installed console script next to this Python, else ``python -m iceview.cli``."""
    script = Path(sys.executable).with_name("iceview")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "iceview.cli"]


def default_sigint() -> None:
    """In a child before it starts: Ctrl-C as a person's shell gives it (a shell without job
    control starts background jobs with SIGINT ignored, and children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_process(
    env: dict[str, str],
    *args: str,
    cwd: Path,
    module: bool = False,
    input: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``iceview ARGS`` as a real process."""
    command = [sys.executable, "-m", "iceview.cli"] if module else iceview_command()
    return subprocess.run(
        [*command, *args],
        preexec_fn=default_sigint,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        input=input if input is not None else "",
        timeout=timeout,
        check=False,
    )


def parse_json(text: str) -> Any:
    return json.loads(text)


def error_line(stderr: str) -> str:
    """The one error line of a failed command (and check that it is the only line)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got: {stderr!r}"
    assert lines[0].startswith("iceview: "), lines[0]
    return lines[0]
