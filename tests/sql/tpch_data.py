"""Small, deterministic TPC-H-shaped data generated inside DuckDB (no tpch extension needed).

The vocabularies (nations, regions, part types, containers, segments, ship modes, ...) are TPC-H's,
so the queries' predicates select rows. Values come from integer arithmetic on row numbers, so the
data is the same on every run and every DuckDB version.
"""

from __future__ import annotations

from typing import Any

TABLES = ("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem")

_NATIONS = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
]
_REGIONS = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]
_COLORS = [
    "almond",
    "antique",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanched",
    "blue",
    "blush",
    "brown",
    "burlywood",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflower",
    "cream",
    "cyan",
    "dark",
    "forest",
    "frosted",
    "ghost",
    "green",
    "honeydew",
    "ivory",
    "khaki",
    "lace",
    "lavender",
    "lemon",
    "linen",
    "magenta",
    "maroon",
    "medium",
    "metallic",
    "midnight",
    "mint",
]
_TYPE1 = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"]
_TYPE2 = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"]
_TYPE3 = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"]
_CONT1 = ["SM", "LG", "MED", "JUMBO", "WRAP"]
_CONT2 = ["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"]
_SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"]
_PRIORITIES = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"]
_MODES = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]
_INSTRUCT = ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"]
_WORDS = [
    "furiously",
    "special",
    "requests",
    "quickly",
    "pending",
    "deposits",
    "Customer",
    "Complaints",
    "carefully",
    "final",
    "packages",
    "ironic",
    "accounts",
    "regular",
]


def _list(values: list[str]) -> str:
    return "[" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + "]"


def _hash(expr: str) -> str:
    """A well-mixed pseudo-random integer in [0, 65536) from an integer expression (Knuth's
    multiplicative hash), the same on every run."""
    return f"(((({expr}) * 2654435761) % 4294967296) // 65536)"


def _pick(values: list[str], expr: str) -> str:
    """A value of ``values`` chosen by hashing ``expr``, as DuckDB SQL (lists are 1-based)."""
    return f"{_list(values)}[({_hash(expr)} % {len(values)}) + 1]"


def _words(expr: str, n: int) -> str:
    parts = [_pick(_WORDS, f"({expr}) * {7 + 3 * k} + {k * k}") for k in range(n)]
    return " || ' ' || ".join(parts)


