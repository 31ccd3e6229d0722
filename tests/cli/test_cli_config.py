"""Catalog configuration as PyIceberg reads it: .pyiceberg.yaml (PYICEBERG_HOME, ~, the working
directory) and PYICEBERG_CATALOG__* variables; ``iceview catalogs``; secrets never printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import OTHER, VIEW, Demo, error_line, invoke, parse_json

from iceview.cli import ExitCode
from iceview.cli.config import redact, sqlite_file


def without_catalog_variables(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if not k.startswith(("PYICEBERG_CATALOG__", "PYICEBERG_DEFAULT"))}


def write_yaml(folder: str | Path, text: str) -> Path:
    path = Path(folder) / ".pyiceberg.yaml"
    path.write_text(text)
    return path


def test_yaml_in_pyiceberg_home(demo: Demo) -> None:
    env = without_catalog_variables(demo.env)
    path = write_yaml(
        env["PYICEBERG_HOME"],
        f"catalog:\n  demo:\n    uri: sqlite:///{demo.database}\n    warehouse: file://{demo.warehouse}\n"
        "  prod:\n    uri: postgresql+psycopg://iceberg:s3cret@db.internal:5432/iceberg\n"
        "    jdbc.password: hunter2\n",
    )
    result = invoke(env, "list", "--catalog", "demo")
    assert result.exit_code == 0 and result.stdout.splitlines() == [OTHER, VIEW]
    data = parse_json(invoke(env, "catalogs", "-o", "json").stdout)
    assert data["config-file"] == str(path)
    assert [c["name"] for c in data["catalogs"]] == ["demo", "prod"]
    assert data["catalogs"][1]["uri"] == "postgresql+psycopg://iceberg:***@db.internal:5432/iceberg"
    text = invoke(env, "catalogs").stdout
    assert "s3cret" not in text and "hunter2" not in text
    assert f"configuration: {path}" in text


def test_yaml_default_catalog(demo: Demo) -> None:
    env = without_catalog_variables(demo.env)
    write_yaml(
        env["PYICEBERG_HOME"],
        f"default-catalog: demo\ncatalog:\n  demo:\n    uri: sqlite:///{demo.database}\n",
    )
    result = invoke(env, "list")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [OTHER, VIEW]
    data = parse_json(invoke(env, "catalogs", "-o", "json").stdout)
    assert data["default-catalog"] == "demo" and data["catalogs"][0]["default"] is True


def test_yaml_in_the_working_directory(demo: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = without_catalog_variables(demo.env)
    env.pop("PYICEBERG_HOME")
    workdir = tmp_path / "work"
    workdir.mkdir()
    write_yaml(workdir, f"catalog:\n  demo:\n    uri: sqlite:///{demo.database}\n")
    monkeypatch.chdir(workdir)
    result = invoke(env, "list", "-c", "demo")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [OTHER, VIEW]


def test_variables_win_over_the_file(demo: Demo, tmp_path: Path) -> None:
    write_yaml(demo.env["PYICEBERG_HOME"], f"catalog:\n  demo:\n    uri: sqlite:///{tmp_path}/elsewhere.db\n")
    result = invoke(demo.env, "list")
    assert result.exit_code == 0, result.stderr  # PYICEBERG_CATALOG__DEMO__URI wins


def test_unknown_catalog_names_the_file_that_was_read(demo: Demo) -> None:
    path = write_yaml(demo.env["PYICEBERG_HOME"], "catalog:\n  other:\n    uri: sqlite:///x.db\n")
    result = invoke(demo.env, "list", "--catalog", "prod")
    assert result.exit_code == ExitCode.CATALOG
    assert error_line(result.stderr) == (
        f"iceview: catalog 'prod' is not configured in {path} or PYICEBERG_CATALOG__PROD__* "
        "environment variables (configured catalogs: demo, other)"
    )


def test_catalogs_with_one_name(demo: Demo) -> None:
    data = parse_json(invoke(demo.env, "catalogs", "--catalog", "demo", "-o", "json").stdout)
    assert [c["name"] for c in data["catalogs"]] == ["demo"]
    assert invoke(demo.env, "catalogs", "--catalog", "prod").exit_code == ExitCode.CATALOG


def test_catalogs_when_nothing_is_configured(empty_env: dict[str, str]) -> None:
    result = invoke(empty_env, "catalogs")
    assert result.exit_code == 0
    assert "no catalogs configured" in result.stdout
    data = parse_json(invoke(empty_env, "catalogs", "-o", "json").stdout)
    assert data["catalogs"] == [] and data["default-catalog"] == "default"


def test_catalogs_never_show_a_postgresql_password(demo: Demo) -> None:
    """Passwords in the user part of a URI, in a JDBC URL's parameters and in ``jdbc.password``:
    listed without opening the catalogs, and masked."""
    env = {
        **demo.env,
        "PYICEBERG_CATALOG__PROD__URI": "postgresql://admin:topsecret@db.example.com:5432/iceberg",
        "PYICEBERG_CATALOG__PROD__WAREHOUSE": "s3://lake/warehouse",
        "PYICEBERG_CATALOG__LEGACY__URI": "jdbc:postgresql://db.example.com/iceberg?user=admin&password=qsecret",
        "PYICEBERG_CATALOG__LEGACY__JDBC__PASSWORD": "propsecret",
    }
    data = parse_json(invoke(env, "catalogs", "-o", "json").stdout)
    listed = {c["name"]: c for c in data["catalogs"]}
    assert listed["prod"]["type"] == "sql" and listed["legacy"]["type"] == "sql"
    assert listed["prod"]["uri"] == "postgresql://admin:***@db.example.com:5432/iceberg"
    assert listed["legacy"]["uri"] == "jdbc:postgresql://db.example.com/iceberg?user=admin&password=***"
    result = invoke(env, "catalogs")
    assert result.exit_code == 0, result.stderr
    assert "postgresql://admin:***@db.example.com:5432/iceberg" in result.stdout
    for secret in ("topsecret", "qsecret", "propsecret"):
        assert secret not in result.stdout and secret not in result.stderr
        assert secret not in invoke(env, "catalogs", "-o", "json").stdout


def test_catalogs_lists_a_type_iceview_cannot_open(demo: Demo) -> None:
    env = {**demo.env, "PYICEBERG_CATALOG__DEMO__TYPE": "glue"}
    data = parse_json(invoke(env, "catalogs", "-o", "json").stdout)
    assert [(c["name"], c["type"]) for c in data["catalogs"]] == [("demo", "glue")]
    result = invoke(env, "list")
    assert result.exit_code == ExitCode.CATALOG
    assert error_line(result.stderr) == (
        "iceview: cannot open catalog 'demo': Glue catalogs are not supported by iceview yet"
    )


def test_redact() -> None:
    assert redact("postgresql://u:pw@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert redact("jdbc:postgresql://h/db?user=u&password=pw&ssl=true") == (
        "jdbc:postgresql://h/db?user=u&password=***&ssl=true"
    )
    assert redact("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"


def test_sqlite_file() -> None:
    assert sqlite_file("sqlite:////tmp/x.db") == "/tmp/x.db"
    assert sqlite_file("sqlite:///rel/x.db") == "rel/x.db"
    assert sqlite_file("jdbc:sqlite:/tmp/x.db") == "/tmp/x.db"
    assert sqlite_file("jdbc:sqlite:file:/tmp/x.db") == "/tmp/x.db"
    assert sqlite_file("sqlite:///:memory:") is None
    assert sqlite_file("sqlite://") is None
    assert sqlite_file("postgresql://h/db") is None
