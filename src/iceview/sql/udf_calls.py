"""The calls of SQL UDFs as the inliner meets them: their form, their arguments' texts, and
whether an argument would be captured by a table function's body."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokenizer_core import Token, TokenType

from iceview.errors import FunctionInliningError, SQLParseError
from iceview.sql._text import parse_one_statement
from iceview.sql.udf_body import BodyTemplate, CallSite

__all__ = ["call_arguments", "captured", "check_form", "short"]


def check_form(shown: str, site: CallSite) -> None:
    """Refuses a call with DISTINCT, ``*``, FILTER or OVER, or with named and positional arguments
    mixed (``UDF_CALL_FORM``)."""
    args = site.call.expressions
    # the call itself windowed or filtered; a call in a window's PARTITION BY is an argument of it
    applied = (
        isinstance(site.top.parent, (exp.Window, exp.Filter, exp.WithinGroup)) and site.top.arg_key == "this"
    )
    if applied or any(isinstance(a, (exp.Distinct, exp.Star)) for a in args):
        raise FunctionInliningError(
            "UDF_CALL_FORM", f"Cannot inline {shown}: a SQL UDF takes no DISTINCT, *, FILTER or OVER"
        )
    named = [isinstance(a, exp.Kwarg) for a in args]
    if any(named) and not all(named):
        raise FunctionInliningError("UDF_CALL_FORM", f"Cannot inline {shown}: name every argument or none")


def call_arguments(sql: str, tokens: list[Token], open_at: int) -> tuple[int, list[str], list[str | None]]:
    """Where the call's parentheses close, each argument's text and its name (``p => x``)."""
    depth = 0
    spans: list[tuple[int, int]] = []
    begin = open_at + 1
    for k in range(open_at, len(tokens)):
        kind = tokens[k].token_type
        if kind in (TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE):
            depth += 1
        elif kind in (TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE):
            depth -= 1
            if depth == 0:
                if k > begin:
                    spans.append((begin, k - 1))
                texts: list[str] = []
                names: list[str | None] = []
                for a, b in spans:
                    name: str | None = None
                    if b > a + 1 and tokens[a + 1].token_type == TokenType.FARROW:
                        name = tokens[a].text
                        a += 2
                    texts.append(sql[tokens[a].start : tokens[b].end + 1])
                    names.append(name)
                return k, texts, names
        elif kind == TokenType.COMMA and depth == 1:
            spans.append((begin, k - 1))
            begin = k + 1
    raise FunctionInliningError("UDF_CALL_FORM", "A function call's parentheses do not close")


def short(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def captured(text: str, dialect: str, template: BodyTemplate) -> bool:
    """Whether an argument names something the table function's body could also name (a
    relation's alias, or a column of its relations, or any column when they are not all known):
    pasted into the body, it would read the body's instead of the caller's."""
    try:
        node = parse_one_statement(f"SELECT {text}", dialect, what="argument")
    except SQLParseError:
        return True
    if any(isinstance(n, (exp.Select, exp.Subquery)) and n is not node for n in node.walk()):
        return True
    for column in node.find_all(exp.Column):
        qualifier = column.table.lower()
        if qualifier:
            if qualifier in template.relations:
                return True
        elif template.columns is None or column.name.lower() in template.columns:
            return True
    return False
