"""The table requests and answers of the REST protocol, read and written with PyIceberg's own
models (``pyiceberg.catalog.rest``, ``pyiceberg.table``): a field PyIceberg cannot read is a 400
that names its JSON path. Checked here beforehand: what PyIceberg would fill with a default
(a sort order's missing ``order-id``) and schemas, by the rules of Java's ``SchemaParser``.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import orjson
import pydantic
from pyiceberg import exceptions as pyiceberg_errors
from pyiceberg.catalog.rest import CreateTableRequest, RegisterTableRequest
from pyiceberg.io import load_file_io
from pyiceberg.serializers import Compressor, GzipCompressor
from pyiceberg.table import CommitTableRequest, Table
from pyiceberg.table.metadata import TableMetadata, TableMetadataWrapper
from pyiceberg.table.update import (
    AddPartitionSpecUpdate,
    AddSchemaUpdate,
    AddSortOrderUpdate,
    SetLocationUpdate,
    SetPropertiesUpdate,
    TableUpdate,
)

from iceview.errors import InvalidMetadataError
from iceview.files import check_in_warehouse, check_location_properties
from iceview.identifiers import ViewIdentifier
from iceview.server.errors import bad_request, library_text
from iceview.server.protocol import (
    check_level,
    check_new_identifier,
    get_string,
    get_string_list,
    get_string_map,
)
from iceview.spec.pydantic_errors import validation_problem
from iceview.spec.schema import normalize_schema_json, schema_from_json

__all__ = [
    "check_table_locations",
    "commit_result",
    "java_commit_message",
    "load_result",
    "metadata_json",
    "parse_commit",
    "parse_create",
    "parse_metrics_report",
    "parse_register",
    "parse_rename",
    "read_table_metadata",
    "without_repeated_additions",
]

M = TypeVar("M", bound=pydantic.BaseModel)


def _validated(model: type[M], data: Mapping[str, Any], what: str) -> M:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        # iceview's own text and the JSON path: pydantic's would show the input and its version
        message, path = validation_problem(e.errors(), data, what)
        raise bad_request(f"Invalid {what}: {message}", path) from None
    except (TypeError, AttributeError, ArithmeticError):
        # some PyIceberg validators fail outside pydantic (a default value that does not fit)
        raise bad_request(f"Invalid {what}: a value does not fit its field") from None


# The required members of the table objects inside requests, as the REST spec and Java's parsers
# (SortOrderParser, PartitionSpecParser) have them. PyIceberg's models fill a missing order-id or
# list of fields with defaults, so a malformed request would otherwise create a table.
_SORT_FIELD = {"source-id": "integer", "transform": "string", "direction": "string", "null-order": "string"}
_PARTITION_FIELD = {"source-id": "integer", "transform": "string", "name": "string"}
_SHAPES: dict[str, dict[str, Any]] = {
    "sort order": {"order-id": "integer", "fields": [_SORT_FIELD]},
    "partition spec": {"fields": [_PARTITION_FIELD]},
}
_KINDS = {"integer": "an integer", "string": "a string"}


def _check_shape(value: Any, shape: Mapping[str, Any], what: str, path: str) -> None:
    if type(value) is not dict:
        raise bad_request(f"Invalid {what}: expected an object", path)
    for key, kind in shape.items():
        if value.get(key) is None:
            raise bad_request(f"Invalid {what}: missing field {key}", f"{path}.{key}")
        item = value[key]
        if isinstance(kind, list):
            if type(item) is not list:
                raise bad_request(f"Invalid {what}: {key} must be an array", f"{path}.{key}")
            for i, element in enumerate(item):
                _check_shape(element, kind[0], what, f"{path}.{key}[{i}]")
        elif not _is(kind, item):
            raise bad_request(f"Invalid {what}: {key} must be {_KINDS[kind]}", f"{path}.{key}")


def _check_schema(node: Any, what: str, path: str) -> dict[str, Any]:
    """A schema checked as Java's ``SchemaParser`` checks it (the view format's rules)."""
    try:
        normalized = normalize_schema_json(node, path)
        schema_from_json(normalized, path)
    except InvalidMetadataError as e:
        raise bad_request(f"Invalid {what}: {e.message}", e.path) from None
    return normalized


def _check_table_objects(body: Mapping[str, Any], keys: Mapping[str, str], what: str, path: str) -> None:
    """The schema, partition spec and sort order members of ``body`` (``keys`` maps each member
    to ``schema`` or a key of ``_SHAPES``), where present and not null."""
    for key, kind in keys.items():
        node = body.get(key)
        if node is None:
            continue
        if kind == "schema":
            _check_schema(node, what, f"{path}.{key}")
        else:
            _check_shape(node, _SHAPES[kind], what, f"{path}.{key}")


def parse_create(namespace: Sequence[str], body: Mapping[str, Any]) -> CreateTableRequest:
    """A ``CreateTableRequest`` (optional fields may be left out, as Java's client does)."""
    what = "CreateTableRequest"
    check_new_identifier(namespace, get_string(body, "name", what) or "", "table")
    if "schema" not in body:
        raise bad_request(f"Invalid {what}: missing field schema", "$.schema")
    _check_table_objects(
        body, {"schema": "schema", "partition-spec": "partition spec", "write-order": "sort order"}, what, "$"
    )
    data = {"location": None, "partition-spec": None, "write-order": None, **body}
    get_string_map(body, "properties", what)  # an object of strings, not too many
    return _validated(CreateTableRequest, data, what)


def parse_register(namespace: Sequence[str], body: Mapping[str, Any]) -> RegisterTableRequest:
    """A ``RegisterTableRequest`` (``overwrite`` defaults to false)."""
    what = "RegisterTableRequest"
    check_new_identifier(namespace, get_string(body, "name", what) or "", "table")
    get_string(body, "metadata-location", what)
    return _validated(RegisterTableRequest, {"overwrite": False, **body}, what)


def read_table_metadata(properties: Mapping[str, str], location: str) -> TableMetadata:
    """The table metadata file a ``RegisterTableRequest`` names, read as PyIceberg reads it (gzip
    by name). What is wrong with it is told in iceview's words, with the JSON path in the file,
    never its contents: a view's metadata file is named as such."""
    what = "Invalid RegisterTableRequest"
    try:
        with load_file_io(dict(properties), location).new_input(location).open() as stream:
            raw = stream.read()
    except FileNotFoundError:
        raise bad_request(f"{what}: no table metadata file at {location}", "$.metadata-location") from None
    except OSError as e:
        reason = e.strerror or "the file cannot be read"
        raise bad_request(f"{what}: cannot read {location}: {reason}", "$.metadata-location") from None

    def invalid(message: str, path: str = "$") -> Exception:
        return bad_request(f"Invalid table metadata: {message}", f"{path} in {location}")

    if isinstance(Compressor.get_compressor(location), GzipCompressor):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            raise invalid("the file is not gzip data, as its name says") from None
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise invalid("the file is not JSON") from None
    if type(document) is not dict:
        raise invalid("the file is not a JSON object")
    if "view-uuid" in document and "table-uuid" not in document:
        raise invalid("the file is a view metadata file, not a table metadata file")
    try:
        return TableMetadataWrapper.model_validate_json(raw).root
    except pydantic.ValidationError as e:
        message, path = validation_problem(e.errors(), document, "table metadata")
        raise invalid(message, path) from None
    except pyiceberg_errors.ValidationError as e:  # PyIceberg's own checks, inside its validators
        raise invalid(library_text(e)) from None
    except (ValueError, TypeError, ArithmeticError):
        raise invalid("a value does not fit its field") from None


def parse_commit(ident: ViewIdentifier, body: Mapping[str, Any]) -> CommitTableRequest:
    """A ``CommitTableRequest`` for the table of the path (an ``identifier`` in the body, which
    Java's client sends, must name the same table)."""
    what = "CommitTableRequest"
    given = body.get("identifier")
    if given is not None:
        named = parse_identifier(body, "identifier", what)
        if named != ident:
            raise bad_request(
                f"Invalid {what}: identifier {named} does not match the table of the path, {ident}",
                "$.identifier",
            )
    for key in ("requirements", "updates"):
        if key not in body:
            raise bad_request(f"Invalid {what}: missing field {key}", f"$.{key}")
        if type(body[key]) is not list:
            raise bad_request(f"Invalid {what}: {key} must be an array", f"$.{key}")
    for i, update in enumerate(body["updates"]):
        if type(update) is dict:
            action = update.get("action")
            if type(action) is not str:
                raise bad_request(f"Invalid {what}: action must be a string", f"$.updates[{i}].action")
            if action == "set-properties":
                get_string_map(update, "updates", what, f"$.updates[{i}]")
            keys = _UPDATE_OBJECTS.get(action, {})
            _check_table_objects(update, keys, what, f"$.updates[{i}]")
    data = {**body, "identifier": {"namespace": list(ident.namespace), "name": ident.name}}
    return _validated(CommitTableRequest, data, what)


_UPDATE_OBJECTS: dict[Any, dict[str, str]] = {
    "add-schema": {"schema": "schema"},
    "add-spec": {"spec": "partition spec"},
    "add-sort-order": {"sort-order": "sort order"},
}


def parse_identifier(body: Mapping[str, Any], key: str, what: str) -> ViewIdentifier:
    """A ``TableIdentifier`` field of a request (names are looked up: only NUL is refused)."""
    node = body.get(key)
    if type(node) is not dict:
        raise bad_request(f"Invalid {what}: missing or non-object field {key}", f"$.{key}")
    namespace = get_string_list(node, "namespace", f"{what}.{key}")
    for level in namespace:
        check_level(level, "namespace")
    name = check_level(get_string(node, "name", f"{what}.{key}") or "", "table name")
    return ViewIdentifier(tuple(namespace), name)


def parse_rename(body: Mapping[str, Any]) -> tuple[ViewIdentifier, ViewIdentifier]:
    """The source and destination of a ``RenameTableRequest``; the destination's names make its
    location, so they cannot escape the warehouse."""
    what = "RenameTableRequest"
    destination = parse_identifier(body, "destination", what)
    check_new_identifier(destination.namespace, destination.name, "table")
    return parse_identifier(body, "source", what), destination


def check_table_locations(
    location: str | None,
    properties: Mapping[str, str],
    updates: Sequence[TableUpdate],
    warehouse: str | None,
) -> None:
    """Every location a client gives a table (its location, a ``set-location``, and the
    ``write.*.path`` properties that redirect its files) must lie in the warehouse: the library's
    rule, :func:`iceview.files.check_in_warehouse` (``warehouse`` None: anywhere)."""
    if location is not None:
        check_in_warehouse(location, warehouse, "table location")
    check_location_properties(properties, warehouse, "table")
    for update in updates:
        if isinstance(update, SetLocationUpdate):
            check_in_warehouse(update.location, warehouse, "table location")
        elif isinstance(update, SetPropertiesUpdate):
            check_location_properties(update.updates, warehouse, "table")


def metadata_json(metadata: TableMetadata) -> dict[str, Any]:
    """Table metadata as JSON, exactly as PyIceberg writes it to a metadata file."""
    value: dict[str, Any] = orjson.loads(metadata.model_dump_json())
    return value


def load_result(table: Table) -> dict[str, Any]:
    """A ``LoadTableResult``."""
    return {
        "metadata-location": table.metadata_location,
        "metadata": metadata_json(table.metadata),
        "config": {},
    }


def commit_result(metadata_location: str, metadata: TableMetadata) -> dict[str, Any]:
    """A ``CommitTableResponse``."""
    return {"metadata-location": metadata_location, "metadata": metadata_json(metadata)}


# PyIceberg's texts for a failed requirement, and Java's (``UpdateRequirement``), which clients match
_JAVA_TEXTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), text)
    for pattern, text in (
        (r"^Table already exists$", "Requirement failed: table already exists"),
        (
            r"^Table UUID does not match: (\S+) != (\S+)$",
            r"Requirement failed: UUID does not match: expected \1 != \2",
        ),
        (
            r"^Requirement failed: (branch|tag) (.+) has changed: expected id (\S+), found (\S+)$",
            r"Requirement failed: \1 \2 has changed: expected id \3 != \4",
        ),
        (
            r"^Requirement failed: last assigned field id has changed: expected (\S+), found (\S+)$",
            r"Requirement failed: last assigned field id changed: expected id \1 != \2",
        ),
        (
            r"^Requirement failed: current schema id has changed: expected (\S+), found (\S+)$",
            r"Requirement failed: current schema changed: expected id \1 != \2",
        ),
        (
            r"^Requirement failed: last assigned partition id has changed: expected (\S+), found (\S+)$",
            r"Requirement failed: last assigned partition id changed: expected id \1 != \2",
        ),
        (
            r"^Requirement failed: default spec id has changed: expected (\S+), found (\S+)$",
            r"Requirement failed: default partition spec changed: expected id \1 != \2",
        ),
        (
            r"^Requirement failed: default sort order id has changed: expected (\S+), found (\S+)$",
            r"Requirement failed: default sort order changed: expected id \1 != \2",
        ),
    )
)


