"""The rules read from a view's source text rather than from its tree: what sqlglot's parser
normalises or drops before a rule could see it (Spark's trunc units, date-format year patterns,
a unary ``+``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import tokenize
from sqlglot.errors import SqlglotError

from iceview.sql.translate.checks import DATE_TRUNC_UNITS, TRUNC_UNITS
from iceview.sql.translate.model import TranslationIssue

if TYPE_CHECKING:
    from sqlglot.tokenizer_core import Token


def _spark_calls(sql: str, names: tuple[str, ...]) -> list[tuple[str, list[list[tuple[Token, int]]]]]:
    """The calls of the functions ``names`` as written in Spark SQL: each with its top-level
    arguments, every token with the parenthesis depth it stands at (1: the argument itself).
    SQL that does not tokenize has none."""
    from sqlglot.tokenizer_core import TokenType

    try:
        tokens = sqlglot.Dialect.get_or_raise("spark").tokenize(sql)
    except SqlglotError:
        return []
    calls: list[tuple[str, list[list[tuple[Token, int]]]]] = []
    for i, tok in enumerate(tokens[:-1]):
        name = tok.text.lower()
        if name not in names or tokens[i + 1].token_type != TokenType.L_PAREN:
            continue
        depth = 0
        args: list[list[tuple[Token, int]]] = []
        current: list[tuple[Token, int]] = []
        for t in tokens[i + 1 :]:
            if t.token_type == TokenType.L_PAREN:
                depth += 1
                if depth == 1:
                    continue
            elif t.token_type == TokenType.R_PAREN:
                depth -= 1
                if depth == 0:
                    break
            if depth == 1 and t.token_type == TokenType.COMMA:
                args.append(current)
                current = []
            else:
                current.append((t, depth))
        args.append(current)
        calls.append((name, args))
    return calls


def spark_trunc_units(sql: str) -> list[TranslationIssue]:
    """``trunc``/``date_trunc`` units as written: sqlglot normalises some spellings on parsing (``'Q'``
    becomes ``QUARTER``) that Spark does not know (it returns NULL for them)."""
    from sqlglot.tokenizer_core import TokenType

    issues: list[TranslationIssue] = []
    for name, args in _spark_calls(sql, ("trunc", "date_trunc")):
        unit_arg = args[-1] if name == "trunc" else args[0]
        units = DATE_TRUNC_UNITS if name == "trunc" else TRUNC_UNITS
        if len(unit_arg) == 1 and unit_arg[0][0].token_type == TokenType.STRING:
            unit = unit_arg[0][0].text
            if unit.upper() not in units:
                issues.append(
                    TranslationIssue(
                        "trunc-unit",
                        f"{name}(..., '{unit}')",
                        f"Spark's {name} does not know the unit '{unit}' (it returns NULL); units: {', '.join(sorted(units))}",
                    )
                )
    return issues


_YEAR_RUN = re.compile(r"y+")


def spark_year_patterns(sql: str) -> list[TranslationIssue]:
    """``date_format`` patterns as written: sqlglot turns every run of ``y`` into ``%Y``, but only
    ``yyyy`` pads a year below 1000 to four digits as ``%Y`` does (Spark's ``y`` is ``999``)."""
    from sqlglot.tokenizer_core import TokenType

    issues: list[TranslationIssue] = []
    for _, args in _spark_calls(sql, ("date_format",)):
        for t, depth in (token for arg in args for token in arg):
            if depth == 1 and t.token_type == TokenType.STRING:
                runs = _YEAR_RUN.findall(t.text.replace("'", ""))
                if any(len(r) != 4 for r in runs):
                    issues.append(
                        TranslationIssue(
                            "date-format",
                            f"date_format(..., '{t.text}')",
                            "a year pattern other than yyyy: Spark's y writes a year below 1000 with fewer digits "
                            "(999), strftime's %Y with four (0999)",
                        )
                    )
    return issues


_STARTS_A_VALUE = frozenset(
    {
        "SELECT",
        "L_PAREN",
        "L_BRACKET",
        "COMMA",
        "PLUS",
        "DASH",
        "STAR",
        "SLASH",
        "MOD",
        "DIV",
        "EQ",
        "NEQ",
        "LT",
        "GT",
        "LTE",
        "GTE",
        "NULLSAFE_EQ",
        "DPIPE",
        "CARET",
        "AMP",
        "PIPE",
        "WHEN",
        "THEN",
        "ELSE",
        "AND",
        "OR",
        "NOT",
        "WHERE",
        "HAVING",
        "ON",
        "BETWEEN",
        "LIKE",
        "ILIKE",
        "IN",
        "CASE",
        "DISTINCT",
        "QUALIFY",
        "RETURN",
        "IS",
    }
)
"""Tokens after which a ``+`` is a sign, not an addition."""


def unary_plus(dialect: str) -> Callable[[str], list[TranslationIssue]]:
    """A unary ``+``: sqlglot's parser drops it, but Spark's ``+'10'`` is the DOUBLE 10.0 (a
    string is cast), so the translation would keep the string."""

    def check(sql: str) -> list[TranslationIssue]:
        try:
            tokens = tokenize(sql, read=dialect)
        except SqlglotError:
            return []
        for i, token in enumerate(tokens):
            if token.token_type.name == "PLUS" and (
                i == 0 or tokens[i - 1].token_type.name in _STARTS_A_VALUE
            ):
                after = tokens[i + 1].text if i + 1 < len(tokens) else ""
                return [
                    TranslationIssue(
                        "unary-plus",
                        f"+{after}",
                        "a unary +: sqlglot drops it, while Spark casts a string under it to a DOUBLE "
                        "(write CAST(x AS DOUBLE), or leave the + out)",
                    )
                ]
        return []

    return check
