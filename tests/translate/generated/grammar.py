"""A seeded query grammar over the generator's table (``data.py``), driven by the rules table.

What a direction lets through is read from the rules (:func:`let_through`: the same "required
constructs" as ``test_edge.py``, plus the direction's allow-list): a function template is drawn only
when its sqlglot class is let through, PIVOT only where its rule keeps it. Constructs without any
rule (operators, ``IN``, ``LIKE``, ``CASE``, set operations, subqueries, joins, windows) are kept by
the translator, so they are always drawn.

Every expression is generated for a wanted type and carries the type it has (a rough inference:
enough to give functions plausible arguments); with a fixed probability an argument of another type
is drawn on purpose (a numeric-looking string literal against a number, an ``INT`` against a
``DECIMAL``, a string against a date), since engines differ most in their coercions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import sqlglot

from iceview.sql.translate import allowed_functions

NUM = ("int", "bigint", "dec0", "dec2", "dec10", "dec38", "float", "double")
COMPARABLE = (*NUM, "string", "date", "ts", "tstz", "bool")

COLUMNS: dict[str, tuple[str, ...]] = {
    "int": ("i", "id", "st.x"),
    "bigint": ("l",),
    "dec0": ("dec0",),
    "dec2": ("dec2",),
    "dec10": ("dec10",),
    "dec38": ("dec38",),
    "float": ("f",),
    "double": ("d",),
    "string": ("s", "grp", "st.y"),
    "date": ("dt",),
    "ts": ("ts",),
    "tstz": ("tstz",),
    "bool": ("b",),
    "arr_s": ("arr",),
    "arr_i": ("iarr",),
    "struct": ("st",),
    "map": ("m",),
}
"""The table's columns by the generator's type tags."""

_LITERALS_COMMON: dict[str, tuple[str, ...]] = {
    "int": ("0", "1", "-1", "2", "7", "100", "2147483647", "-2147483648"),
    "bigint": ("CAST(10 AS BIGINT)", "9223372036854775807", "CAST(-3 AS BIGINT)", "3000000000"),
    "dec0": ("CAST(5 AS DECIMAL(5, 0))",),
    "dec2": ("1.50", "-0.01", "99999999.99", "0.05", "2.5", "-0.00"),
    "dec10": ("0.0000000001", "-2.5000000000", "1234567890.0123456789"),
    "dec38": ("99999999999999999999999999999999999999", "CAST(1 AS DECIMAL(38, 0))"),
    "float": ("CAST(1.5 AS FLOAT)", "CAST('NaN' AS FLOAT)", "CAST(-0.0 AS FLOAT)"),
    "double": (
        "CAST('NaN' AS DOUBLE)",
        "CAST('Infinity' AS DOUBLE)",
        "CAST('-Infinity' AS DOUBLE)",
        "CAST(-0.0 AS DOUBLE)",
        "1e3",
        "0.1e0",
        "1e300",
        "2.5e0",
    ),
    "string": (
        "'a'",
        "''",
        "'ß'",
        "'Straße'",
        "'123'",
        "' 42 '",
        "'1e3'",
        "'-0'",
        "'1.50'",
        "'NaN'",
        "'Infinity'",
        "'true'",
        "'2024-02-29'",
        "'2024-03-10 02:30:00'",
        "'e\u0301'",
        "'\U0001f44d\U0001f3fd'",
        "'abc'",
        "'A'",
        "'İ'",
    ),
    "date": ("DATE '2024-02-29'", "DATE '0999-06-15'", "DATE '2024-03-10'", "DATE '1970-01-01'"),
    "bool": ("TRUE", "FALSE"),
}
_LITERALS: dict[str, dict[str, tuple[str, ...]]] = {
    "spark": {
        **_LITERALS_COMMON,
        "ts": ("TIMESTAMP_NTZ '2024-03-10 02:30:00'", "TIMESTAMP_NTZ '2024-02-29 23:59:59.999999'"),
        "tstz": ("TIMESTAMP '2024-11-03 01:30:00'", "TIMESTAMP '2024-03-10 03:00:00'"),
    },
    "duckdb": {
        **_LITERALS_COMMON,
        "ts": ("TIMESTAMP '2024-03-10 02:30:00'", "TIMESTAMP '2024-02-29 23:59:59.999999'"),
        "tstz": ("TIMESTAMPTZ '2024-11-03 01:30:00'", "TIMESTAMPTZ '2024-03-10 03:00:00'"),
    },
}

_TYPE_NAMES: dict[str, dict[str, str]] = {
    "spark": {
        "int": "INT",
        "bigint": "BIGINT",
        "dec0": "DECIMAL(5, 0)",
        "dec2": "DECIMAL(10, 2)",
        "dec10": "DECIMAL(38, 10)",
        "dec38": "DECIMAL(38, 0)",
        "float": "FLOAT",
        "double": "DOUBLE",
        "string": "STRING",
        "date": "DATE",
        "ts": "TIMESTAMP_NTZ",
        "tstz": "TIMESTAMP",
        "bool": "BOOLEAN",
    },
    "duckdb": {
        "int": "INTEGER",
        "bigint": "BIGINT",
        "dec0": "DECIMAL(5, 0)",
        "dec2": "DECIMAL(10, 2)",
        "dec10": "DECIMAL(38, 10)",
        "dec38": "DECIMAL(38, 0)",
        "float": "FLOAT",
        "double": "DOUBLE",
        "string": "VARCHAR",
        "date": "DATE",
        "ts": "TIMESTAMP",
        "tstz": "TIMESTAMPTZ",
        "bool": "BOOLEAN",
    },
}


MIXED: dict[str, tuple[str, ...]] = {
    "string": (*NUM, "date", "bool"),
    "date": ("string", "ts", "tstz"),
    "ts": ("string", "date", "tstz"),
    "tstz": ("string", "ts", "date"),
    "bool": ("string", "int"),
}
"""The values of another type drawn on purpose where a type is wanted (numbers: MIXED_NUMBER)."""
MIXED_NUMBER = ("string", "int", "dec2", "double", "bigint")

TAG_CLASS = {
    **dict.fromkeys(("int", "bigint"), "int"),
    **dict.fromkeys(("dec0", "dec2", "dec10", "dec38"), "decimal"),
    "float": "float",
    "double": "double",
    "string": "text",
    "date": "date",
    "ts": "timestamp_ntz",
    "tstz": "timestamp",
    "bool": "bool",
    "arr_s": "array",
    "arr_i": "array",
    "struct": "struct",
    "map": "map",
}
"""The class (:class:`iceview.sql.translate.spark_typing.Ty`) of each type tag."""


def drawn_classes(arg: str) -> frozenset[str]:
    """The classes of the values :class:`Gen` draws for a template argument (``num``, ``any``, a
    tag or ``lit:...``): the wanted ones, the mixed-in ones and NULL; a literal's own class."""
    if arg.startswith("lit:"):
        return frozenset({"text literal" if arg[4:].startswith("'") else "int literal"})
    wanted = NUM if arg == "num" else COMPARABLE if arg in ("any", "same") else (arg,)
    if arg in COLUMNS and arg not in COMPARABLE:
        return frozenset(TAG_CLASS[t] for t in wanted)
    tags = {*wanted, *(m for t in wanted for m in MIXED.get(t, MIXED_NUMBER))}
    return frozenset({"null", *(TAG_CLASS[t] for t in tags)})


