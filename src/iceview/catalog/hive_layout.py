"""How iceview lays out a view in a Hive Metastore table, as Iceberg Java's ``HiveViewOperations``
does (see :mod:`iceview.catalog.hive`): which entries are Iceberg views, and the table a commit
writes. Pure: no metastore calls."""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any

import orjson

from iceview.catalog.hive_client import current_user
from iceview.errors import InvalidIdentifierError, NoSuchIcebergViewError

if TYPE_CHECKING:
    from pyiceberg.schema import Schema

    from iceview.spec import ViewMetadata

__all__ = [
    "ICEBERG_VIEW",
    "METADATA_LOCATION",
    "PREVIOUS_METADATA_LOCATION",
    "check_name",
    "is_iceberg_table",
    "is_view",
    "not_a_view",
    "storage_descriptor",
    "view_table",
]

log = logging.getLogger(__name__)

ICEBERG_VIEW = "ICEBERG-VIEW"
ICEBERG_TABLE = "ICEBERG"
VIRTUAL_VIEW = "VIRTUAL_VIEW"
TABLE_TYPE = "table_type"
METADATA_LOCATION = "metadata_location"
PREVIOUS_METADATA_LOCATION = "previous_metadata_location"
CURRENT_SCHEMA = "current-schema"
HMS_TABLE_OWNER = "hive.metastore.table.owner"
STORAGE_HANDLER = "storage_handler"
PROPERTY_MAX_SIZE = "iceberg.hive.table-property-max-size"
PROPERTY_MAX_SIZE_DEFAULT = 32672
HIVE2_COMPATIBLE = "hive.hive2-compatible"


_NAME = re.compile(r"[A-Za-z0-9_]+")


def check_name(kind: str, name: str) -> str:
    """``name`` if it is a name Hive 2.3's metastore keeps (letters, digits and ``_``: its
    ``validateName``), else :class:`InvalidIdentifierError`. Checked before any write or lock: the
    metastore builds the SQL of its lock table from these names (a quote in one injects SQL there)."""
    if not _NAME.fullmatch(name):
        raise InvalidIdentifierError(
            f"Invalid Hive {kind} name {name!r}: is not a valid object name (a Hive Metastore name is "
            "letters, digits and _)"
        )
    return name


def is_view(table: Any) -> bool:
    """Whether an HMS table is an Iceberg view (Java's ``validateTableIsIcebergView``)."""
    params = table.parameters or {}
    return (table.tableType or "").upper() == VIRTUAL_VIEW and (
        params.get(TABLE_TYPE) or ""
    ).upper() == ICEBERG_VIEW


def is_iceberg_table(table: Any) -> bool:
    """Whether an HMS table is an Iceberg table."""
    return ((table.parameters or {}).get(TABLE_TYPE) or "").upper() == ICEBERG_TABLE


def not_a_view(full_name: str, table: Any) -> NoSuchIcebergViewError:
    """Java's ``NoSuchIcebergViewException`` for an entry that is not an Iceberg view."""
    kind = (table.parameters or {}).get(TABLE_TYPE) or "null"
    return NoSuchIcebergViewError(
        f"Not an iceberg view: {full_name} (type={kind}) (tableType={table.tableType})"
    )


def view_table(
    database: str,
    name: str,
    existing: Any | None,
    base: ViewMetadata | None,
    metadata: ViewMetadata,
    new_location: str,
    current_location: str | None,
    *,
    property_max_size: int = PROPERTY_MAX_SIZE_DEFAULT,
    hive2_compatible: bool = True,
) -> Any:
    """Java's ``doCommit`` + ``setHmsTableParameters``: the HMS table to write for ``metadata``
    (at ``new_location``), made from the ``existing`` one (None: a new view)."""
    from hive_metastore.ttypes import Table

    now = int(time.time())
    if existing is None:
        sql = metadata.sql_for("hive", fallback=True)
        text = sql.sql if sql is not None else None
        table = Table(
            tableName=name,
            dbName=database,
            owner=metadata.properties.get(HMS_TABLE_OWNER) or current_user(),
            createTime=now,
            lastAccessTime=now,
            retention=2147483647,
            partitionKeys=[],
            parameters={},
            viewOriginalText=text,
            viewExpandedText=text,
            tableType=VIRTUAL_VIEW,
        )
    else:
        table = existing
    table.sd = storage_descriptor(metadata.schema, metadata.location, hive2_compatible)
    params = dict(table.parameters or {})
    for key, value in metadata.properties.items():
        if key.lower() != HMS_TABLE_OWNER:
            params[key] = value
    params["uuid"] = metadata.uuid
    if base is not None:
        for key in base.properties:
            if key not in metadata.properties:
                params.pop(key, None)
    params[TABLE_TYPE] = ICEBERG_VIEW
    params[METADATA_LOCATION] = new_location
    if current_location:
        params[PREVIOUS_METADATA_LOCATION] = current_location
    params.pop(STORAGE_HANDLER, None)
    params.pop(CURRENT_SCHEMA, None)
    if property_max_size > 0:
        from iceview.spec.schema import schema_to_json

        text = orjson.dumps(schema_to_json(metadata.schema)).decode()
        if len(text) <= property_max_size:
            params[CURRENT_SCHEMA] = text
        else:
            log.warning(
                "Not exposing %s in HMS since it exceeds %d characters",
                CURRENT_SCHEMA,
                property_max_size,
            )
    table.parameters = params
    return table


def storage_descriptor(schema: Schema, location: str, hive2_compatible: bool = True) -> Any:
    """Java's ``HiveOperationsBase.storageDescriptor``: the schema's columns in Hive types (Hive 2's
    ``timestamp`` for ``timestamptz`` when ``hive2_compatible``), the location, the formats."""
    from hive_metastore.ttypes import FieldSchema, SerDeInfo, StorageDescriptor
    from pyiceberg.catalog.hive import SchemaToHiveConverter
    from pyiceberg.schema import visit

    converter = SchemaToHiveConverter(hive2_compatible)
    return StorageDescriptor(
        cols=[FieldSchema(f.name, visit(f.field_type, converter), f.doc) for f in schema.fields],
        location=location,
        inputFormat="org.apache.hadoop.mapred.FileInputFormat",
        outputFormat="org.apache.hadoop.mapred.FileOutputFormat",
        serdeInfo=SerDeInfo(
            serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}
        ),
    )
