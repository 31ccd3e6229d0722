"""Bad input on every command: one line on stderr, ``iceview: ...``, and the documented exit code."""

from __future__ import annotations

import gzip
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import CATALOG, DATA, OTHER, VIEW, Demo, build_lake, error_line, invoke, parse_json
from click.testing import Result
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, NestedField

from iceview.cli import ExitCode

Run = Callable[..., Result]
MISSING = "default.nope"

# every command that works on a view of the catalog, with VIEW as a placeholder
VIEW_COMMANDS: dict[str, tuple[str, ...]] = {
    "show": ("show", "VIEW"),
    "history": ("history", "VIEW"),
    "diff": ("diff", "VIEW", "1", "2"),
    "rollback": ("rollback", "VIEW", "--to", "1"),
    "set-property": ("set-property", "VIEW", "k", "v"),
    "unset-property": ("unset-property", "VIEW", "comment"),
    "rename": ("rename", "VIEW", "renamed"),
    "drop": ("drop", "VIEW", "--yes"),
    "orphans": ("orphans", "VIEW"),
    "lint": ("lint", "VIEW"),
    "translate": ("translate", "VIEW", "--to", "trino"),
    "add-dialect": ("add-dialect", "VIEW", "trino", "duckdb"),
}
# the commands that read the view's metadata (rename and drop only touch the catalog entry)
READERS = [
    "show",
    "history",
    "diff",
    "rollback",
    "set-property",
    "unset-property",
    "translate",
    "add-dialect",
]
# every command that needs a catalog, with arguments
CATALOG_COMMANDS: dict[str, tuple[str, ...]] = {
    "namespaces": ("namespaces",),
    "list": ("list",),
    **{name: tuple(VIEW if a == "VIEW" else a for a in args) for name, args in VIEW_COMMANDS.items()},
    "lint --all": ("lint", "--all"),
    "sql": ("sql", "SELECT 1"),
    "sql --engine spark": ("sql", "SELECT 1", "--engine", "spark"),  # fails before Spark starts
}
# commands that accept a metadata file instead of a view
FILE_COMMANDS: dict[str, tuple[str, ...]] = {
    "show": ("show", "FILE"),
    "history": ("history", "FILE"),
    "diff": ("diff", "FILE", "1", "2"),
}


def args_for(command: str, view: str) -> list[str]:
    return [view if a == "VIEW" else a for a in VIEW_COMMANDS[command]]


def file_args(command: str, path: Path | str) -> list[str]:
    return [str(path) if a == "FILE" else a for a in FILE_COMMANDS[command]]