@dataclass(frozen=True)
class Template:
    """A function call: its sqlglot class, the type tags of its arguments (``num``, ``any``: one
    of several; ``lit:<values>``: a literal drawn from ``|``-separated values), what it returns
    (a tag, or ``=k``: the type of argument k) and its spelling per source dialect."""

    cls: str
    args: tuple[str, ...]
    returns: str
    spark: str | None
    duckdb: str | None


def _t(cls: str, args: str, returns: str, spark: str | None, duckdb: str | None = "") -> Template:
    return Template(cls, tuple(args.split()), returns, spark, spark if duckdb == "" else duckdb)


SCALARS: tuple[Template, ...] = (
    # numbers
    _t("Abs", "num", "=0", "abs({0})"),
    _t("Ceil", "num", "=0", "ceil({0})"),
    _t("Floor", "num", "=0", "floor({0})"),
    _t("Round", "num lit:0|1|2|-1", "=0", "round({0}, {1})"),
    _t("Round", "num", "=0", "round({0})"),
    _t("Sqrt", "num", "double", "sqrt({0})"),
    _t("Pow", "num num", "double", "pow({0}, {1})", "power({0}, {1})"),
    _t("Sign", "num", "double", "signum({0})", "sign({0})"),
    _t("Ln", "num", "double", "ln({0})"),
    _t("Exp", "num", "double", "exp({0})"),
    _t("Mod", "num num", "=0", "({0} % {1})"),
    _t("IntDiv", "num num", "bigint", "({0} div {1})", "({0} // {1})"),
    _t("Div", "num num", "double", "({0} / {1})"),
    _t("Neg", "num", "=0", "(-{0})"),
    _t("comparison or arithmetic", "num num", "=0", "({0} + {1})"),
    _t("comparison or arithmetic", "num num", "=0", "({0} - {1})"),
    _t("multiplication", "num num", "=0", "({0} * {1})"),
    _t("Greatest", "same same", "=0", "greatest({0}, {1})"),
    _t("Least", "same same", "=0", "least({0}, {1})"),
    _t("Length", "string", "int", "length({0})"),
    _t("StrPosition", "string string", "int", "instr({0}, {1})", "strpos({0}, {1})"),
    _t("Year", "date", "int", "year({0})"),
    _t("Month", "date", "int", "month({0})"),
    _t("Day", "date", "int", "day({0})"),
    _t("DayOfMonth", "date", "int", "dayofmonth({0})", "dayofmonth({0})"),
    _t("Quarter", "date", "int", "quarter({0})"),
    _t("WeekOfYear", "date", "int", "weekofyear({0})"),
    _t("DayOfWeek", "date", "int", "dayofweek({0})", "dayofweek({0})"),
    _t("Hour", "ts", "int", "hour({0})"),
    _t("Minute", "ts", "int", "minute({0})"),
    _t("Second", "ts", "int", "second({0})"),
    _t("Extract", "lit:YEAR|MONTH|DAY|QUARTER|DOW|DOY|WEEK date", "int", "extract({0} FROM {1})"),
    _t("Extract", "lit:HOUR|MINUTE|DAY ts", "int", "extract({0} FROM {1})"),
    _t("DateDiff", "date date", "int", "datediff({0}, {1})", "date_diff('day', {1}, {0})"),
    # strings
    _t("Upper", "string", "string", "upper({0})"),
    _t("Lower", "string", "string", "lower({0})"),
    _t("Trim", "string", "string", "trim({0})"),
    _t("Trim", "string", "string", "ltrim({0})"),
    _t("Reverse", "string", "string", "reverse({0})"),
    _t("Replace", "string string string", "string", "replace({0}, {1}, {2})"),
    _t("Left", "string lit:0|1|2|-1", "string", "left({0}, {1})"),
    _t("Right", "string lit:1|3|-2", "string", "right({0}, {1})"),
    _t("Substring", "string lit:1|2|0|-2 lit:1|2|0|5", "string", "substr({0}, {1}, {2})"),
    _t("Substring", "string lit:1|3", "string", "substr({0}, {1})"),
    _t("Concat", "string string", "string", "concat({0}, {1})"),
    _t("DPipe", "string string", "string", "({0} || {1})"),
    _t("ConcatWs", "lit:'-'|',' string string", "string", "concat_ws({0}, {1}, {2})"),
    _t("Repeat", "string lit:0|2", "string", "repeat({0}, {1})"),
    _t("Pad", "string lit:0|3|8 lit:'*'|'ab'", "string", "lpad({0}, {1}, {2})"),
    _t("Pad", "string lit:2|6 lit:'-'", "string", "rpad({0}, {1}, {2})"),
    _t("MD5", "string", "string", "md5({0})", None),
    _t("StartsWith", "string string", "bool", "startswith({0}, {1})", "starts_with({0}, {1})"),
    _t("TimeToStr", "ts lit:'yyyy-MM-dd'|'yyyy-MM-dd HH:mm:ss'", "string", "date_format({0}, {1})", None),
    # dates and times
    _t("TsOrDsToDate", "any", "date", "to_date({0})", None),
    _t("TsOrDsAdd", "date int", "date", "date_add({0}, {1})", None),
    _t("Interval", "ts lit:1|-1|31|0", "ts", None, "({0} + INTERVAL {1} DAY)"),
    _t("Interval", "ts lit:1|-13|12", "ts", None, "({0} + INTERVAL {1} MONTH)"),
    _t("Interval", "ts lit:1.5|-0.000001", "ts", None, "({0} + INTERVAL '{1}' SECOND)"),
    _t("AddMonths", "date lit:1|-1|12", "date", "add_months({0}, {1})", None),
    _t("LastDay", "date", "date", "last_day({0})"),
    _t("DateTrunc", "date lit:'MM'|'YEAR'|'Q'|'WEEK'", "date", "trunc({0}, {1})", None),
    _t(
        "TimestampTrunc",
        "lit:'month'|'day'|'hour'|'week'|'quarter'|'year' ts",
        "=1",
        "date_trunc({0}, {1})",
    ),
    # conditionals
    _t("Coalesce", "same same", "=0", "coalesce({0}, {1})"),
    _t("Nullif", "same same", "=0", "nullif({0}, {1})"),
    _t("If", "bool same same", "=1", "if({0}, {1}, {2})"),
    # arrays and structs
    _t("ArrayContains", "arr_s string", "bool", "array_contains({0}, {1})", None),
    _t("ArrayContains", "arr_i int", "bool", "array_contains({0}, {1})", None),
    _t("Array", "same same", "array", "array({0}, {1})", "[{0}, {1}]"),
    _t("Struct", "any any", "struct", "struct({0}, {1})", None),
)
"""Scalar function calls (and operators with a rule of their own)."""

