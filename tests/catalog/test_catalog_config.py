"""load_catalog: PyIceberg's configuration conventions, and the embedded default."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from catalog_support import SCHEMA, TABLE_SCHEMA

import iceview
from iceview.catalog.config import load_catalog_properties
from iceview.catalog.sql import SqlCatalog, to_sqlalchemy_url
from iceview.errors import InvalidArgumentError, ServiceUnavailableError, UnsupportedOperationError


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No config anywhere: empty HOME, no PYICEBERG_* variables, cwd in a fresh folder."""
    for key in list(os.environ):
        if key.upper().startswith("PYICEBERG"):
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return tmp_path


def _yaml(folder: Path, name: str, uri: str, warehouse: str, extra: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".pyiceberg.yaml").write_text(
        f"catalog:\n  {name}:\n    uri: {uri}\n    warehouse: {warehouse}\n{extra}", encoding="utf-8"
    )


def test_nothing_configured_gives_embedded_sqlite_under_warehouse(clean_env: Path) -> None:
    catalog = iceview.load_catalog()
    assert isinstance(catalog, SqlCatalog)
    assert catalog.name == "default"
    cwd = clean_env / "cwd"
    assert catalog.properties["uri"] == f"sqlite:///{cwd}/warehouse/catalog.db"
    assert catalog.properties["warehouse"] == f"file://{cwd}/warehouse"
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", schema=SCHEMA, queries={"spark": "SELECT 1"}, default_namespace="ns")
    assert str(view.metadata_location).startswith(f"file://{cwd}/warehouse/ns/v/metadata/00000-")
    assert (cwd / "warehouse" / "catalog.db").exists()
    catalog.close()


def test_search_order_pyiceberg_home_then_home_then_cwd(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _yaml(clean_env / "cwd", "prod", "sqlite:///from-cwd.db", "file:///cwd")
    assert load_catalog_properties("prod")[1]["uri"] == "sqlite:///from-cwd.db"
    _yaml(clean_env / "home", "prod", "sqlite:///from-home.db", "file:///home")
    assert load_catalog_properties("prod")[1]["uri"] == "sqlite:///from-home.db"
    _yaml(clean_env / "ph", "prod", "sqlite:///from-pyiceberg-home.db", "file:///ph")
    monkeypatch.setenv("PYICEBERG_HOME", str(clean_env / "ph"))
    assert load_catalog_properties("prod")[1]["uri"] == "sqlite:///from-pyiceberg-home.db"


def test_environment_and_arguments(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _yaml(clean_env / "home", "prod", "sqlite:///yaml.db", "file:///wh", "    view-default.key1: from-yaml\n")
    monkeypatch.setenv("PYICEBERG_CATALOG__PROD__URI", "sqlite:///env.db")
    monkeypatch.setenv("PYICEBERG_CATALOG__PROD__JDBC__SCHEMA_VERSION", "V1")
    name, props = load_catalog_properties("prod")
    assert name == "prod"
    assert props["uri"] == "sqlite:///env.db"
    assert props["jdbc.schema-version"] == "V1"
    assert props["view-default.key1"] == "from-yaml"
    _, props = load_catalog_properties("prod", uri="sqlite:///arg.db")
    assert props["uri"] == "sqlite:///arg.db"


def test_default_catalog_name_from_config(clean_env: Path) -> None:
    db = clean_env / "c.db"
    wh = clean_env / "wh"
    (clean_env / "home" / ".pyiceberg.yaml").write_text(
        f"default-catalog: prod\ncatalog:\n  prod:\n    uri: sqlite:///{db}\n    warehouse: file://{wh}\n"
        f"    view-override.owner: team\n",
        encoding="utf-8",
    )
    catalog = iceview.load_catalog()
    assert catalog.name == "prod"
    catalog.create_namespace("ns")
    view = catalog.create_view("ns.v", schema=SCHEMA, queries={"spark": "SELECT 1"}, default_namespace="ns")
    assert view.properties["owner"] == "team"
    catalog.close()


def test_one_config_file_serves_pyiceberg_too(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same .pyiceberg.yaml entry loads PyIceberg's SqlCatalog and ours, on one database."""
    import pyiceberg.catalog
    from pyiceberg.catalog import load_catalog as pyiceberg_load_catalog
    from pyiceberg.utils.config import Config

    db = clean_env / "shared.db"
    wh = clean_env / "wh"
    _yaml(clean_env / "home", "shared", f"sqlite:///{db}", f"file://{wh}")
    # PyIceberg reads its config once, at import: make it read this test's
    monkeypatch.setattr(pyiceberg.catalog, "_ENV_CONFIG", Config())
    views = iceview.load_catalog("shared")
    tables = pyiceberg_load_catalog("shared")
    assert type(tables).__name__ == "SqlCatalog"
    views.create_namespace("ns")
    tables.create_table("ns.t", schema=TABLE_SCHEMA)
    views.create_view("ns.v", schema=SCHEMA, queries={"spark": "SELECT * FROM ns.t"}, default_namespace="ns")
    assert views.list_tables("ns") == [("ns", "t")]
    assert tables.list_tables("ns") == [("ns", "t")]
    assert views.list_views("ns") == [("ns", "v")]
    views.close()


def test_types_and_uris(clean_env: Path) -> None:
    with pytest.raises(ServiceUnavailableError, match="Cannot reach the REST catalog"):
        iceview.load_catalog("r", uri="http://127.0.0.1:9")
    with pytest.raises(UnsupportedOperationError, match="Glue catalogs are not supported"):
        iceview.load_catalog("g", type="glue")
    with pytest.raises(InvalidArgumentError, match=r"Hive catalog h has no 'uri'"):
        iceview.load_catalog("h", type="hive")
    with pytest.raises(InvalidArgumentError, match=r"expected thrift://host:port"):
        iceview.load_catalog("h", type="hive", uri="http://x:1")
    with pytest.raises(InvalidArgumentError, match="Unknown catalog type"):
        iceview.load_catalog("x", type="nope")
    mem = iceview.load_catalog("m", type="in-memory")
    mem.create_namespace("ns")
    assert mem.list_namespaces() == [("ns",)]
    mem.close()
    with pytest.raises(InvalidArgumentError, match="not a local folder"):
        iceview.load_catalog("s3only", warehouse="s3://bucket/wh")


def test_jdbc_urls_are_understood() -> None:
    assert str(to_sqlalchemy_url("jdbc:sqlite:/tmp/x/catalog.db")) == "sqlite:////tmp/x/catalog.db"
    url = to_sqlalchemy_url(
        "jdbc:postgresql://127.0.0.1:5432/iceberg", {"jdbc.user": "u", "jdbc.password": "p"}
    )
    assert url.drivername == "postgresql+psycopg"
    assert (url.username, url.password, url.host, url.port, url.database) == (
        "u",
        "p",
        "127.0.0.1",
        5432,
        "iceberg",
    )
    assert to_sqlalchemy_url("postgresql://h/db").drivername == "postgresql+psycopg"
    assert to_sqlalchemy_url("postgresql+psycopg://h/db").drivername == "postgresql+psycopg"


def test_jdbc_sqlite_uri_in_load_catalog(clean_env: Path) -> None:
    db = clean_env / "j.db"
    catalog = iceview.load_catalog("j", uri=f"jdbc:sqlite:{db}", warehouse=f"file://{clean_env}/wh")
    catalog.create_namespace("ns")
    assert db.exists()
    catalog.close()