def fails(result: Result, code: ExitCode, *fragments: str) -> str:
    """The command failed with ``code`` and printed one error line holding every fragment."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    line = error_line(result.stderr)
    for fragment in fragments:
        assert fragment in line, line
    assert "Traceback" not in result.stderr
    return line


# ----------------------------------------------------------------------------- unknown things


@pytest.mark.parametrize("command", list(VIEW_COMMANDS))
def test_unknown_view(run: Run, command: str) -> None:
    fails(
        run(*args_for(command, MISSING)),
        ExitCode.NOT_FOUND,
        f"view {MISSING} does not exist in catalog 'demo'",
    )


@pytest.mark.parametrize("command", ["namespaces", "list"])
def test_unknown_namespace(run: Run, command: str) -> None:
    fails(run(command, "nowhere"), ExitCode.NOT_FOUND, "namespace nowhere does not exist in catalog 'demo'")


def test_unknown_version(run: Run) -> None:
    fails(run("diff", VIEW, "1", "9"), ExitCode.NOT_FOUND, f"{VIEW} has no version 9 (its versions: 1, 2, 3)")
    fails(run("rollback", VIEW, "--to", "7"), ExitCode.NOT_FOUND, "has no version 7")


def test_rollback_to_a_time_before_the_view(run: Run) -> None:
    fails(
        run("rollback", VIEW, "--at", "2001-01-01"),
        ExitCode.NOT_FOUND,
        "was current at 2001-01-01T00:00:00.000Z",
    )


def test_unset_a_property_that_is_not_set(run: Run) -> None:
    fails(run("unset-property", VIEW, "nokey"), ExitCode.NOT_FOUND, "has no property 'nokey'")


def test_rename_into_a_missing_namespace(run: Run) -> None:
    fails(run("rename", VIEW, "nons.x"), ExitCode.NOT_FOUND, "namespace nons does not exist")


def test_rename_onto_an_existing_view(run: Run) -> None:
    fails(run("rename", VIEW, "analytics.daily.users"), ExitCode.CONFLICT, "View already exists")


# ----------------------------------------------------------------------------- broken metadata of a view

BROKEN = {
    "corrupt gzip": (b"this is not gzip", "bad gzip data"),
    "malformed JSON": (gzip.compress(b'{"view-uuid": '), "malformed JSON"),
    "missing field": (gzip.compress(b'{"format-version": 1}'), "Cannot parse missing string: view-uuid"),
}


@pytest.mark.parametrize("broken", list(BROKEN))
@pytest.mark.parametrize("command", READERS)
def test_broken_view_metadata(demo: Demo, run: Run, command: str, broken: str) -> None:
    data, fragment = BROKEN[broken]
    path = demo.overwrite_current_metadata(data)
    line = fails(
        run(*args_for(command, VIEW)), ExitCode.METADATA, f"invalid metadata for view {VIEW}", fragment
    )
    assert str(path) in line
    assert line.count(str(path)) == 1  # the file is named once


@pytest.mark.parametrize("command", READERS)
def test_missing_view_metadata_file(demo: Demo, run: Run, command: str) -> None:
    demo.metadata_file().unlink()
    fails(
        run(*args_for(command, VIEW)),
        ExitCode.METADATA,
        f"cannot read the metadata of view {VIEW}: Metadata file does not exist",
    )


@pytest.mark.parametrize("broken", list(BROKEN))
def test_lint_reports_broken_view_metadata(demo: Demo, run: Run, broken: str) -> None:
    data, fragment = BROKEN[broken]
    demo.overwrite_current_metadata(data)
    result = run("lint", VIEW)
    assert result.exit_code == 1 and result.stderr == ""
    assert "invalid-metadata" in result.stdout and fragment in result.stdout
    all_views = parse_json(run("lint", "--all", "-o", "json").stdout)
    assert all_views["with-problems"] == 1 and all_views["checked"] == 2
    problem = next(t for t in all_views["targets"] if t["target"] == VIEW)["problems"][0]
    assert problem["code"] == "invalid-metadata" and fragment in problem["message"]


def test_lint_reports_a_missing_view_metadata_file(demo: Demo, run: Run) -> None:
    demo.metadata_file().unlink()
    result = run("lint", "--all")
    assert result.exit_code == 1
    assert "not-found" in result.stdout and "Metadata file does not exist" in result.stdout


def test_rename_and_drop_work_on_a_view_with_broken_metadata(demo: Demo, run: Run) -> None:
    demo.overwrite_current_metadata(b"garbage")
    assert run("rename", VIEW, "broken").exit_code == 0
    dropped = run("drop", "default.broken", "--yes")
    assert dropped.exit_code == 0
    assert dropped.stderr.startswith("iceview: warning: View metadata of default.broken does not parse")


# ----------------------------------------------------------------------------- bad metadata files


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "files"
    folder.mkdir()
    good = (DATA / "spec" / "appendix-a-newer-2.metadata.json").read_bytes()
    files = {
        "missing": folder / "missing.metadata.json",
        "malformed": folder / "malformed.metadata.json",
        "corrupt-gzip": folder / "corrupt.gz.metadata.json",
        "gzip-not-named": folder / "compressed.metadata.json",
        "directory": folder / "dir.metadata.json",
        "empty": folder / "empty.json",
    }
    files["malformed"].write_text('{"view-uuid": "x", ')
    files["corrupt-gzip"].write_bytes(gzip.compress(good)[:40])
    files["gzip-not-named"].write_bytes(gzip.compress(good))
    files["directory"].mkdir()
    files["empty"].write_bytes(b"")
    return files


FILE_FAILURES = {
    "missing": (ExitCode.NOT_FOUND, "metadata file does not exist", "not-found"),
    "malformed": (ExitCode.METADATA, "malformed JSON", "invalid-metadata"),
    "corrupt-gzip": (ExitCode.METADATA, "bad gzip data", "invalid-metadata"),
    "gzip-not-named": (ExitCode.METADATA, "the file is gzip-compressed", "invalid-metadata"),
    "directory": (ExitCode.METADATA, "dir.metadata.json", "unreadable"),
    "empty": (ExitCode.METADATA, "empty input", "invalid-metadata"),
}


@pytest.mark.parametrize("kind", list(FILE_FAILURES))
@pytest.mark.parametrize("command", list(FILE_COMMANDS))
def test_bad_metadata_file(
    empty_env: dict[str, str], bad_files: dict[str, Path], command: str, kind: str
) -> None:
    code, fragment, _ = FILE_FAILURES[kind]
    fails(invoke(empty_env, *file_args(command, bad_files[kind])), code, fragment, str(bad_files[kind]))


@pytest.mark.parametrize("kind", list(FILE_FAILURES))
def test_lint_bad_metadata_file(empty_env: dict[str, str], bad_files: dict[str, Path], kind: str) -> None:
    _, fragment, problem_code = FILE_FAILURES[kind]
    result = invoke(empty_env, "lint", str(bad_files[kind]), "-o", "json")
    assert result.exit_code == 1, result.stderr
    data = parse_json(result.stdout)
    [problem] = data["targets"][0]["problems"]
    assert problem["code"] == problem_code
    if kind != "gzip-not-named":  # the hint is for people; the problem is the parse error
        assert fragment in problem["message"]


def test_lazily_invalid_file(empty_env: dict[str, str]) -> None:
    path = DATA / "corpus" / "iceberg-java" / "ViewMetadataInvalidCurrentVersion.json"
    fails(
        invoke(empty_env, "show", str(path)),
        ExitCode.METADATA,
        "Cannot find current version 1234 in view versions: [1, 2] (at $.current-version-id in",
    )
    fails(invoke(empty_env, "diff", str(path), "1"), ExitCode.METADATA, "Cannot find current version 1234")
    assert invoke(empty_env, "history", str(path)).exit_code == 0  # the log itself is readable


# ----------------------------------------------------------------------------- catalogs


@pytest.mark.parametrize("command", list(CATALOG_COMMANDS))
def test_unknown_catalog(demo: Demo, command: str) -> None:
    line = fails(
        invoke(demo.env, *CATALOG_COMMANDS[command], "--catalog", "prod"),
        ExitCode.CATALOG,
        "catalog 'prod' is not configured in",
        "PYICEBERG_CATALOG__PROD__* environment variables",
        str(Path(demo.env["PYICEBERG_HOME"]) / ".pyiceberg.yaml"),
        "(configured catalogs: demo)",
    )
    assert "does not exist" not in line


@pytest.mark.parametrize("command", list(CATALOG_COMMANDS))
def test_no_database(demo: Demo, tmp_path: Path, command: str) -> None:
    env = {**demo.env, "PYICEBERG_CATALOG__DEMO__URI": f"sqlite:///{tmp_path}/gone/catalog.db"}
    fails(
        invoke(env, *CATALOG_COMMANDS[command]),
        ExitCode.CATALOG,
        f"catalog 'demo' has no database: {tmp_path}/gone/catalog.db does not exist",
    )
    assert not (tmp_path / "gone").exists()  # nothing was created


def test_nothing_configured(empty_env: dict[str, str], tmp_path: Path) -> None:
    fails(
        invoke(empty_env, "list"),
        ExitCode.CATALOG,
        "no catalog: 'default' is not configured",
        f"iceview's default database {tmp_path}/warehouse/catalog.db does not exist",
    )
    assert not (tmp_path / "warehouse").exists()


def test_unreachable_database(demo: Demo) -> None:
    env = {**demo.env, "PYICEBERG_CATALOG__DEMO__URI": "postgresql://nobody:secret@127.0.0.1:1/none"}
    line = fails(
        invoke(env, "list"), ExitCode.CATALOG, "cannot open catalog 'demo'", "Database Connection failed"
    )
    assert "secret" not in line or "nobody:secret" not in line


def test_database_without_catalog_tables(demo: Demo, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).close()
    env = {**demo.env, "PYICEBERG_CATALOG__DEMO__URI": f"sqlite:///{other}"}
    fails(invoke(env, "list"), ExitCode.CATALOG, "holds no Iceberg catalog (it has no iceberg_tables table)")
    with sqlite3.connect(other) as conn:  # the CLI did not create the catalog's tables
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == []


def test_database_without_view_support(demo: Demo, tmp_path: Path) -> None:
    from iceview.catalog.sql import CREATE_NAMESPACE_PROPERTIES_TABLE_SQL, V0_CREATE_CATALOG_SQL

    v0 = tmp_path / "v0.db"
    with sqlite3.connect(v0) as conn:
        conn.execute(V0_CREATE_CATALOG_SQL)
        conn.execute(CREATE_NAMESPACE_PROPERTIES_TABLE_SQL)
    env = {**demo.env, "PYICEBERG_CATALOG__DEMO__URI": f"sqlite:///{v0}"}
    fails(invoke(env, "show", VIEW), ExitCode.CATALOG, "JDBC catalog is initialized without view support")


def test_bad_configuration_file(demo: Demo) -> None:
    (Path(demo.env["PYICEBERG_HOME"]) / ".pyiceberg.yaml").write_text("catalog:\n  - [unbalanced\n")
    fails(invoke(demo.env, "list"), ExitCode.CATALOG, "cannot read the PyIceberg configuration")
    fails(invoke(demo.env, "catalogs"), ExitCode.CATALOG, "cannot read the PyIceberg configuration")


def test_unsupported_catalog_type(demo: Demo) -> None:
    env = {**demo.env, "PYICEBERG_CATALOG__DEMO__TYPE": "glue"}
    fails(invoke(env, "list"), ExitCode.CATALOG, "Glue catalogs are not supported by iceview yet")


# ----------------------------------------------------------------------------- commits


def _conflict(*_args: object) -> None:
    from iceview.errors import CommitFailedError

    raise CommitFailedError("Cannot commit default.event_agg: metadata location has changed")


def _unknown(*_args: object) -> None:
    from iceview.errors import CommitStateUnknownError

    raise CommitStateUnknownError("Commit state unknown for view default.event_agg: the database failed")


CHANGES = {
    "rollback": ("rollback", VIEW, "--to", "1"),
    "set-property": ("set-property", VIEW, "k", "v"),
    "unset-property": ("unset-property", VIEW, "comment"),
}


@pytest.mark.parametrize("command", list(CHANGES))
def test_commit_conflict(demo: Demo, run: Run, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    from iceview.catalog.sql import SqlViewOperations

    with demo.catalog() as catalog:  # no retries, no sleeping
        catalog.load_view(VIEW).update_properties().set("commit.retry.num-retries", "0").commit()
    monkeypatch.setattr(SqlViewOperations, "do_commit", _conflict)
    fails(
        run(*CHANGES[command]),
        ExitCode.CONFLICT,
        "commit failed, nothing was changed",
        "has changed",
        "try again",
    )
    monkeypatch.setattr(SqlViewOperations, "do_commit", _unknown)
    fails(
        run(*CHANGES[command]), ExitCode.CONFLICT, "the outcome of the commit is unknown", "iceview history"
    )


def test_rollback_that_would_drop_a_dialect(demo: Demo, run: Run) -> None:
    with demo.catalog() as catalog:
        view = catalog.load_view(VIEW)
        view.replace_version(
            schema=view.schema,
            queries={"spark": "SELECT 1", "trino": "SELECT 1"},
            default_namespace="default",
        )
    line = fails(run("rollback", VIEW, "--to", "1"), ExitCode.FAILURE)
    assert line == (
        "iceview: Cannot replace view due to loss of view dialects (replace.drop-dialect.allowed=false): "
        "Previous dialects: [trino, spark]; New dialects: [spark] "
        f"(to allow it: iceview set-property {VIEW} replace.drop-dialect.allowed true)"
    )
    assert run("set-property", VIEW, "replace.drop-dialect.allowed", "true").exit_code == 0
    assert run("rollback", VIEW, "--to", "1").exit_code == 0


# ----------------------------------------------------------------------------- usage


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("show",), "Missing argument 'NAME'"),
        (("history",), "Missing argument 'NAME'"),
        (("diff", VIEW, "one"), "invalid version 'one'"),
        (("rollback", VIEW), "give exactly one of --to N and --at TIMESTAMP"),
        (("rollback", VIEW, "--to", "1", "--at", "0"), "give exactly one of --to N and --at TIMESTAMP"),
        (("rollback", VIEW, "--to", "x"), "'x' is not a valid integer"),
        (("rollback", VIEW, "--at", "yesterday"), "invalid timestamp 'yesterday'"),
        (("set-property", VIEW, "k"), "Missing argument 'VALUE'"),
        (("unset-property", VIEW), "Missing argument 'KEY'"),
        (("rename", VIEW), "Missing argument 'NEW'"),
        (("drop",), "Missing argument 'VIEW'"),
        (("drop", VIEW), "refusing to drop default.event_agg without confirmation: stdin is not a terminal"),
        (("lint",), "give metadata files or view names, or --all"),
        (("lint", VIEW, "--all"), "give metadata files or view names, or --all"),
        (("namespaces", "a", "b"), "unexpected extra argument"),
        (("list", "--output", "xml"), "'xml' is not one of 'text', 'json'"),
        (("show", "default..v"), "invalid view name 'default..v': empty name part"),
        (("show", "default.`v"), "unclosed backquote"),
        (("show", "`a/b`.x"), "contains '/'"),
        (("translate", "SELECT 1"), "Missing option '--to'"),
        (("translate", "--to", "trino"), "give a VIEW or --sql TEXT (not both)"),
        (("translate", VIEW, "--sql", "SELECT 1", "--to", "trino"), "give a VIEW or --sql TEXT (not both)"),
        (
            ("translate", "SELECT 1", "--to", "trino"),
            "'SELECT 1' is not a view name; to translate SQL text, use --sql",
        ),
        (
            ("translate", "--sql", "SELECT 1", "--to", "oracle"),
            "'oracle' is not one of 'spark', 'trino', 'duckdb'",
        ),
        (("translate", "--sql", "SELECT 1", "--from", "hive", "--to", "trino"), "'hive' is not one of"),
        (
            ("translate", VIEW, "--to", "trino", "--default-namespace", "x"),
            "are for --sql: a view uses its own",
        ),
        (("translate", "--sql", "-", "--to", "trino"), "no SQL on stdin"),
        (("add-dialect", VIEW), "Missing argument 'DIALECT...'"),
        (("add-dialect", VIEW, "trino", "oracle"), "'oracle' is not one of 'spark', 'trino', 'duckdb'"),
        (("sql", "SELECT 1", "--engine", "oracle"), "'oracle' is not one of 'duckdb', 'spark'"),
        (("sql", "SELECT 1", "--lenient", "--no-translate"), "--lenient cannot be used with --no-translate"),
        (
            ("sql", "CREATE VIEW default.v AS SELECT 1"),
            "iceview sql does not change the catalog: it runs queries (SELECT, WITH, VALUES, ...) "
            "and DESCRIBE, EXPLAIN and SHOW, not CREATE",
        ),
        (("sql", "INSERT INTO default.t VALUES (1)", "--engine", "spark"), "not INSERT"),
        (("sql", "EXPLAIN ANALYZE INSERT INTO default.t VALUES (1)"), "not INSERT"),
        (("sql", "SHOW TABLES"), "SHOW in DuckDB lists DuckDB's own objects, not the catalog's"),
        (("sql", "ALTER VIEW default.v SET TBLPROPERTIES ('k' = 'v')", "--engine", "spark"), "not ALTER"),
        (("sql", "SELECT 1; SELECT 2"), "give one query, not 2 statements"),
        (("sql", "-"), "no query on stdin"),
        (("sql", "SELECT 1", "-n", ""), "--namespace cannot be empty"),
        (("frobnicate",), "No such command 'frobnicate'"),
        (("--frob", "list"), "No such option '--frob'"),
    ],
)
def test_usage_errors(run: Run, args: tuple[str, ...], fragment: str) -> None:
    line = fails(run(*args), ExitCode.USAGE, fragment)
    assert line.endswith("--help')")


# ----------------------------------------------------------------------------- translate, add-dialect, sql


@pytest.fixture
def lake_run(tmp_path: Path) -> Run:
    """The CLI against a demo catalog with the events lake (cli_support.add_events)."""
    env = build_lake(tmp_path / "lake").env

    def _run(*args: str, input: str | None = None) -> Result:
        return invoke(env, *args, input=input)

    return _run


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (
            ("translate", "--sql", "SELECT hash(source) FROM events", "--to", "duckdb"),
            ("cannot translate spark SQL to duckdb: 1 construct refused: HASH(events.source)", "[hash]"),
        ),
        (
            ("translate", "--sql", "SELECT * FROM events TABLESAMPLE (10 PERCENT)", "--to", "trino"),
            ("construct", "[tablesample]"),
        ),
        (
            ("translate", "--sql", "SELECT explode_outer(array(1)) AS x", "--to", "duckdb"),
            ("[outer-explode]",),
        ),
        (
            ("translate", "--sql", "SELEC 1", "--to", "trino"),
            ("Cannot translate spark SQL", "Invalid expression / Unexpected token"),
        ),
        (
            ("translate", "--sql", "SELECT 1; SELECT 2", "--to", "trino"),
            ("Cannot translate spark SQL",),
        ),
        (
            ("translate", VIEW, "--to", "duckdb"),
            (f"{VIEW}: cannot translate spark SQL to duckdb: 2 constructs refused", "[nested-namespace]"),
        ),
        (
            ("add-dialect", VIEW, "trino"),
            (f"{VIEW}: nothing was committed: cannot translate spark SQL to trino", "[ansi-cast]"),
        ),
        (
            ("sql", "--no-translate", "SELECT * FROM default.source_stats"),
            (
                "View demo.default.source_stats has no SQL for dialect duckdb (its dialects: trino)",
                "drop --no-translate",
            ),
        ),
    ],
)
def test_translation_refused(lake_run: Run, args: tuple[str, ...], fragments: tuple[str, ...]) -> None:
    fails(lake_run(*args), ExitCode.REFUSED, *fragments)


def test_add_dialect_refused_changes_nothing(demo: Demo, run: Run) -> None:
    before = demo.metadata_file()
    fails(run("add-dialect", VIEW, "trino", "duckdb"), ExitCode.REFUSED, "nothing was committed")
    assert demo.metadata_file() == before


def test_a_dialect_the_view_does_not_have(run: Run) -> None:
    fails(
        run("translate", VIEW, "--from", "trino", "--to", "duckdb"),
        ExitCode.NOT_FOUND,
        f"{VIEW} has no SQL for dialect trino (its dialects: spark)",
    )
    fails(
        run("add-dialect", VIEW, "duckdb", "--from", "trino"),
        ExitCode.NOT_FOUND,
        "has no SQL for dialect trino",
    )


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (
            ("sql", "SELECT * FROM default.nope"),
            ExitCode.NOT_FOUND,
            "table or view default.nope does not exist in catalog 'demo'",
        ),
        (
            ("sql", "SELECT * FROM demo.default.nope"),
            ExitCode.NOT_FOUND,
            "table or view demo.default.nope does not exist",
        ),
        (
            ("sql", "SELECT * FROM nope"),
            ExitCode.NOT_FOUND,
            "duckdb: Catalog Error: Table with name nope does not exist!",
        ),
        (
            ("sql", "SELECT 1", "-n", "nowhere"),
            ExitCode.NOT_FOUND,
            "namespace nowhere does not exist in catalog 'demo'",
        ),
        (("sql", "SELEC 1"), ExitCode.FAILURE, "Cannot parse query: Invalid expression / Unexpected token"),
        (
            ("sql", "SELECT nope FROM default.events"),
            ExitCode.FAILURE,
            'duckdb: Binder Error: Referenced column "nope" not found',
        ),
        (("sql", "SELECT * FROM default.event_agg", "--translate"), ExitCode.REFUSED, "[nested-namespace]"),
    ],
)
def test_sql_errors(lake_run: Run, args: tuple[str, ...], code: ExitCode, fragment: str) -> None:
    line = fails(lake_run(*args), code, fragment)
    assert "\n" not in line


def test_translate_text_with_an_unavailable_named_catalog(demo: Demo, tmp_path: Path) -> None:
    """SQL text needs no catalog, but one named with --catalog must open."""
    fails(
        invoke(demo.env, "translate", "--sql", "SELECT 1", "--to", "trino", "--catalog", "prod"),
        ExitCode.CATALOG,
        "catalog 'prod' is not configured",
    )
    env = {**demo.env, "PYICEBERG_CATALOG__DEMO__URI": f"sqlite:///{tmp_path}/gone/catalog.db"}
    result = invoke(env, "translate", "--sql", "SELECT 1 AS x", "--to", "trino")
    assert (result.exit_code, result.stdout) == (0, "SELECT 1 AS x\n")
    assert "warning: no table schemas: catalog 'demo' has no database" in result.stderr


# ----------------------------------------------------------------------------- --debug and surprises


def test_debug_shows_the_traceback(run: Run) -> None:
    quiet = run("show", MISSING)
    assert "Traceback" not in quiet.stderr
    loud = run("show", MISSING, "--debug")
    assert loud.exit_code == ExitCode.NOT_FOUND
    assert "Traceback (most recent call last)" in loud.stderr
    assert (
        loud.stderr.rstrip().splitlines()[-1] == f"iceview: view {MISSING} does not exist in catalog 'demo'"
    )
    assert "Traceback" in run("--debug", "show", MISSING).stderr


def test_unexpected_errors_are_one_line_too(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    from iceview.cli.commands import show

    def boom(*_args: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(show, "load_view_or_function", boom)
    fails(
        run("show", VIEW),
        ExitCode.FAILURE,
        "unexpected error: ZeroDivisionError: division by zero",
        "--debug",
    )
    assert "Traceback" in run("show", VIEW, "--debug").stderr


def test_catalog_names_as_pyiceberg_reads_them(demo: Demo) -> None:
    """The configuration is looked up case-insensitively, but the catalog's name in the database is
    the name as given (as PyIceberg does): DEMO is configured, and holds no views."""
    assert invoke(demo.env, "list", "--catalog", CATALOG).stdout.splitlines() == [OTHER, VIEW]
    upper = invoke(demo.env, "list", "-c", "DEMO")
    assert (upper.exit_code, upper.stdout) == (0, "")


def test_sql_with_spark_in_a_process_that_runs_spark(
    demo: Demo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI never borrows (and then stops) a Spark session it did not start."""
    from pyspark.sql import SparkSession

    monkeypatch.setattr(SparkSession, "getActiveSession", classmethod(lambda cls: object()))
    fails(
        run("sql", "SELECT 1", "--engine", "spark"),
        ExitCode.FAILURE,
        "the spark engine starts its own Spark, but this process already runs a Spark session",
    )