def java_commit_message(message: str) -> str:
    """The text Java's ``UpdateRequirement`` gives for the requirement PyIceberg found failed
    (clients match these texts); any other text is kept."""
    for pattern, text in _JAVA_TEXTS:
        if pattern.match(message):
            return pattern.sub(text, message)
    return message


def without_repeated_additions(
    metadata: TableMetadata | None, updates: Sequence[TableUpdate]
) -> tuple[TableUpdate, ...]:
    """``updates`` without the additions of a schema, partition spec or sort order the table
    already has under the same id. Java's metadata builder reuses an equal one (a replace
    transaction re-adds them); PyIceberg 0.12 would append it a second time, and Java cannot
    read metadata with two schemas of one id. A different one under a taken id is refused."""
    schemas = {s.schema_id: s for s in metadata.schemas} if metadata else {}
    specs = {s.spec_id: s for s in metadata.partition_specs} if metadata else {}
    orders = {o.order_id: o for o in metadata.sort_orders} if metadata else {}
    kept: list[TableUpdate] = []
    for i, update in enumerate(updates):
        if isinstance(update, AddSchemaUpdate):
            taken: Any = schemas.get(update.schema_.schema_id)
            if taken is None:
                schemas[update.schema_.schema_id] = update.schema_
            elif taken == update.schema_:
                continue
            else:
                raise bad_request(
                    f"Invalid CommitTableRequest: cannot add schema {update.schema_.schema_id}: "
                    "the table has a different schema with that id",
                    f"$.updates[{i}].schema.schema-id",
                )
        elif isinstance(update, AddPartitionSpecUpdate):
            if update.spec.spec_id in specs and specs[update.spec.spec_id] == update.spec:
                continue
            specs.setdefault(update.spec.spec_id, update.spec)
        elif isinstance(update, AddSortOrderUpdate):
            order = update.sort_order
            if order.order_id in orders and orders[order.order_id] == order:
                continue
            orders.setdefault(order.order_id, order)
        kept.append(update)
    return tuple(kept)


