"""Which catalogs are configured, and opening one for a command.

The configuration is PyIceberg's (see :mod:`iceview.catalog.config`). On top of
:func:`iceview.load_catalog` the CLI refuses what a command line should not do silently:

* a catalog name that is configured nowhere (the default name alone may fall back to iceview's
  embedded SQLite catalog, ``./warehouse/catalog.db``);
* a SQLite catalog whose database file does not exist: the CLI never creates a database, nor the
  catalog tables in an existing one (``jdbc.init-catalog-tables=false`` unless configured).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from iceview.cli.errors import CatalogUnavailable, one_line, translate

if TYPE_CHECKING:
    from iceview.catalog import Catalog
    from iceview.catalog.config import ConfigSources

__all__ = [
    "CatalogConfig",
    "catalog_config",
    "config_sources",
    "configured_catalogs",
    "open_catalog",
    "redact",
    "sqlite_file",
]

_INIT_TABLES_KEYS = ("jdbc.init-catalog-tables", "init_catalog_tables")


@dataclass(frozen=True)
class CatalogConfig:
    """A catalog's effective properties, as :func:`iceview.load_catalog` would use them."""

    name: str
    configured: bool
    type: str
    properties: dict[str, str]


def config_sources() -> ConfigSources:
    """Where PyIceberg's configuration is (:func:`iceview.catalog.config.config_sources`)."""
    from iceview.catalog.config import config_sources as sources
    from iceview.errors import CatalogError

    try:
        return sources()
    except CatalogError as e:
        raise CatalogUnavailable(one_line(str(e))) from e


def catalog_config(name: str | None) -> CatalogConfig:
    """The effective configuration of catalog ``name`` (the default catalog when ``None``): what
    :func:`iceview.catalog.config.resolve_catalog` says :func:`iceview.load_catalog` opens. A
    catalog of a type iceview cannot open yet (Glue, DynamoDB, ...) is still described, with its
    declared type; opening it says why it cannot be used."""
    from iceview.catalog.config import load_catalog_properties, resolve_catalog
    from iceview.errors import NoSuchCatalogError, UnsupportedOperationError

    sources = config_sources()
    wanted = name or sources.default_name
    configured = wanted.lower() in sources.names
    try:
        resolved = resolve_catalog(wanted)
    except NoSuchCatalogError as e:
        raise CatalogUnavailable(str(e)) from e
    except UnsupportedOperationError:
        resolved_name, props = load_catalog_properties(wanted)
        return CatalogConfig(resolved_name, configured, props.get("type", "?").lower(), props)
    except Exception as e:
        raise CatalogUnavailable(f"catalog {wanted!r} is misconfigured: {one_line(str(e))}") from e
    return CatalogConfig(resolved.name, configured, resolved.catalog_type, resolved.properties)


def configured_catalogs() -> tuple[ConfigSources, list[CatalogConfig]]:
    """Every configured catalog, plus the default one when it exists without configuration."""
    sources = config_sources()
    found: list[CatalogConfig] = []
    for name in sources.names:
        try:
            found.append(catalog_config(name))
        except CatalogUnavailable:
            found.append(CatalogConfig(name, True, "?", {}))
    if sources.default_name.lower() not in sources.names:
        implicit = catalog_config(sources.default_name)
        database = sqlite_file(implicit.properties.get("uri", ""))
        if database and os.path.exists(database):
            found.insert(0, implicit)
    return sources, found


def sqlite_file(uri: str) -> str | None:
    """The database file of a SQLite URI (SQLAlchemy or JDBC form), or None."""
    if uri.startswith("jdbc:sqlite:"):
        path = uri[len("jdbc:sqlite:") :]
        path = path[len("file:") :] if path.startswith("file:") else path
    elif uri.startswith("sqlite"):
        parsed = urlparse(uri)
        path = unquote(parsed.path)[1:] if parsed.path.startswith("/") else unquote(parsed.path)
        path = path.split("?", 1)[0]
    else:
        return None
    if path in ("", ":memory:") or path.startswith("file:"):
        return None
    return path


_PASSWORD = re.compile(r"(?i)((?:password|pwd|secret|token|credential)=)[^&;]*")


def redact(uri: str) -> str:
    """A URI with its password and secret parameters masked."""
    masked = re.sub(r"(//[^/:@]*:)[^@/]*@", r"\1***@", uri)
    return _PASSWORD.sub(r"\1***", masked)


@contextlib.contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    logger = logging.getLogger(logger_name)
    previous = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(previous)


def open_catalog(name: str | None) -> Catalog:
    """Load catalog ``name`` (the default one when ``None``) for a command; see the module docs."""
    config = catalog_config(name)
    props = config.properties
    uri = props.get("uri", "")
    database = sqlite_file(uri) if config.type in ("sql", "jdbc") else None
    if database is not None and not os.path.exists(database):
        if config.configured:
            raise CatalogUnavailable(
                f"catalog {config.name!r} has no database: {database} does not exist (uri {redact(uri)})"
            )
        sources = config_sources()
        others = [n for n in sources.names if n.lower() != config.name.lower()]
        hint = ""
        if others:
            first = others[0]
            hint = (
                f"; configured catalogs: {', '.join(others)} (use -c {first}, or make it the default: "
                f"PYICEBERG_DEFAULT_CATALOG={first} or 'default-catalog: {first}' in .pyiceberg.yaml)"
            )
        raise CatalogUnavailable(
            f"no catalog: {config.name!r} is not configured in {sources.describe(config.name)}, "
            f"and iceview's default database {database} does not exist{hint}"
        )
    overrides: dict[str, str] = {}
    if not any(key in props for key in _INIT_TABLES_KEYS):
        overrides["jdbc.init-catalog-tables"] = "false"
    if "uri" in props:
        overrides["uri"] = props["uri"]
    from iceview.catalog import load_catalog

    try:
        with _quiet("iceview.catalog"):  # e.g. the V0 warning: using views says it again, as an error
            catalog = load_catalog(config.name, **overrides)
        try:
            _check_tables(catalog, uri)
        except BaseException:
            catalog.close()
            raise
    except CatalogUnavailable:
        raise
    except Exception as e:
        error = translate(e)
        raise CatalogUnavailable(f"cannot open catalog {config.name!r}: {error.format_message()}") from e
    return catalog


def _check_tables(catalog: Catalog, uri: str) -> None:
    """Refuse a database that holds no Iceberg catalog (the CLI does not create one)."""
    from iceview.catalog import SqlCatalog

    if isinstance(catalog, SqlCatalog) and not catalog.has_catalog_tables():
        raise CatalogUnavailable(
            f"catalog {catalog.name!r}: the database {redact(uri)} holds no Iceberg catalog "
            "(it has no iceberg_tables table)"
        )
