"""Trino as the generator's third engine (issue 28): the generator's table (``data.py``) as the Iceberg
table ``edge.db.t``, written by PyIceberg through the REST catalog of an ``iceview serve`` that
Trino's catalog ``edge`` reads (``fixtures/trino_server.py``: ``EDGE_CATALOG``), so that a
translation's three-part name ``edge.db.t`` means the same table in Trino as in DuckDB and Spark.
Trino's session runs in :data:`ZONE`, as the other two do.

Result types go through Iceberg: a source column's type becomes the Iceberg type a view would store
(what Spark, DuckDB or Trino report, read by sqlglot), and the target casts the translation's column
to that type's name in its own dialect (``iceview.sql.types``).
"""

from __future__ import annotations

import struct
import time
from typing import Any

from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
)
from sqlglot import exp

from iceview.sql.types import duckdb_type_name, spark_type_name, trino_type_name
from translate.generated.data import CATALOG, COLUMNS, GEN, NAMESPACE, ROWS_GEN, TABLE, ZONE


class NotAViewType(Exception):
    """A result column of a type no Iceberg view stores (Trino's ``time``, an interval, ...)."""


_T = exp.DataType.Type
_PRIMITIVES: dict[Any, IcebergType] = {
    _T.BOOLEAN: BooleanType(),
    _T.TINYINT: IntegerType(),
    _T.SMALLINT: IntegerType(),
    _T.INT: IntegerType(),
    _T.BIGINT: LongType(),
    _T.FLOAT: FloatType(),
    _T.DOUBLE: DoubleType(),
    _T.VARCHAR: StringType(),
    _T.CHAR: StringType(),
    _T.TEXT: StringType(),
    _T.DATE: DateType(),
    _T.TIMESTAMP: TimestampType(),
    _T.TIMESTAMPNTZ: TimestampType(),
    _T.TIMESTAMPTZ: TimestamptzType(),
    _T.BLOB: BinaryType(),
    _T.VARBINARY: BinaryType(),
    _T.INT128: DecimalType(38, 0),
}


class _Ids:
    def __init__(self) -> None:
        self.next = 1000

    def __call__(self) -> int:
        self.next += 1
        return self.next


def iceberg_type(engine_type: str, dialect: str) -> IcebergType:
    """The Iceberg type a view stores for a result column of ``engine_type`` (as ``dialect``'s
    client reports it: DuckDB's ``rel.types``, Trino's ``cursor.description``)."""
    try:
        tree = exp.DataType.build(engine_type, dialect=dialect)
    except Exception as e:
        raise NotAViewType(f"{dialect} type {engine_type!r} does not parse: {e}") from None
    return _iceberg(tree, _Ids(), f"{dialect} {engine_type}")


def _iceberg(t: exp.DataType, ids: _Ids, what: str) -> IcebergType:
    if t.this in _PRIMITIVES:
        if t.this == _T.TIMESTAMP and any(int(p.name) > 6 for p in t.expressions if p.name.isdigit()):
            raise NotAViewType(f"no Iceberg type for {what}")
        return _PRIMITIVES[t.this]
    if t.this == _T.DECIMAL:
        p, s = (int(x.name) for x in t.expressions) if t.expressions else (38, 0)
        return DecimalType(p, s)
    if t.this == _T.ARRAY:
        return ListType(ids(), _iceberg(t.expressions[0], ids, what), element_required=False)
    if t.this == _T.MAP:
        key, value = t.expressions
        return MapType(
            ids(), _iceberg(key, ids, what), ids(), _iceberg(value, ids, what), value_required=False
        )
    if t.this == _T.STRUCT:
        fields = []
        for k, f in enumerate(t.expressions):
            if isinstance(f, exp.ColumnDef):
                kind = f.args["kind"]
                name = f.name
            else:  # an anonymous field of a Trino row
                kind, name = f, f"field{k}"
            assert isinstance(kind, exp.DataType), f
            fields.append(NestedField(ids(), name, _iceberg(kind, ids, what), required=False))
        return StructType(*fields)
    raise NotAViewType(f"no Iceberg type for {what}")


def spark_iceberg_type(t: Any) -> IcebergType:
    """The Iceberg type of a Spark result column's ``DataType``."""
    from iceview.errors import IceviewError
    from iceview.spark.types import to_iceberg_type

    try:
        return to_iceberg_type(t)
    except IceviewError as e:
        raise NotAViewType(str(e)) from None