# the two report shapes of ``ReportMetricsRequest`` (the OpenAPI document: ScanReport | CommitReport)
_SCAN_REPORT = {
    "table-name": "string",
    "snapshot-id": "integer",
    "filter": "expression",
    "schema-id": "integer",
    "projected-field-ids": "integers",
    "projected-field-names": "strings",
    "metrics": "metrics",
}
_COMMIT_REPORT = {
    "table-name": "string",
    "snapshot-id": "integer",
    "sequence-number": "integer",
    "operation": "string",
    "metrics": "metrics",
}
_COUNTER = {"unit": "string", "value": "integer"}
_TIMER = {"time-unit": "string", "count": "integer", "total-duration": "integer"}


def _is(kind: str, value: Any) -> bool:
    if kind == "string":
        return type(value) is str
    if kind == "integer":
        return type(value) is int
    if kind == "integers":
        return type(value) is list and all(type(v) is int for v in value)
    if kind == "strings":
        return type(value) is list and all(type(v) is str for v in value)
    if kind == "expression":
        return type(value) in (bool, dict)
    if kind == "metrics":
        return type(value) is dict and all(
            _shape_problem(v, _COUNTER) is None or _shape_problem(v, _TIMER) is None for v in value.values()
        )
    raise AssertionError(kind)


def _shape_problem(value: Any, shape: Mapping[str, str]) -> str | None:
    """The first field of ``value`` that does not fit ``shape`` (missing or of the wrong kind)."""
    if type(value) is not dict:
        return ""
    for key, kind in shape.items():
        if key not in value or not _is(kind, value[key]):
            return key
    return None


def parse_metrics_report(body: Mapping[str, Any]) -> None:
    """Check that a ``ReportMetricsRequest`` is a scan report or a commit report."""
    what = "ReportMetricsRequest"
    get_string(body, "report-type", what)
    metadata = body.get("metadata")
    if metadata is not None and not (
        type(metadata) is dict and all(type(v) is str for v in metadata.values())
    ):
        raise bad_request(f"Invalid {what}: metadata must be an object of strings", "$.metadata")
    scan = _shape_problem(body, _SCAN_REPORT)
    commit = _shape_problem(body, _COMMIT_REPORT)
    if scan is not None and commit is not None:
        field = commit if body.get("report-type") == "commit-report" else scan
        raise bad_request(
            f"Invalid {what}: neither a scan report nor a commit report (field {field} is missing or invalid)",
            f"$.{field}",
        )
