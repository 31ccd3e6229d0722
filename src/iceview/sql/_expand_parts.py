"""Messages and statement-level helpers of :mod:`iceview.sql.expand`: Iceberg-Spark's cycle message,
the nesting-depth message and the ``EXPLAIN`` / ``DESCRIBE QUERY`` prefix of a statement."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot.tokenizer_core import TokenType

from iceview.sql._text import leading_words, spark_quote_if_needed, tokenize

__all__ = ["SPARK_LEXER", "cycle_message", "depth_message", "statement_prefix"]


def _quoted_ident(parts: Sequence[str]) -> str:
    return ".".join(spark_quote_if_needed(p) for p in parts)


def cycle_message(view: Sequence[str], cycle: Sequence[Sequence[str]]) -> str:
    """Iceberg-Spark's ``Recursive cycle in view detected: %s (cycle: %s)``: the view as Spark prints
    an identifier, the path with each name's parts joined by ``.`` and the names by `` -> ``."""
    path = " -> ".join(".".join(p) for p in cycle)
    return f"Recursive cycle in view detected: {_quoted_ident(view)} (cycle: {path})"


SPARK_LEXER = frozenset({"spark", "spark2", "databricks"})
_EXPLAIN_MODES = frozenset({"EXTENDED", "CODEGEN", "COST", "FORMATTED", "LOGICAL", "ANALYZE", "VERBOSE"})
_QUERY_WORDS = frozenset({"SELECT", "WITH", "FROM", "VALUES", "TABLE"})


def statement_prefix(sql: str, dialect: str) -> int:
    """Where the statement wrapped by ``EXPLAIN [mode]`` or ``DESCRIBE [QUERY]`` starts, or 0."""
    words = leading_words(sql, 2)
    if not words or words[0] not in ("EXPLAIN", "DESCRIBE", "DESC"):
        return 0
    tokens = tokenize(sql, dialect, commands=False)
    if len(tokens) < 2:
        return 0
    second = tokens[1].text.upper()
    if tokens[0].text.upper() == "EXPLAIN":
        i = 2 if second in _EXPLAIN_MODES and len(tokens) > 2 else 1
        return tokens[i].start
    if second == "QUERY" and len(tokens) > 2:
        return tokens[2].start
    if second in _QUERY_WORDS or tokens[1].token_type == TokenType.L_PAREN:
        return tokens[1].start
    return 0


def depth_message(limit: int, path: Sequence[Sequence[str]]) -> str:
    shown = " -> ".join(".".join(p) for p in path)
    return f"View nesting is deeper than the maximum of {limit} views: {shown}"