TYPE_NAMES = {"spark": spark_type_name, "duckdb": duckdb_type_name, "trino": trino_type_name}


# --------------------------------------------------------------------------------------------------
# the table


def arrow_table(schema: Any = GEN) -> Any:
    """The generator's rows as a PyArrow table with ``schema`` (an Iceberg schema of ``GEN``'s
    columns; the ids are the table's)."""
    import pyarrow as pa
    from pyiceberg.io.pyarrow import schema_to_pyarrow

    arrow_schema = schema_to_pyarrow(schema)
    st, m = COLUMNS.index("st"), COLUMNS.index("m")
    records = []
    for row in ROWS_GEN:
        values = list(row)
        if values[st] is not None:
            values[st] = {"x": values[st][0], "y": values[st][1]}
        if values[m] is not None:
            values[m] = list(values[m].items())
        records.append(dict(zip(COLUMNS, values, strict=True)))
    return pa.Table.from_pylist(records, schema=arrow_schema)


def load_table(rest_uri: str) -> None:
    """Create ``db.t`` with the generator's rows in the REST catalog at ``rest_uri`` (Trino's
    ``edge``); a table left from an earlier run is replaced."""
    from pyiceberg.catalog.rest import RestCatalog

    catalog = RestCatalog(CATALOG, uri=rest_uri.rstrip("/"))
    catalog.create_namespace_if_not_exists(NAMESPACE)
    if catalog.table_exists((NAMESPACE, TABLE)):
        catalog.drop_table((NAMESPACE, TABLE))
    table = catalog.create_table((NAMESPACE, TABLE), schema=GEN)
    table.append(arrow_table(table.schema()))


def _f32(v: Any) -> Any:
    return struct.unpack("f", struct.pack("f", v))[0] if isinstance(v, float) else v


def _real(v: Any, trino_type: str) -> Any:
    if v is None:
        return v
    if trino_type == "real":
        return _f32(v)
    if trino_type == "array(real)":
        return [_f32(x) for x in v]
    raise NotAViewType(f"a real inside {trino_type} is not compared here")


class Trino:
    """A connection to a Trino whose catalog ``edge`` has the generator's table, in :data:`ZONE`."""

    def __init__(self, host: str, port: int) -> None:
        import trino.dbapi

        self.connection = trino.dbapi.connect(
            host=host, port=port, user="iceview", catalog=CATALOG, schema=NAMESPACE, timezone=ZONE
        )

    def rows(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The result's column types (Trino's names) and rows. A ``real`` comes as the shortest
        decimal text that reads back as the same float, which as a Python float is another value
        than the same ``float`` from Spark or DuckDB: it is rounded to 32 bits here."""
        cursor = self.connection.cursor()
        try:
            cursor.execute(sql)
            rows = cursor.fetchall()
            types = [d[1] for d in cursor.description]
        finally:
            cursor.close()
        reals = [k for k, t in enumerate(types) if "real" in t]
        if reals:
            rows = [[_real(v, types[k]) if k in reals else v for k, v in enumerate(r)] for r in rows]
        return types, [tuple(r) for r in rows]

    def wait_for_table(self, seconds: float = 30.0) -> int:
        """The table's row count, once Trino sees it."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                return int(self.rows(f"SELECT count(*) FROM {TABLE}")[1][0][0])
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def close(self) -> None:
        self.connection.close()


def start_standalone(workdir: Any) -> tuple[Any, Any]:
    """Outside pytest (``fuzz.py --trino``): an ``iceview serve`` with the table loaded, and a Trino
    whose catalog ``edge`` is that server. The caller stops both."""
    from pathlib import Path

    from fixtures.iceview_serve import start_iceview_server
    from fixtures.trino_server import EDGE_CATALOG, rest_catalog_properties, start_trino

    assert EDGE_CATALOG == CATALOG
    root = Path(workdir)
    serve = start_iceview_server(root / "edge-serve")
    try:
        load_table(serve.uri)
        server = start_trino(root / "trino", {EDGE_CATALOG: rest_catalog_properties(serve.uri.rstrip("/"))})
    except BaseException:
        serve.stop()
        raise
    return server, serve
