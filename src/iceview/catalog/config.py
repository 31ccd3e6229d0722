"""``load_catalog``: catalogs configured the way PyIceberg configures them, so that one
``.pyiceberg.yaml`` serves both libraries.

Where the properties come from, later ones winning:

1. the first ``.pyiceberg.yaml`` found in ``$PYICEBERG_HOME``, then ``~``, then the working
   directory, under ``catalog: <name>:``;
2. ``PYICEBERG_CATALOG__<NAME>__<KEY>`` environment variables (``__`` nests, ``_`` becomes ``-``:
   ``PYICEBERG_CATALOG__PROD__JDBC__SCHEMA_VERSION`` is ``jdbc.schema-version`` of catalog ``prod``);
3. the keyword arguments of :func:`load_catalog`.

This is PyIceberg's own reader (``pyiceberg.utils.config.Config``), read afresh on every call.

The catalog type comes from ``type`` (``sql``, ``in-memory``, ``rest``), else from the ``uri``
scheme (``sqlite``, ``postgresql``, ``jdbc:sqlite``, ``jdbc:postgresql`` mean ``sql``; ``http`` and
``https`` mean ``rest``, an Iceberg REST catalog: :mod:`iceview.catalog.rest`). Without a ``uri``,
iceview uses an embedded SQLite catalog: the file ``catalog.db`` in the warehouse folder, which is
``warehouse`` if it is a local path or ``file:`` URI, else ``./warehouse``. So with nothing
configured at all, ``load_catalog()`` gives catalog ``default`` in ``./warehouse/catalog.db`` with
views under ``./warehouse``. That fallback is for the default catalog only (``default-catalog``,
else ``default``): another name that is configured nowhere raises
:class:`~iceview.errors.NoSuchCatalogError`, naming the configured catalogs and where ``name`` would
be configured.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

from iceview.catalog.interface import Catalog
from iceview.errors import CatalogError, InvalidArgumentError, NoSuchCatalogError, UnsupportedOperationError

__all__ = [
    "DEFAULT_WAREHOUSE",
    "ConfigSources",
    "ResolvedCatalog",
    "config_sources",
    "load_catalog",
    "load_catalog_properties",
    "resolve_catalog",
]

DEFAULT_WAREHOUSE = "warehouse"
SQLITE_FILE = "catalog.db"
_SQL_SCHEMES = ("sqlite", "postgresql", "postgres", "jdbc:sqlite", "jdbc:postgresql")
_UNSUPPORTED = {
    "glue": "Glue",
    "dynamodb": "DynamoDB",
    "bigquery": "BigQuery",
}


def _flatten(conf: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested YAML/env mappings (``s3: {endpoint: x}``) as dotted keys (``s3.endpoint``)."""
    out: dict[str, str] = {}
    for key, value in conf.items():
        full = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, full + "."))
        elif value is not None:
            out[full] = str(value)
    return out


_YAML = ".pyiceberg.yaml"


@dataclass(frozen=True)
class ConfigSources:
    """Where PyIceberg looks for its configuration, and what it found."""

    searched: tuple[str, ...]  # the .pyiceberg.yaml paths, in search order
    file: str | None  # the one it reads (the first that exists)
    default_name: str  # `default-catalog`, else "default"
    names: tuple[str, ...]  # catalogs configured in the file or the environment

    def describe(self, name: str | None = None) -> str:
        """Where the configuration of catalog ``name`` is looked for, in words."""
        env = f"PYICEBERG_CATALOG__{(name or '<NAME>').upper()}__* environment variables"
        if self.file:
            return f"{self.file} or {env}"
        return f"{env} (no .pyiceberg.yaml: looked for {', '.join(self.searched)})"

    def not_configured(self, name: str) -> NoSuchCatalogError:
        """The error for catalog ``name``, configured nowhere."""
        known = ", ".join(self.names) if self.names else "none"
        return NoSuchCatalogError(
            f"catalog {name!r} is not configured in {self.describe(name)} (configured catalogs: {known})"
        )


def config_sources() -> ConfigSources:
    """The configuration files PyIceberg searches ($PYICEBERG_HOME, ~, the working directory), the
    one it reads, and the catalogs configured there or in the environment."""
    from pyiceberg.utils.config import Config

    try:
        config = Config()
        names = tuple(sorted(config.get_known_catalogs()))
        default_name = config.get_default_catalog_name()
    except Exception as e:  # strictyaml errors, and PyIceberg's ValueErrors
        raise CatalogError(f"cannot read the PyIceberg configuration: {e}") from e
    searched: list[str] = []
    for directory in (os.environ.get("PYICEBERG_HOME"), os.path.expanduser("~"), os.getcwd()):
        if directory:
            path = os.path.join(directory, _YAML)
            if path not in searched:
                searched.append(path)
    found = next((p for p in searched if os.path.isfile(p)), None)
    return ConfigSources(tuple(searched), found, default_name, names)


