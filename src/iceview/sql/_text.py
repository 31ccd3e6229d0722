"""Shared text helpers: tokenizing with positions, parse errors, Spark string literals, identifier quoting.

Internal to :mod:`iceview.sql`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import Token, TokenType
from sqlglot.tokens import Tokenizer

from iceview.errors import SQLParseError
from iceview.sql.names import split_name
from iceview.sql.statements import StatementText

__all__ = [
    "Edit",
    "apply_edits",
    "get_dialect",
    "leading_words",
    "line_pos",
    "parse_error",
    "parse_one_statement",
    "parse_with_tokens",
    "quote_identifier",
    "render_name",
    "spark_quote_if_needed",
    "split_statements",
    "tokenize",
    "unescape_spark_string",
]

_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SPARK_UNQUOTED = re.compile(r"[a-zA-Z0-9_]+\Z")
_DIGITS = re.compile(r"[0-9]+\Z")
_MISSING = re.compile(r"Missing (.+) from (\d+):(\d+)")


@lru_cache(maxsize=32)
def get_dialect(dialect: str) -> Dialect:
    """The sqlglot dialect object for a name such as ``spark`` or ``duckdb``."""
    try:
        return Dialect.get_or_raise(dialect)
    except ValueError as e:
        raise SQLParseError(f"Unknown SQL dialect: {dialect!r}") from e


def line_pos(sql: str, offset: int) -> tuple[int, int]:
    """1-based line and 0-based position in that line of a character offset (Spark's convention)."""
    offset = max(0, min(offset, len(sql)))
    line = sql.count("\n", 0, offset) + 1
    start = sql.rfind("\n", 0, offset) + 1
    return line, offset - start


def parse_error(message: str, sql: str, offset: int | None) -> SQLParseError:
    """A :class:`SQLParseError` at ``offset`` in ``sql`` (``None``: position unknown)."""
    if offset is None:
        return SQLParseError(message, sql)
    line, pos = line_pos(sql, offset)
    return SQLParseError(message, sql, offset, line, pos)


def tokenize(sql: str, dialect: str, *, commands: bool = True) -> list[Token]:
    """sqlglot's tokens for ``sql``; comments are not tokens. Each token's ``start``/``end`` are
    inclusive character offsets into ``sql``. A lexical error (an unterminated string, quoted
    identifier or comment) raises :class:`SQLParseError` at the offending character.

    sqlglot turns the rest of a statement after a "command" word (``SHOW``, ``EXPLAIN``,
    ``RENAME``, ...) into one string token; ``commands=False`` tokenizes those words like any other."""
    try:
        if commands:
            return get_dialect(dialect).tokenize(sql)
        # the dialect's settings too (Spark's identifiers may start with a digit: ``1v``)
        return _plain_tokenizer(dialect)(get_dialect(dialect)).tokenize(sql)
    except TokenError as e:
        raise _token_error(sql, e) from e


def split_statements(text: str, dialect: str = "spark") -> list[StatementText]:
    """Split a script at top-level semicolons (sqlglot's tokens, so semicolons inside strings,
    quoted identifiers and comments do not count). Empty statements are dropped; each statement's
    text runs from its first token to its last, so leading and trailing comments are left out."""
    tokens = tokenize(text, dialect, commands=False)
    out: list[StatementText] = []
    current: list[Token] = []
    for tok in [*tokens, None]:
        if tok is None or tok.token_type == TokenType.SEMICOLON:
            if current:
                start, end = current[0].start, current[-1].end + 1
                out.append(StatementText(text[start:end], start))
            current = []
        else:
            current.append(tok)
    return out


@lru_cache(maxsize=8)
def _plain_tokenizer(dialect: str) -> type[Tokenizer]:
    base = get_dialect(dialect).tokenizer_class
    return type(f"{base.__name__}NoCommands", (base,), {"COMMANDS": set()})


_INTERNAL = re.compile(r"<(class|Token) ")


def _readable(description: str, near: object) -> str:
    """sqlglot's description of a syntax error, without its internals (class names, token
    reprs): ``Required keyword: 'expression' missing for <class '...Add'>`` reads as a syntax error
    near the token, as an engine would say it."""
    if not _INTERNAL.search(description):
        return description
    if isinstance(near, str) and near:
        return f"syntax error at or near {near!r}"
    return "syntax error at the end of the input"


def _token_error(sql: str, e: TokenError) -> SQLParseError:
    cause = e.__cause__
    if cause is not None:
        m = _MISSING.search(str(cause))
        if m:
            offset = int(m.group(3))
            what = m.group(1)
            return parse_error(f"Unterminated literal or comment: missing closing {what}", sql, offset)
    start = getattr(e, "start", None)
    return parse_error(f"Cannot tokenize SQL: {cause or e}", sql, start if isinstance(start, int) else None)


def parse_one_statement(sql: str, dialect: str, *, what: str = "SQL") -> exp.Expr:
    """Parse exactly one statement (trailing semicolons allowed) with sqlglot; errors become
    :class:`SQLParseError` with the position of the problem."""
    return parse_with_tokens(sql, dialect, what=what)[0]


def parse_with_tokens(sql: str, dialect: str, *, what: str = "SQL") -> tuple[exp.Expr, list[Token]]:
    """:func:`parse_one_statement` that also returns the tokens."""
    d = get_dialect(dialect)
    tokens = _names_after_dots(tokenize(sql, dialect))
    if dialect.lower() in _SPARK_FORMS:
        tokens = spark_query_forms(tokens)
    try:
        statements = d.parser().parse(tokens, sql)
    except ParseError as e:
        offset = None
        message = str(e)
        if e.errors:
            first = e.errors[0]
            line, col = first.get("line"), first.get("col")
            if isinstance(line, int) and isinstance(col, int):
                offset = _offset_of(sql, line, col)
            description = first.get("description")
            if description:
                message = _readable(str(description), first.get("highlight"))
        raise parse_error(f"Cannot parse {what}: {message}", sql, offset) from e
    except RecursionError as e:
        raise parse_error(f"Cannot parse {what}: it is nested too deeply", sql, None) from e
    # a comment after the last semicolon comes back as a Semicolon "statement"
    found = [s for s in statements if s is not None and not isinstance(s, exp.Semicolon)]
    if not found:
        raise parse_error(f"Cannot parse {what}: no statement", sql, 0)
    if len(found) > 1:
        second = next((t for t in tokens if t.token_type == TokenType.SEMICOLON), None)
        raise parse_error(
            f"Cannot parse {what}: expected one statement, found {len(found)}",
            sql,
            second.start if second is not None else None,
        )
    return found[0], tokens


def _names_after_dots(tokens: list[Token]) -> list[Token]:
    """A word right after a ``.`` is a name part (``db.outer``, ``s.order``) even when sqlglot
    tokenizes it as a keyword; Spark's grammar allows any word there."""
    for prev, tok in itertools.pairwise(tokens):
        if (
            prev.token_type == TokenType.DOT
            and tok.token_type not in (TokenType.VAR, TokenType.IDENTIFIER, TokenType.STRING)
            and _WORD.match(tok.text)
            and prev.end + 1 == tok.start
        ):
            tok.token_type = TokenType.VAR
    return tokens


_SPARK_FORMS = frozenset({"spark", "spark2", "databricks"})
_QUERY_START = frozenset(
    {
        TokenType.L_PAREN,
        TokenType.UNION,
        TokenType.EXCEPT,
        TokenType.INTERSECT,
        TokenType.ALL,
        TokenType.DISTINCT,
    }
)
_RELATION_BEFORE = frozenset({TokenType.FROM, TokenType.JOIN, TokenType.TABLE})
# a FROM clause ends at these (at its own parenthesis depth); a comma before them separates relations
_FROM_ENDS = frozenset(
    {
        TokenType.SELECT,
        TokenType.WHERE,
        TokenType.GROUP_BY,
        TokenType.HAVING,
        TokenType.ORDER_BY,
        TokenType.SORT_BY,
        TokenType.CLUSTER_BY,
        TokenType.DISTRIBUTE_BY,
        TokenType.LIMIT,
        TokenType.WINDOW,
        TokenType.QUALIFY,
        TokenType.UNION,
        TokenType.EXCEPT,
        TokenType.INTERSECT,
        TokenType.LATERAL,
        TokenType.VALUES,
    }
)


def spark_query_forms(tokens: list[Token]) -> list[Token]:
    """Spark's name forms sqlglot does not parse, rewritten at the token level for parsing only
    (positions stay those of the text):

    * ``IDENTIFIER('a.b')`` after ``FROM``, ``JOIN``, ``TABLE`` or a comma of a ``FROM`` list becomes
      the quoted name `` `a`.`b` ``, spanning the whole call;
    * the ``TABLE t`` query (at the start, after ``(`` or a set operation, and as the source of
      ``INSERT`` or ``CREATE TABLE ... AS``) becomes ``SELECT * FROM t``; the three made-up tokens
      sit on the word ``TABLE``.
    """
    out: list[Token] = []
    i, n = 0, len(tokens)
    first = tokens[0].token_type if tokens else None
    # per parenthesis depth: whether the tokens are in a FROM clause (a comma there separates relations)
    in_from = [False]
    while i < n:
        tok = tokens[i]
        prev = out[-1] if out else None
        kind = tok.token_type
        if kind == TokenType.L_PAREN:
            in_from.append(False)
        elif kind == TokenType.R_PAREN and len(in_from) > 1:
            in_from.pop()
        elif kind == TokenType.FROM:
            in_from[-1] = True
        elif kind in _FROM_ENDS:
            in_from[-1] = False
        relation_before = prev is not None and (
            prev.token_type in _RELATION_BEFORE or (prev.token_type == TokenType.COMMA and in_from[-1])
        )
        if (
            tok.token_type == TokenType.VAR
            and tok.text.upper() == "IDENTIFIER"
            and i + 3 < n
            and relation_before
            and tokens[i + 1].token_type == TokenType.L_PAREN
            and tokens[i + 2].token_type == TokenType.STRING
            and tokens[i + 3].token_type == TokenType.R_PAREN
        ):
            try:
                parts = split_name(tokens[i + 2].text)
            except SQLParseError:
                parts = ()
            if parts:
                close = tokens[i + 3]
                for k, part in enumerate(parts):
                    if k:
                        out.append(Token(TokenType.DOT, ".", tok.line, tok.col, tok.start, tok.start))
                    last = k == len(parts) - 1
                    start = close.start if last and k else tok.start
                    end = close.end if last else tok.end
                    out.append(Token(TokenType.IDENTIFIER, part, tok.line, tok.col, start, end))
                i += 4
                continue
        if (
            tok.token_type == TokenType.TABLE
            and (prev is None or prev.token_type in _QUERY_START or _query_source(first, prev))
            and i + 1 < n
            and tokens[i + 1].token_type in (TokenType.VAR, TokenType.IDENTIFIER)
        ):
            in_from[-1] = True
            for made, text in ((TokenType.SELECT, "SELECT"), (TokenType.STAR, "*"), (TokenType.FROM, "FROM")):
                out.append(Token(made, text, tok.line, tok.col, tok.start, tok.end))
            i += 1
            continue
        out.append(tok)
        i += 1
    return out


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _query_source(first: TokenType | None, prev: Token) -> bool:
    """Whether a ``TABLE`` word after ``prev`` starts the query of an ``INSERT`` (not the optional
    ``TABLE`` of ``INSERT INTO TABLE t``) or of a ``CREATE TABLE ... AS``."""
    if first == TokenType.INSERT:
        return prev.token_type not in (TokenType.INTO, TokenType.OVERWRITE, TokenType.INSERT)
    return first == TokenType.CREATE and prev.token_type == TokenType.ALIAS


def _offset_of(sql: str, line: int, col: int) -> int:
    """sqlglot reports 1-based line and the 1-based column of a token's last character."""
    lines = sql.split("\n")
    line = max(1, min(line, len(lines)))
    return sum(len(x) + 1 for x in lines[: line - 1]) + max(0, col - 1)


_LEAD = re.compile(r"(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.S)
_LEAD_WORD = re.compile(r"[A-Za-z_]+")


def leading_words(sql: str, n: int) -> list[str]:
    """The first ``n`` plain words of ``sql``, skipping whitespace and comments (a cheap pre-check
    that keeps ordinary queries away from the tokenizer)."""
    words: list[str] = []
    pos = 0
    while len(words) < n:
        pos = _LEAD.match(sql, pos).end()  # type: ignore[union-attr]  # the pattern matches empty
        m = _LEAD_WORD.match(sql, pos)
        if not m:
            break
        words.append(m.group(0).upper())
        pos = m.end()
    return words


# --------------------------------------------------------------------------------------------------
# Spark string literals

_U16 = re.compile(r"\\u([a-fA-F0-9]{4})")
_U32 = re.compile(r"\\U([a-fA-F0-9]{8})")
_OCTAL = re.compile(r"\\([01][0-7]{2})")
_ESCAPES = {"0": "\x00", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "%": "\\%", "_": "\\_"}


def unescape_spark_string(raw: str) -> str:
    """The value of a Spark string literal as written (with its quotes): Spark's
    ``unescapeSQLString``. ``r'...'`` and ``R"..."`` are raw; otherwise ``\\uXXXX``, ``\\UXXXXXXXX``,
    3-digit octal (``\\000``-``\\177``), ``\\0 \\b \\n \\r \\t \\Z`` and, as in MySQL, ``\\%`` and
    ``\\_`` kept with their backslash; any other escaped character stands for itself."""
    if raw[:1] in ("r", "R"):
        return raw[2:-1]
    body = raw[1:-1]
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        m = _U16.match(body, i)
        if m:
            out.append(chr(int(m.group(1), 16)))
            i += 6
            continue
        m = _U32.match(body, i)
        if m:
            cp = int(m.group(1), 16)
            out.append(chr(cp) if cp <= 0x10FFFF else "\ufffd")
            i += 10
            continue
        m = _OCTAL.match(body, i)
        if m:
            out.append(chr(int(m.group(1), 8)))
            i += 4
            continue
        nxt = body[i + 1]
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# identifiers


@lru_cache(maxsize=4096)  # expansion quotes the same column names on every read of a view
def quote_identifier(name: str, dialect: str) -> str:
    """``name`` as a quoted identifier of the dialect: `` `a``b` `` for Spark, ``"a""b"`` for DuckDB."""
    return exp.Identifier(this=name, quoted=True).sql(dialect=get_dialect(dialect))


@lru_cache(maxsize=8)
def _keywords(dialect: str) -> frozenset[str]:
    tokenizer = get_dialect(dialect).tokenizer_class
    return frozenset(k.upper() for k in tokenizer.KEYWORDS)


def _needs_quotes(name: str, dialect: str) -> bool:
    return not _SIMPLE.match(name) or name.upper() in _keywords(dialect)


def render_name(parts: Sequence[str], dialect: str, *, always_quote: bool = False) -> str:
    """A multi-part name in the dialect, each part quoted when it is not a plain identifier or is a
    keyword of the dialect (or always, with ``always_quote``)."""
    return ".".join(
        quote_identifier(p, dialect) if always_quote or _needs_quotes(p, dialect) else p for p in parts
    )


def spark_quote_if_needed(part: str) -> str:
    """Spark's ``quoteIfNeeded``: backquotes unless the part is ``[a-zA-Z0-9_]+`` and not all digits."""
    if _SPARK_UNQUOTED.match(part) and not _DIGITS.match(part):
        return part
    return "`" + part.replace("`", "``") + "`"


# --------------------------------------------------------------------------------------------------
# splicing


Edit = tuple[int, int, str]
"""``(start, end, text)``: replace ``sql[start:end]`` by ``text``."""


def apply_edits(sql: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits."""
    if not edits:
        return sql
    ordered = sorted(edits, key=lambda e: (e[0], e[1]))
    out: list[str] = []
    pos = 0
    for start, end, text in ordered:
        if start < pos:
            raise AssertionError(f"overlapping edits at {start}")  # pragma: no cover - internal invariant
        out.append(sql[pos:start])
        out.append(text)
        pos = end
    out.append(sql[pos:])
    return "".join(out)