def create_tpch(
    con: Any,
    prefix: str,
    *,
    suppliers: int = 100,
    customers: int = 1500,
    parts: int = 2000,
    orders: int = 15000,
) -> None:
    """Create the eight TPC-H tables under ``prefix`` (e.g. ``cat.tpch``) in a DuckDB connection."""
    p = prefix
    nations = ", ".join(f"({i}, '{n}', {r})" for i, (n, r) in enumerate(_NATIONS))
    regions = ", ".join(f"({i}, '{n}')" for i, n in enumerate(_REGIONS))
    statements = [
        f"CREATE TABLE {p}.region AS SELECT r_regionkey::INTEGER AS r_regionkey, r_name, "
        f"'region ' || r_name AS r_comment FROM (VALUES {regions}) AS r(r_regionkey, r_name)",
        f"CREATE TABLE {p}.nation AS SELECT n_nationkey::INTEGER AS n_nationkey, n_name, "
        f"n_regionkey::INTEGER AS n_regionkey, 'nation ' || n_name AS n_comment "
        f"FROM (VALUES {nations}) AS n(n_nationkey, n_name, n_regionkey)",
        f"""CREATE TABLE {p}.supplier AS SELECT
            i AS s_suppkey,
            'Supplier#' || lpad(i::VARCHAR, 9, '0') AS s_name,
            'addr' || (i * 37 % 1000)::VARCHAR AS s_address,
            (i * 7 % 25)::INTEGER AS s_nationkey,
            ((i * 7 % 25) + 10)::VARCHAR || '-' || lpad((i * 131 % 1000)::VARCHAR, 3, '0') AS s_phone,
            ((i * 7919 % 1099999) / 100.0 - 999.99)::DECIMAL(15, 2) AS s_acctbal,
            CASE WHEN i % 17 = 0 THEN 'wow Customer rarely Complaints here' ELSE {_words("i", 4)} END AS s_comment
            FROM range(1, {suppliers + 1}) AS t(i)""",
        f"""CREATE TABLE {p}.customer AS SELECT
            i AS c_custkey,
            'Customer#' || lpad(i::VARCHAR, 9, '0') AS c_name,
            'caddr' || (i * 53 % 1000)::VARCHAR AS c_address,
            (i * 11 % 25)::INTEGER AS c_nationkey,
            ((i * 11 % 25) + 10)::VARCHAR || '-' || lpad((i * 197 % 1000)::VARCHAR, 3, '0') AS c_phone,
            ((i * 6271 % 1099999) / 100.0 - 999.99)::DECIMAL(15, 2) AS c_acctbal,
            {_pick(_SEGMENTS, "i * 3")} AS c_mktsegment,
            {_words("i", 5)} AS c_comment
            FROM range(1, {customers + 1}) AS t(i)""",
        f"""CREATE TABLE {p}.part AS SELECT
            i AS p_partkey,
            {_pick(_COLORS, "i")} || ' ' || {_pick(_COLORS, "i * 7 + 3")} || ' ' || {_pick(_COLORS, "i * 13 + 5")}
                || ' ' || {_pick(_COLORS, "i * 17 + 11")} || ' ' || {_pick(_COLORS, "i * 29 + 1")} AS p_name,
            'Manufacturer#' || (i % 5 + 1)::VARCHAR AS p_mfgr,
            'Brand#' || ({_hash("i * 3 + 1")} % 5 + 1)::VARCHAR || ({_hash("i * 5 + 2")} % 5 + 1)::VARCHAR AS p_brand,
            {_pick(_TYPE1, "i * 7 + 3")} || ' ' || {_pick(_TYPE2, "i * 11 + 4")} || ' ' || {_pick(_TYPE3, "i * 13 + 5")}
                AS p_type,
            ({_hash("i * 17 + 6")} % 50 + 1)::INTEGER AS p_size,
            {_pick(_CONT1, "i * 19 + 7")} || ' ' || {_pick(_CONT2, "i * 23 + 8")} AS p_container,
            (900 + (i % 200) + i / 10.0)::DECIMAL(15, 2) AS p_retailprice,
            {_words("i", 3)} AS p_comment
            FROM range(1, {parts + 1}) AS t(i)""",
        f"""CREATE TABLE {p}.partsupp AS SELECT
            pk AS ps_partkey,
            ((pk + k * ({suppliers} // 4 + (pk - 1) // {suppliers})) % {suppliers}) + 1 AS ps_suppkey,
            ((pk * 31 + k * 97) % 9999 + 1)::INTEGER AS ps_availqty,
            (((pk * 71 + k * 13) % 99900) / 100.0 + 1)::DECIMAL(15, 2) AS ps_supplycost,
            {_words("pk + k", 4)} AS ps_comment
            FROM range(1, {parts + 1}) AS a(pk), range(0, 4) AS b(k)""",
        f"""CREATE TABLE {p}.orders AS SELECT
            i AS o_orderkey,
            CASE WHEN ((i * 13) % {customers}) % 3 = 2 THEN ((i * 13) % {customers}) + 2
                 ELSE ((i * 13) % {customers}) + 1 END AS o_custkey,
            {_pick(["F", "O", "P"], "i * 7")} AS o_orderstatus,
            ((i * 7717 % 50000000) / 100.0 + 1000)::DECIMAL(15, 2) AS o_totalprice,
            (DATE '1992-01-01' + ((i * 47) % 2400)::INTEGER) AS o_orderdate,
            {_pick(_PRIORITIES, "i * 3")} AS o_orderpriority,
            'Clerk#' || lpad((i % 1000)::VARCHAR, 9, '0') AS o_clerk,
            0 AS o_shippriority,
            CASE WHEN i % 23 = 0 THEN 'the special final requests' ELSE {_words("i", 4)} END AS o_comment
            FROM range(1, {orders + 1}) AS t(i)""",
        f"""CREATE TABLE {p}.lineitem AS SELECT
            o_orderkey AS l_orderkey,
            ((o_orderkey * 7 + n * 131) % {parts}) + 1 AS l_partkey,
            0 AS l_suppkey,
            (n + 1)::INTEGER AS l_linenumber,
            (CASE WHEN o_orderkey % 997 = 0 THEN 50 - n ELSE {_hash("o_orderkey * 8 + n")} % 50 + 1 END)::DECIMAL(15, 2)
                AS l_quantity,
            0::DECIMAL(15, 2) AS l_extendedprice,
            (((o_orderkey + n) % 11) / 100.0)::DECIMAL(15, 2) AS l_discount,
            (((o_orderkey * 3 + n) % 9) / 100.0)::DECIMAL(15, 2) AS l_tax,
            '' AS l_returnflag,
            '' AS l_linestatus,
            (o_orderdate + ((o_orderkey + n * 5) % 121 + 1)::INTEGER) AS l_shipdate,
            (o_orderdate + ((o_orderkey * 3 + n) % 61 + 30)::INTEGER) AS l_commitdate,
            DATE '1970-01-01' AS l_receiptdate,
            {_pick(_INSTRUCT, "o_orderkey + n")} AS l_shipinstruct,
            {_pick(_MODES, "o_orderkey * 5 + n")} AS l_shipmode,
            {_words("o_orderkey + n", 3)} AS l_comment
            FROM {p}.orders, range(0, 7) AS r(n)
            WHERE n < CASE WHEN o_orderkey % 997 = 0 THEN 7 ELSE (o_orderkey % 7) + 1 END""",
        # make lineitem consistent: supplier from partsupp, price from part, dates and flags
        f"""UPDATE {p}.lineitem SET
            l_suppkey = (SELECT min(ps_suppkey) FROM {p}.partsupp
                         WHERE ps_partkey = l_partkey AND (ps_suppkey + l_orderkey) % 4 <= 1),
            l_extendedprice = l_quantity * (SELECT p_retailprice FROM {p}.part WHERE p_partkey = l_partkey),
            l_receiptdate = l_shipdate + ((l_orderkey + l_linenumber) % 30 + 1)::INTEGER""",
        f"""UPDATE {p}.lineitem SET
            l_suppkey = coalesce(l_suppkey, (SELECT min(ps_suppkey) FROM {p}.partsupp WHERE ps_partkey = l_partkey)),
            l_returnflag = CASE WHEN l_receiptdate <= DATE '1995-06-17'
                                THEN {_pick(["R", "A"], "l_orderkey + l_linenumber")} ELSE 'N' END,
            l_linestatus = CASE WHEN l_shipdate > DATE '1995-06-17' THEN 'O' ELSE 'F' END""",
    ]
    for s in statements:
        con.execute(s)