def test_sql_translate_refusal_names_the_view_its_dialects_and_each_construct(tmp_path: Path) -> None:
    lake = build_lake(tmp_path / "lake")
    with lake.catalog() as catalog:
        catalog.create_view(
            "default.hashed",
            schema=Schema(NestedField(1, "h", IntegerType(), required=False)),
            queries={"spark": "SELECT hash(source) AS h FROM events"},
            default_namespace=("default",),
        )
    result = invoke(lake.env, "sql", "SELECT * FROM default.hashed", "--translate")
    assert result.exit_code == 7
    line = error_line(result.stderr)
    assert line.startswith(
        "iceview: View demo.default.hashed has no SQL for dialect duckdb (its dialects: spark): "
        "cannot translate spark SQL to duckdb: 1 construct refused: HASH(events.source)"
    ), line
    assert "[hash]" in line


@pytest.mark.parametrize("new", ["x" * 10_000, "x" * 129, "default." + "é" * 112])
def test_a_new_name_over_the_length_limit_is_a_usage_error(run: Run, demo: Demo, new: str) -> None:
    before = sorted(p.name for p in demo.warehouse.rglob("*"))
    line = fails(run("rename", VIEW, new), ExitCode.USAGE, "Invalid name", "allowed")
    assert len(line) < 300, line  # the name is not echoed whole
    assert sorted(p.name for p in demo.warehouse.rglob("*")) == before
    catalog = demo.catalog()
    try:
        assert catalog.view_exists(VIEW)
    finally:
        catalog.close()