def load_catalog_properties(name: str | None = None, **properties: str) -> tuple[str, dict[str, str]]:
    """The catalog name and its merged properties (config file, environment, then arguments)."""
    from pyiceberg.utils.config import Config, merge_config

    config = Config()
    if name is None:
        name = config.get_default_catalog_name()
    from_config = config.get_catalog_config(name) or {}
    merged = merge_config(dict(from_config), dict(properties))
    return name, _flatten(merged)


def _local_dir(location: str) -> str | None:
    """The local folder of a warehouse location, or None if it is not local."""
    parsed = urlparse(location)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    if parsed.scheme == "" or (len(parsed.scheme) == 1 and os.name == "nt"):
        return location
    return None


def _embedded_sqlite(props: dict[str, str]) -> None:
    warehouse = props.get("warehouse")
    folder = _local_dir(warehouse) if warehouse else None
    if warehouse and folder is None:
        raise InvalidArgumentError(
            f"Catalog has no 'uri' and its warehouse {warehouse} is not a local folder: "
            "set 'uri' (e.g. sqlite:///path/catalog.db or postgresql+psycopg://...)"
        )
    folder = os.path.abspath(folder or DEFAULT_WAREHOUSE)
    props["uri"] = f"sqlite:///{os.path.join(folder, SQLITE_FILE)}"
    if not warehouse:
        props["warehouse"] = "file://" + folder


def _catalog_type(props: Mapping[str, str]) -> str:
    declared = props.get("type")
    if declared:
        return declared.lower()
    uri = props.get("uri")
    if not uri:
        return "sql"
    scheme = (
        uri.split("://", 1)[0].split("+", 1)[0].lower() if "://" in uri else uri.rsplit(":", 1)[0].lower()
    )
    if scheme.startswith(_SQL_SCHEMES) or uri.startswith(("jdbc:sqlite:", "jdbc:postgresql:")):
        return "sql"
    if scheme in ("http", "https"):
        return "rest"
    if scheme == "thrift":
        return "hive"
    raise InvalidArgumentError(f"Cannot infer the catalog type from uri {uri!r}: set 'type'")


@dataclass(frozen=True)
class ResolvedCatalog:
    """A catalog's configuration as :func:`load_catalog` resolves it: its name, its type, and the
    properties it is opened with (the embedded SQLite ``uri`` and ``warehouse`` filled in)."""

    name: str
    catalog_type: str
    properties: dict[str, str]


def resolve_catalog(name: str | None = None, **properties: str) -> ResolvedCatalog:
    """The configuration :func:`load_catalog` opens, without opening it: where the name, type and
    properties come from is the same for the API and the command line."""
    asked = name
    name, props = load_catalog_properties(name, **properties)
    if asked is not None and not props:  # configured nowhere, and no properties given
        sources = config_sources()
        if asked.lower() != sources.default_name.lower() and asked.lower() not in sources.names:
            raise sources.not_configured(asked)
    kind = _catalog_type(props)
    if kind in ("sql", "jdbc"):
        if not props.get("uri"):
            _embedded_sqlite(props)
    elif kind == "in-memory":
        props.setdefault("uri", "sqlite:///:memory:")
        props.setdefault("warehouse", "file:///tmp/iceberg/warehouse")
    elif kind == "rest":
        if not props.get("uri"):
            raise InvalidArgumentError(f"REST catalog {name} has no 'uri' (e.g. http://localhost:8181/)")
    elif kind == "hive":
        if not props.get("uri"):
            raise InvalidArgumentError(f"Hive catalog {name} has no 'uri' (e.g. thrift://localhost:9083)")
    elif kind in _UNSUPPORTED:
        raise UnsupportedOperationError(f"{_UNSUPPORTED[kind]} catalogs are not supported by iceview yet")
    else:
        raise InvalidArgumentError(f"Unknown catalog type: {kind}")
    return ResolvedCatalog(name, kind, props)


def load_catalog(name: str | None = None, **properties: str) -> Catalog:
    """Load a view catalog configured as PyIceberg configures catalogs (see the module docs).

    >>> catalog = load_catalog("prod", uri="sqlite:///tmp/cat.db", warehouse="file:///tmp/wh")
    """
    resolved = resolve_catalog(name, **properties)
    props = dict(resolved.properties)
    props.pop("type", None)
    if resolved.catalog_type == "rest":
        from iceview.catalog.rest import RestCatalog

        return RestCatalog(resolved.name, **props)
    if resolved.catalog_type == "hive":
        from iceview.catalog.hive import HiveCatalog

        return HiveCatalog(resolved.name, **props)
    from iceview.catalog.sql import SqlCatalog

    return SqlCatalog(resolved.name, **props)