AGGREGATES: tuple[Template, ...] = (
    _t("Count", "any", "bigint", "count({0})"),
    _t("Count", "", "bigint", "count(*)"),
    _t("Count", "any", "bigint", "count(DISTINCT {0})"),
    _t("Sum", "num", "=0", "sum({0})"),
    _t("Avg", "num", "double", "avg({0})"),
    _t("Min", "any", "=0", "min({0})"),
    _t("Max", "any", "=0", "max({0})"),
    _t("CountIf", "bool", "bigint", "count_if({0})"),
    _t("LogicalAnd", "bool", "bool", "bool_and({0})"),
    _t("LogicalOr", "bool", "bool", "bool_or({0})"),
    _t("Stddev", "num", "double", "stddev({0})"),
    _t("VariancePop", "num", "double", "var_pop({0})"),
)

WINDOWS: tuple[Template, ...] = (
    _t("RowNumber", "", "int", "row_number()"),
    _t("Rank", "", "int", "rank()"),
    _t("DenseRank", "", "int", "dense_rank()"),
    _t("Ntile", "lit:2|3|5", "int", "ntile({0})"),
    _t("PercentRank", "", "double", "percent_rank()"),
    _t("CumeDist", "", "double", "cume_dist()"),
    _t("Lag", "any", "=0", "lag({0})"),
    _t("Lag", "any lit:1|2 any", "=0", "lag({0}, {1}, {2})"),
    _t("Lead", "any lit:1|3", "=0", "lead({0}, {1})"),
    _t("Lead", "any lit:1 any", "=0", "lead({0}, {1}, {2})"),
    _t("FirstValue", "any", "=0", "first_value({0})"),
    _t("LastValue", "any", "=0", "last_value({0})"),
)
"""Window functions (aggregates are also drawn over windows)."""

