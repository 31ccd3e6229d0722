"""Spark 3.5's lexer rules for the tokens that decide what a name is, and Spark's parse errors for
names that break them.

sqlglot's tokenizer is close to Spark's but not equal where names are concerned: Spark's unquoted
identifier is ``(LETTER | DIGIT | '_')+`` over ASCII only, so ``1v`` and ``1e3x`` are names, while
``123``, ``1e3``, ``1d``, ``1L``, ``1bd`` and ``1.5`` are number literals (ANTLR takes the longest
match, and on a tie the rule listed first, and the number rules come before ``IDENTIFIER``); a
decimal may begin with its dot, so in ``ns.123`` the token after ``ns`` is ``.123``. The decimal
rules apply only when the next character is not a letter, digit or ``_`` (``isValidDecimal``). Any
other character (``$``, ``é``) is a token of its own, which the parser refuses.

Internal to :mod:`iceview.sql`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iceview.errors import SQLParseError
from iceview.sql._text import line_pos

__all__ = [
    "SparkSyntaxError",
    "SparkToken",
    "is_spark_identifier",
    "name_break",
    "spark_token",
    "token_error",
]

_WORD_CHAR = re.compile(r"[A-Za-z0-9_]+")
_SPACE = frozenset(" \t\r\n\f\v")
_EXP = r"(?:E[+-]?[0-9]+)"
_DECIMAL_DIGITS = r"(?:[0-9]+\.[0-9]*|\.[0-9]+)"
# Spark's number rules in the lexer's order; the flag says whether ``isValidDecimal`` guards it
_NUMBER_RULES: tuple[tuple[re.Pattern[str], bool], ...] = tuple(
    (re.compile(pattern, re.I), guarded)
    for pattern, guarded in (
        (r"[0-9]+L", False),  # BIGINT_LITERAL
        (r"[0-9]+S", False),  # SMALLINT_LITERAL
        (r"[0-9]+Y", False),  # TINYINT_LITERAL
        (r"[0-9]+", False),  # INTEGER_VALUE
        (rf"[0-9]+{_EXP}", False),  # EXPONENT_VALUE
        (rf"{_DECIMAL_DIGITS}{_EXP}", True),
        (_DECIMAL_DIGITS, True),  # DECIMAL_VALUE
        (rf"[0-9]+{_EXP}?F", False),  # FLOAT_LITERAL
        (rf"{_DECIMAL_DIGITS}{_EXP}?F", True),
        (rf"[0-9]+{_EXP}?D", False),  # DOUBLE_LITERAL
        (rf"{_DECIMAL_DIGITS}{_EXP}?D", True),
        (rf"[0-9]+{_EXP}?BD", False),  # BIGDECIMAL_LITERAL
        (rf"{_DECIMAL_DIGITS}{_EXP}?BD", True),
    )
)
# Spark's operators of more than one character, longest first
_OPERATORS = (
    "<=>",
    ">>>",
    "/*+",
    "<=",
    ">=",
    "<>",
    "!=",
    "!<",
    "!>",
    "==",
    "||",
    "->",
    "=>",
    "<<",
    ">>",
    "*/",
)
_PUNCTUATION = {".": "dot", "-": "minus", "(": "(", ")": ")", ",": ",", ";": ";"}


@dataclass(frozen=True)
class SparkToken:
    """One token of Spark's lexer: ``kind`` is ``word`` (an unquoted identifier or keyword),
    ``quoted`` (a backquoted identifier), ``number``, ``string``, ``dot``, ``minus``, one of
    ``( ) , ;``, ``op`` (another operator), ``other`` (a character Spark has no token for) or
    ``eof``. ``start``/``end`` delimit it in the text (end exclusive)."""

    kind: str
    start: int
    end: int
    text: str

    def spark_text(self) -> str:
        """How Spark's error messages show the token."""
        return "end of input" if self.kind == "eof" else f"'{self.text}'"


def _valid_decimal(sql: str, end: int) -> bool:
    return end >= len(sql) or not (sql[end].isascii() and (sql[end].isalnum() or sql[end] == "_"))


def _number_end(sql: str, pos: int) -> int:
    """The end of the longest number literal at ``pos`` (``pos`` if there is none)."""
    best = pos
    for pattern, guarded in _NUMBER_RULES:
        m = pattern.match(sql, pos)
        # with `guarded`, a shorter match cannot be valid either: what follows it is a digit or letter
        if m and m.end() > best and (not guarded or _valid_decimal(sql, m.end())):
            best = m.end()
    return best


def _skip_space(sql: str, pos: int) -> int:
    n = len(sql)
    while pos < n:
        c = sql[pos]
        if c in _SPACE:
            pos += 1
        elif sql.startswith("--", pos):
            nl = sql.find("\n", pos)
            pos = n if nl < 0 else nl + 1
        elif sql.startswith("/*", pos) and not sql.startswith("/*+", pos):
            depth, pos = 1, pos + 2  # Spark's bracketed comments nest
            while pos < n and depth:
                if sql.startswith("/*", pos):
                    depth, pos = depth + 1, pos + 2
                elif sql.startswith("*/", pos):
                    depth, pos = depth - 1, pos + 2
                else:
                    pos += 1
        else:
            break
    return pos


def _quoted_end(sql: str, pos: int, quote: str, *, backslash: bool) -> int | None:
    i, n = pos + 1, len(sql)
    while i < n:
        c = sql[i]
        if backslash and c == "\\":
            i += 2
            continue
        if c == quote:
            if quote == "`" and sql.startswith("``", i):
                i += 2
                continue
            return i + 1
        i += 1
    return None


