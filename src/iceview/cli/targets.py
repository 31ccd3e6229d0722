"""What a command works on: a view in the catalog, or a metadata file (local path or URI).

An argument is a file when it has a URI scheme, a path separator or a ``.json``/``.gz`` ending, or
names an existing file, and holds no backquote; anything else is a view name.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceview.cli.errors import InvalidMetadata, NotFound, metadata_problem, warn
from iceview.cli.names import format_name, parse_name
from iceview.cli.suggest import no_such_view

if TYPE_CHECKING:
    from iceview.catalog import Catalog
    from iceview.cli.context import State
    from iceview.cli.functions import FunctionTarget
    from iceview.spec import ViewMetadata
    from iceview.view import View

__all__ = [
    "Target",
    "file_properties",
    "is_file_argument",
    "load_target",
    "load_view",
    "load_view_or_function",
    "read_bytes",
    "read_file",
    "require_version",
]


@dataclass
class Target:
    """A view's metadata and where it came from."""

    label: str  # the view name (ns.name) or the file location
    kind: str  # "view" or "file"
    metadata: ViewMetadata
    view: View | None = None


def is_file_argument(text: str) -> bool:
    if "`" in text:
        return False
    return (
        "://" in text
        or text.startswith("file:")
        or "/" in text
        or os.sep in text
        or text.endswith((".json", ".gz"))
        or os.path.isfile(text)
    )


def _gzipped(name: str) -> bool:
    from iceview import files

    if ".metadata.json" in name:
        return files.codec_for(name) is files.Codec.GZIP
    return name.endswith(".gz")


def read_bytes(location: str, properties: Mapping[str, str] | None = None) -> bytes:
    """The bytes of a metadata file, as stored. Raises :class:`NotFound` for a missing file and
    :class:`InvalidMetadata` for one that cannot be read."""
    from iceview import files

    try:
        io = files.file_io_for(location, properties)
        with io.new_input(location).open() as stream:
            return bytes(stream.read())
    except FileNotFoundError:
        raise NotFound(f"metadata file does not exist: {location}") from None
    except IsADirectoryError as e:
        raise InvalidMetadata(f"cannot read {location}: it is a directory") from e
    except OSError as e:
        if "not found" in str(e).lower() or "no such file" in str(e).lower():
            raise NotFound(f"metadata file does not exist: {location}") from None
        raise InvalidMetadata(f"cannot read {location}: {e}") from e


def read_file(
    location: str, properties: Mapping[str, str] | None = None, raw: bytes | None = None
) -> ViewMetadata:
    """Read a metadata file of any name (``raw``: its bytes, when already read). gzip is chosen by
    name, as Iceberg does: ``*.gz.metadata.json``, ``*.metadata.json.gz`` or, for other names, a
    ``.gz`` ending. Raises :class:`NotFound` for a missing file and :class:`InvalidMetadata` for
    one that cannot be read or parsed (its ``__cause__`` is the library's error)."""
    from iceview.errors import InvalidMetadataError
    from iceview.spec import ViewMetadata

    name = location.rstrip("/").rsplit("/", 1)[-1]
    if raw is None:
        raw = read_bytes(location, properties)
    if _gzipped(name):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            error = InvalidMetadataError(
                f"Failed to read json file: {location}: bad gzip data: {e}", "$", location
            )
            raise InvalidMetadata(f"invalid view metadata: {metadata_problem(error)}") from error
    try:
        return ViewMetadata.from_json(raw, metadata_location=location)
    except InvalidMetadataError as e:
        error = e.with_location(location)
        if raw[:2] == b"\x1f\x8b":  # the hint is part of the error, so that lint gives it too
            hint = "the file is gzip-compressed, but its name does not end in .gz.metadata.json"
            error = InvalidMetadataError(f"{e.message}; {hint}", e.path, location)
        raise InvalidMetadata(f"invalid view metadata: {metadata_problem(error)}") from error


def load_view(state: State, name: str) -> Target:
    """A view of the catalog, by name. Raises :class:`NotFound` if there is no such view."""
    from iceview.errors import InvalidMetadataError, NoSuchViewError, NotFoundError

    levels = parse_name(name)
    label = format_name(levels)
    catalog = state.catalog()
    try:
        view = catalog.load_view(levels)
        _check_location(catalog, label, view.metadata_location)
        return Target(label, "view", view.metadata, view)
    except NoSuchViewError:
        raise no_such_view(catalog, levels) from None
    except NotFoundError as e:
        raise InvalidMetadata(f"cannot read the metadata of view {label}: {e}") from e
    except InvalidMetadataError as e:
        raise InvalidMetadata(f"invalid metadata for view {label}: {metadata_problem(e)}") from e


def _check_location(catalog: Catalog, label: str, location: str | None) -> None:
    """Warn when a view's metadata lies outside the catalog's warehouse (a copied warehouse whose
    database still points at the original: changes would be written there). Inside and outside are
    the warehouse confinement rule's (:func:`iceview.files.check_in_warehouse`), for which
    ``file:/p`` and ``file:///p`` are the same place: a Hive Metastore stores every database
    location as ``file:/p``, and views under a database have locations of that spelling."""
    from iceview.errors import LocationOutsideWarehouseError
    from iceview.files import check_in_warehouse

    warehouse = catalog.properties.get("warehouse", "")
    if not location or not ("/" in warehouse or "://" in warehouse):
        return  # no warehouse, or a REST warehouse's name
    try:
        check_in_warehouse(location, warehouse, "metadata file")
    except LocationOutsideWarehouseError:
        warn(
            f"the metadata of {label} lies outside the warehouse of catalog {catalog.name!r} "
            f"({warehouse}): {location}; changes to the view are written there"
        )


def file_properties(state: State) -> Mapping[str, str] | None:
    """FileIO properties for reading files: the catalog's (storage credentials, ``py-io-impl``)
    when ``--catalog`` names one, else none. The catalog's database is not opened."""
    if state.catalog_name is None:
        return None
    from iceview.cli.config import catalog_config

    return catalog_config(state.catalog_name).properties


def load_target(state: State, argument: str) -> Target:
    """A metadata file or a catalog view, as :func:`is_file_argument` decides."""
    if is_file_argument(argument):
        return Target(argument, "file", read_file(argument, file_properties(state)))
    return load_view(state, argument)


def load_view_or_function(state: State, argument: str, function: bool) -> Target | FunctionTarget:
    """What ``show`` and ``history`` work on: with ``function``, a catalog function (or a function
    metadata file); else a metadata file of either kind (by its content), a catalog view, or, when
    the catalog holds no view of that name but a function, that function."""
    from iceview.cli.functions import is_function_file, load_function, names_a_function, read_function_file

    if is_file_argument(argument):
        raw = read_bytes(argument, file_properties(state))
        if function or is_function_file(raw):
            return read_function_file(argument, raw)
        return Target(argument, "file", read_file(argument, file_properties(state), raw))
    if function or names_a_function(state, argument):
        return load_function(state, argument)
    return load_view(state, argument)


def require_version(target: Target, version_id: int) -> None:
    """Raise :class:`NotFound` unless the view retains version ``version_id``."""
    ids = target.metadata.version_ids
    if version_id not in ids:
        known = ", ".join(str(i) for i in sorted(ids))
        raise NotFound(f"{target.label} has no version {version_id} (its versions: {known})")