FRAMES = (
    "",
    " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    " ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
    " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
    " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
    " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
)

ALWAYS = {"Table", "comparison or arithmetic", "Neg", "DPipe"}
"""Constructs kept without a rule of their own that the templates name."""


def let_through(source: str, target: str) -> frozenset[str]:
    """The constructs the rules table lets through from ``source`` into ``target``: what
    ``test_edge.py`` requires evidence for, and the direction's own allow-list."""
    from translate.test_edge import required_constructs

    return frozenset(required_constructs(source, target) | set(allowed_functions(target, source)) | ALWAYS)


def templates_for(source: str, target: str, pool: tuple[Template, ...]) -> list[Template]:
    """The templates of ``pool`` spelled in ``source`` whose construct the direction lets through,
    each checked to parse into its class."""
    allowed = let_through(source, target)
    out = []
    for t in pool:
        spelling = getattr(t, source)
        if spelling is None or t.cls not in allowed:
            continue
        out.append(t)
    return out


class Gen:
    """One direction's generator: ``query()`` returns a query in ``source``'s dialect and the shape
    it was built from."""

    def __init__(self, rng: random.Random, source: str, target: str, mixed: float = 0.15) -> None:
        self.r = rng
        self.source = source
        self.target = target
        self.mixed = mixed
        self.scalars = templates_for(source, target, SCALARS)
        self.aggregates = templates_for(source, target, AGGREGATES)
        self.windows = templates_for(source, target, WINDOWS)
        self.pivot = "Pivot" in let_through(source, target)
        self.lits = _LITERALS[source]
        self.types = _TYPE_NAMES[source]

    # ---------------------------------------------------------------------------------- values

    def literal(self, tag: str) -> str:
        if tag not in self.lits or self.r.random() < 0.08:
            if tag in self.types and self.r.random() < 0.5:
                return f"CAST(NULL AS {self.types[tag]})"
            return "NULL"
        return self.r.choice(self.lits[tag])

    def column(self, tag: str, qualifier: str = "") -> str:
        name = self.r.choice(COLUMNS[tag])
        return f"{qualifier}.{name}" if qualifier else name

    def pick_tag(self, want: str) -> str:
        if want == "num":
            return self.r.choice(NUM)
        if want in ("any", "same"):
            return self.r.choice(COMPARABLE)
        return want

    def expr(self, want: str, depth: int, q: str = "") -> tuple[str, str]:
        """An expression of type ``want`` (a tag, ``num`` or ``any``) and its inferred tag; ``q``
        qualifies the columns (in joins and correlated subqueries)."""
        r = self.r
        tag = self.pick_tag(want)
        if want in COLUMNS and want not in COMPARABLE:  # arrays, structs, maps: the columns
            return self.column(want, q), want
        if r.random() < self.mixed and tag in COMPARABLE:  # a value of another type, on purpose
            return self.leaf(r.choice(MIXED.get(tag, MIXED_NUMBER)), q)
        if depth <= 0 or r.random() < 0.3:
            return self.leaf(tag, q)
        roll = r.random()
        if tag == "bool" and roll < 0.6:
            return self.predicate(depth - 1, q), "bool"
        if roll < 0.12:
            return self.case(tag, depth - 1, q)
        if roll < 0.2 and tag in self.types:
            src, _src_tag = self.expr("any", depth - 1, q)
            cast = (
                "TRY_CAST"
                if r.random() < 0.2 and "TryCast" in let_through(self.source, self.target)
                else "CAST"
            )
            return f"{cast}({src} AS {self.types[tag]})", tag
        fitting = [t for t in self.scalars if _returns(t, tag)]
        if not fitting:
            return self.leaf(tag, q)
        return self.call(r.choice(fitting), depth - 1, q, tag)

    def leaf(self, tag: str, q: str = "") -> tuple[str, str]:
        if tag in COLUMNS and self.r.random() < 0.65:
            return self.column(tag, q), tag
        return self.literal(tag), tag

    def call(self, t: Template, depth: int, q: str, want: str) -> tuple[str, str]:
        args: list[str] = []
        tags: list[str] = []
        same: str | None = None
        for a in t.args:
            if a.startswith("lit:"):
                args.append(self.r.choice(a[4:].split("|")))
                tags.append("lit")
                continue
            if a == "same":
                if same is None:
                    same = want if want in COMPARABLE else self.pick_tag("any")
                a = same
            elif a == "num" and want in NUM and self.r.random() < 0.5:
                a = want
            sql, tag = self.expr(a, depth, q)
            args.append(sql)
            tags.append(tag)
        spelling = getattr(t, self.source)
        assert spelling is not None
        returns = tags[int(t.returns[1:])] if t.returns.startswith("=") else t.returns
        return spelling.format(*args), returns

    def case(self, tag: str, depth: int, q: str) -> tuple[str, str]:
        r = self.r
        if r.random() < 0.3:
            subject, st = self.expr("any", depth, q)
            whens = " ".join(
                f"WHEN {self.leaf(st)[0]} THEN {self.expr(tag, depth, q)[0]}" for _ in range(r.randint(1, 2))
            )
            head = f"CASE {subject} "
        else:
            whens = " ".join(
                f"WHEN {self.predicate(depth, q)} THEN {self.expr(tag, depth, q)[0]}"
                for _ in range(r.randint(1, 3))
            )
            head = "CASE "
        default = f" ELSE {self.expr(tag, depth, q)[0]}" if r.random() < 0.7 else ""
        return f"{head}{whens}{default} END", tag

    def predicate(self, depth: int, q: str = "") -> str:
        r = self.r
        roll = r.random()
        if depth > 0 and roll < 0.15:
            op = r.choice(("AND", "OR"))
            return f"({self.predicate(depth - 1, q)} {op} {self.predicate(depth - 1, q)})"
        if depth > 0 and roll < 0.2:
            return f"NOT ({self.predicate(depth - 1, q)})"
        if roll < 0.3:
            x, _ = self.expr("any", depth, q)
            return f"{x} IS {r.choice(('', 'NOT '))}NULL"
        if roll < 0.4:
            x, tag = self.expr("any", depth, q)
            items = ", ".join(
                self.leaf(tag)[0] if r.random() > 0.15 else "NULL" for _ in range(r.randint(1, 3))
            )
            return f"{x} {r.choice(('', 'NOT '))}IN ({items})"
        if roll < 0.47:
            x, tag = self.expr("any", depth, q)
            return f"{x} BETWEEN {self.leaf(tag)[0]} AND {self.leaf(tag)[0]}"
        if roll < 0.54:
            x, _ = self.expr("string", depth, q)
            pattern = r.choice(("'a%'", "'%ß%'", "'_'", "'%'", "'1%'", "'%e'", "''"))
            return f"{x} {r.choice(('LIKE', 'NOT LIKE'))} {pattern}"
        if roll < 0.62 and self.scalars:
            boolean = [t for t in self.scalars if t.returns == "bool"]
            if boolean:
                return self.call(r.choice(boolean), depth, q, "bool")[0]
        if roll < 0.68:
            return self.column("bool", q)
        x, tag = self.expr("any", depth, q)
        y, _ = self.expr(tag, depth, q)  # usually the same type, sometimes another on purpose
        return f"{x} {r.choice(('=', '<>', '<', '<=', '>', '>='))} {y}"

    def aggregate(self, depth: int) -> str:
        t = self.r.choice(self.aggregates)
        return self.call(t, depth, "", self.pick_tag("any"))[0]

    # --------------------------------------------------------------------------------- queries

    def query(self, only: tuple[str, ...] = ()) -> tuple[str, str]:
        """A query and its shape (``only``: of these shapes)."""
        r = self.r
        shapes: list[tuple[str, Callable[[], str]]] = [
            ("project", self.q_project),
            ("filter", self.q_filter),
            ("group", self.q_group),
            ("window", self.q_window),
            ("set", self.q_set),
            ("subquery", self.q_subquery),
            ("join", self.q_join),
        ]
        if self.pivot:
            shapes.append(("pivot", self.q_pivot))
        name, make = r.choice([s for s in shapes if not only or s[0] in only])
        return make(), name

    def where(self) -> str:
        return f" WHERE {self.predicate(self.r.randint(0, 2))}" if self.r.random() < 0.4 else ""

    def nested(self) -> str:
        """An array, struct or map: a column, or one built by a template that returns one."""
        built = [t for t in self.scalars if t.returns in ("array", "struct")]
        if built and self.r.random() < 0.5:
            return self.call(self.r.choice(built), self.r.randint(0, 2), "", "any")[0]
        return self.column(self.r.choice(("arr_s", "arr_i", "struct", "map")))

    def q_project(self) -> str:
        r = self.r
        items = [self.expr("any", r.randint(1, 3))[0] for _ in range(r.randint(1, 2))]
        if r.random() < 0.2:
            items[-1] = self.nested()
        cols = ", ".join(f"{x} AS c{k}" for k, x in enumerate(items))
        order = ""
        if r.random() < 0.25:
            direction = r.choice(("", " DESC", " ASC NULLS LAST", " DESC NULLS FIRST"))
            order = f" ORDER BY c0{direction}, id"
            if r.random() < 0.5:
                order += f" LIMIT {r.choice((1, 3, 5))}"
        return f"SELECT id, {cols} FROM t{self.where()}{order}"

    def q_filter(self) -> str:
        return f"SELECT id FROM t WHERE {self.predicate(self.r.randint(1, 3))}"

    def q_group(self) -> str:
        r = self.r
        aggs = ", ".join(f"{self.aggregate(r.randint(0, 2))} AS c{k}" for k in range(r.randint(1, 2)))
        roll = r.random()
        if roll < 0.15:  # over no rows
            return f"SELECT {aggs} FROM t WHERE id < 0"
        if roll < 0.3:  # one group over all rows
            return f"SELECT {aggs} FROM t{self.where()}"
        key = "grp" if r.random() < 0.6 else self.expr("any", 1)[0]
        having = ""
        if r.random() < 0.25:
            having = f" HAVING {self.aggregate(0)} IS NOT NULL"
        return f"SELECT {key} AS k, {aggs} FROM t{self.where()} GROUP BY {key}{having}"

    def q_window(self) -> str:
        r = self.r
        key = self.column(r.choice(COMPARABLE))
        partition = r.choice(("", "PARTITION BY grp ", "PARTITION BY b "))
        direction = r.choice(("", " DESC", " NULLS LAST"))
        if self.windows and r.random() < 0.6:
            t = r.choice(self.windows)
            fn = self.call(t, r.randint(0, 1), "", self.pick_tag("any"))[0]
            frame = r.choice(FRAMES) if t.cls in ("FirstValue", "LastValue") else ""
        else:
            fn = self.aggregate(0).replace("DISTINCT ", "")
            frame = r.choice(FRAMES)
        return f"SELECT id, {fn} OVER ({partition}ORDER BY {key}{direction}, id{frame}) AS c FROM t{self.where()}"

    def q_set(self) -> str:
        r = self.r
        a, tag = self.expr("any", r.randint(0, 2))
        other = tag if r.random() < 0.7 else self.pick_tag("any")
        b, _ = self.expr(other, r.randint(0, 2))
        op = r.choice(("UNION", "UNION ALL", "INTERSECT", "EXCEPT"))
        return f"SELECT {a} AS c FROM t{self.where()} {op} SELECT {b} AS c FROM t{self.where()}"

    def q_subquery(self) -> str:
        r = self.r
        roll = r.random()
        if roll < 0.4:
            x, tag = self.expr("any", 1)
            y, _ = self.expr(tag, 1, "u")
            neg = r.choice(("", "NOT "))
            inner_where = f" WHERE {self.predicate(1, 'u')}" if r.random() < 0.5 else ""
            return f"SELECT id FROM t WHERE {x} {neg}IN (SELECT {y} FROM t AS u{inner_where})"
        if roll < 0.7:
            neg = r.choice(("", "NOT "))
            x, tag = self.expr("any", 0, "u")
            y, _ = self.expr(tag, 0, "o")
            return (
                f"SELECT id FROM t AS o WHERE {neg}EXISTS "
                f"(SELECT 1 FROM t AS u WHERE {x} = {y} AND {self.predicate(1, 'u')})"
            )
        fn = r.choice(("max", "min", "count", "sum"))
        tag = "int" if fn == "sum" else self.pick_tag("any")
        x, _ = self.expr(tag, 1, "u")
        return (
            f"SELECT id, (SELECT {fn}({x}) FROM t AS u WHERE u.grp = o.grp AND u.id <> o.id) AS c FROM t AS o"
        )

    def q_join(self) -> str:
        r = self.r
        x, tag = self.expr("any", 0, "a")
        y, _ = self.expr(tag if r.random() < 0.75 else self.pick_tag("any"), 0, "b")
        kind = r.choice(("JOIN", "LEFT JOIN", "FULL OUTER JOIN"))
        z, _ = self.expr("any", 1, "b")
        return f"SELECT a.id AS l, b.id AS r, {z} AS c FROM t AS a {kind} t AS b ON {x} = {y}"

    def q_pivot(self) -> str:
        r = self.r
        value = self.column(r.choice(NUM))
        agg = r.choice(("sum", "max", "min", "count", "avg"))
        key = r.choice(("b", "i", "dt"))
        values = r.choice(("'a', 'b', 'z'", "'a' AS a, 'q' AS q", "'c', 'f', 'g'"))
        return (
            f"SELECT * FROM (SELECT {key}, grp, {value} AS v FROM t) PIVOT ({agg}(v) FOR grp IN ({values}))"
        )


def _returns(t: Template, tag: str) -> bool:
    if t.returns.startswith("="):
        k = int(t.returns[1:])
        arg = t.args[k]
        return arg in ("same", "any") or arg == tag or (arg == "num" and tag in NUM)
    return t.returns == tag


def check_templates() -> list[str]:
    """Templates whose spelling does not parse into their class (a typo would test nothing)."""
    from sqlglot import exp

    bad = []
    for pool in (SCALARS, AGGREGATES, WINDOWS):
        for t in pool:
            for dialect in ("spark", "duckdb"):
                spelling = getattr(t, dialect)
                if spelling is None or not hasattr(exp, t.cls):
                    continue
                args = ["'a'" if a.startswith("lit:'") or a == "string" else "1" for a in t.args]
                if t.cls.startswith("Extract"):
                    args[0] = "YEAR"
                tree = sqlglot.parse_one(spelling.format(*args), read=dialect)
                if not any(type(n).__name__ == t.cls for n in tree.walk()):
                    bad.append(f"{dialect}: {spelling} is not {t.cls}")
    return bad