def spark_token(sql: str, pos: int) -> SparkToken:
    """The token of Spark's lexer at ``pos``, after any white space and comments."""
    pos = _skip_space(sql, pos)
    if pos >= len(sql):
        return SparkToken("eof", pos, pos, "")
    c = sql[pos]
    if c.isascii() and (c.isalnum() or c == "_"):
        if c in "rR" and sql[pos + 1 : pos + 2] in ("'", '"'):
            end = _quoted_end(sql, pos + 1, sql[pos + 1], backslash=False)
            if end is not None:
                return SparkToken("string", pos, end, sql[pos:end])
        word = _WORD_CHAR.match(sql, pos)
        assert word is not None
        number = _number_end(sql, pos) if c.isdigit() else pos
        if number >= word.end():  # a tie goes to the number rules, listed first
            return SparkToken("number", pos, number, sql[pos:number])
        return SparkToken("word", pos, word.end(), word.group())
    if c == "." and sql[pos + 1 : pos + 2].isdigit():
        number = _number_end(sql, pos)
        if number > pos:
            return SparkToken("number", pos, number, sql[pos:number])
    if c in ("`", "'", '"'):
        end = _quoted_end(sql, pos, c, backslash=c != "`")
        if end is not None:
            return SparkToken("quoted" if c == "`" else "string", pos, end, sql[pos:end])
        return SparkToken("other", pos, pos + 1, c)
    for op in _OPERATORS:
        if sql.startswith(op, pos):
            return SparkToken("op", pos, pos + len(op), op)
    if c in _PUNCTUATION:
        return SparkToken(_PUNCTUATION[c], pos, pos + 1, c)
    if c in "=<>+*/%~&|^:!?[]{}":
        return SparkToken("op", pos, pos + 1, c)
    return SparkToken("other", pos, pos + 1, c)


def is_spark_identifier(text: str) -> bool:
    """Whether ``text`` is one unquoted identifier (or keyword) for Spark's lexer."""
    tok = spark_token(text, 0)
    return tok.kind == "word" and tok.start == 0 and tok.end == len(text)


# --------------------------------------------------------------------------------------------------
# Spark's parse errors for names

_BREAKS_NAME = frozenset({"number", "other", "op", "minus"})
"""Tokens that can never follow a name part in a view statement: Spark refuses them right there."""


class SparkSyntaxError(SQLParseError):
    """A view statement Spark's parser refuses, with Spark's message and ``error_class``
    (``PARSE_SYNTAX_ERROR``, ``INVALID_IDENTIFIER``)."""

    def __init__(self, message: str, sql: str, offset: int, error_class: str = "PARSE_SYNTAX_ERROR") -> None:
        self.error_class = error_class
        line, pos = line_pos(sql, offset)
        super().__init__(message, sql, offset, line, pos)


def token_error(sql: str, tok: SparkToken, *, extra: bool = False) -> SparkSyntaxError:
    """Spark's ``Syntax error at or near 'x'.``; ``extra``: with ``: extra input 'x'``, which ANTLR
    adds when leaving the token out would let the statement go on."""
    near = tok.spark_text()
    return SparkSyntaxError(
        f"Syntax error at or near {near}" + (f": extra input {near}" if extra else "") + ".", sql, tok.start
    )


def _allowed(tok: SparkToken, follow: frozenset[str]) -> bool:
    if tok.kind in ("eof", ";"):
        return "EOF" in follow
    if tok.kind == "word":
        return tok.text.upper() in follow or "IDENT" in follow
    if tok.kind == "quoted":
        return "IDENT" in follow
    if tok.kind == "string":
        return "STRING" in follow
    return tok.kind in follow


def name_break(
    sql: str, written: str, after: int, follow: frozenset[str] | None, *, dashes: bool = True
) -> tuple[SparkSyntaxError | None, int]:
    """What Spark makes of the token after a name part ``written`` that ends at ``after``, and where
    the name ends. No error when the token may follow a name; a syntax error to raise when it cannot (a character Spark has no token
    for, an operator, a number such as the ``.123`` of ``ns.123``), with "extra input" as ANTLR adds
    it: when the token after it is one that ``follow`` (the words, ``IDENT``, ``STRING``, ``EOF``
    and punctuation the statement allows after the name) lets go on; never when ``follow`` is
    ``None`` (Spark picks the statement's form only after the name).

    With ``dashes`` (Spark's ``errorCapturingIdentifier``: names of relations, not of view columns),
    ``a-b`` is Spark's ``INVALID_IDENTIFIER``: it is returned with that class and the end of ``-b``,
    to be raised only if the statement has no syntax error (Spark's parser finds those first).
    ``written`` is the part's value (unquoted)."""
    nxt = spark_token(sql, after)
    if nxt.kind == "minus" and dashes:
        text, pos = written, nxt.start
        while (minus := spark_token(sql, pos)).kind == "minus":
            part = spark_token(sql, minus.end)
            if part.kind not in ("word", "quoted"):
                break
            value = part.text[1:-1].replace("``", "`") if part.kind == "quoted" else part.text
            text, pos = f"{text}-{value}", part.end
        if text != written:
            return SparkSyntaxError(
                f"The identifier {text} is invalid. Please, consider quoting it with back-quotes as `{text}`.",
                sql,
                nxt.start,
                "INVALID_IDENTIFIER",
            ), pos
    if nxt.kind not in _BREAKS_NAME:
        return None, after
    extra = follow is not None and _allowed(spark_token(sql, nxt.end), follow)
    return token_error(sql, nxt, extra=extra), after
