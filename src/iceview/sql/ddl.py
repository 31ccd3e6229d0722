"""The view statements of Spark SQL, parsed over sqlglot's tokens.

:func:`parse_statement` recognises the statements that Iceberg-Spark handles for views and returns a
frozen dataclass for each; any other statement gives ``None`` (it is the engine's business). A
recognised statement that is malformed raises :class:`~iceview.errors.SQLParseError` naming the
problem and its position (``line``/``pos`` as Spark reports them).

The query of ``CREATE VIEW ... AS q`` and ``ALTER VIEW ... AS q`` is kept **verbatim**: the text from
the query's first token to its last one, which is what Spark's ``originalText`` is and what
Iceberg-Spark stores as the view's SQL. Comments and whitespace around it are not part of it;
comments inside it are.

Statements (Spark 3.5 grammar, with Spark 4's ``WITH SCHEMA`` binding accepted):

* ``CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v [(c [COMMENT 'x'], ...)] [COMMENT 'c']
  [TBLPROPERTIES ('k'='v', ...)] [WITH SCHEMA ...] AS q`` (clauses in any order, each at most once)
* ``ALTER VIEW v [AS] q``, ``ALTER VIEW v SET TBLPROPERTIES (...)``,
  ``ALTER VIEW v UNSET TBLPROPERTIES [IF EXISTS] (...)``, ``ALTER VIEW v RENAME TO w``
* ``DROP VIEW [IF EXISTS] v``
* ``SHOW VIEWS [(IN|FROM) ns] [[LIKE] 'pattern']``
* ``(DESCRIBE|DESC) [TABLE] [EXTENDED|FORMATTED] v [col]``
* ``SHOW CREATE TABLE v``
* ``SHOW TBLPROPERTIES v [(key)]``

Names are tuples of parts as written (case kept); backquoted parts may contain anything (`` `` ``
escapes a backquote). ``IDENTIFIER('a.b')`` names are accepted too. Unquoted parts are read by
Spark's lexer rules (:mod:`iceview.sql._spark_lexer`): ``1v`` is a name; ``123``, ``1e3``, ``v$``
and ``v-w`` raise :class:`SparkSyntaxError` with Spark's error class, message and position.
"""

from __future__ import annotations

import re

from sqlglot.tokenizer_core import Token, TokenType

from iceview.errors import SQLParseError
from iceview.sql._spark_lexer import SparkSyntaxError, name_break, spark_token, token_error
from iceview.sql._text import leading_words, parse_error, split_statements, tokenize, unescape_spark_string
from iceview.sql.statements import (
    AlterViewAs,
    AlterViewRename,
    AlterViewSetProperties,
    AlterViewUnsetProperties,
    CreateView,
    DescribeView,
    DropView,
    ShowCreateTable,
    ShowTblProperties,
    ShowViews,
    Statement,
    ViewColumn,
)

__all__ = ["SparkSyntaxError", "parse_statement", "split_statements"]


# --------------------------------------------------------------------------------------------------

_STRING_TYPES = frozenset({TokenType.STRING, TokenType.RAW_STRING})
_NOT_WORDS = frozenset(
    {
        TokenType.STRING,
        TokenType.RAW_STRING,
        TokenType.NATIONAL_STRING,
        TokenType.HEX_STRING,
        TokenType.BIT_STRING,
        TokenType.BYTE_STRING,
        TokenType.HEREDOC_STRING,
        TokenType.UNICODE_STRING,
        TokenType.IDENTIFIER,
        TokenType.NUMBER,
    }
)
_WORD = re.compile(r"\w+\Z")
_QUERY_START = frozenset({"SELECT", "WITH", "FROM", "VALUES", "TABLE", "MAP", "REDUCE"})
_DESCRIBE_OTHER = frozenset(
    {
        "FUNCTION",
        "DATABASE",
        "SCHEMA",
        "NAMESPACE",
        "CATALOG",
        "QUERY",
        "PROCEDURE",
        "SELECT",
        "WITH",
        "FROM",
        "VALUES",
        "MAP",
        "REDUCE",
    }
)


_NOT_ALLOWED = "_LEGACY_ERROR_TEMP_0035"  # Spark's class of "Operation not allowed: ..."
_LEXICAL_ERRORS = frozenset({"number", "other", "op", "minus"})
# what each statement allows after a name (see name_break); the name of ALTER VIEW has none
_END = frozenset({"EOF"})
_AFTER_CREATE = frozenset({"(", "COMMENT", "TBLPROPERTIES", "PARTITIONED", "AS"})
_AFTER_COLUMN = frozenset({"COMMENT", ",", ")"})
_AFTER_SHOW_CREATE = frozenset({"AS", "EOF"})


def parse_statement(sql: str) -> Statement | None:
    """Parse one Spark SQL statement. Returns the view statement it is, or ``None`` for any other
    statement (including temporary views, which Spark handles itself). Raises
    :class:`~iceview.errors.SQLParseError` for a malformed view statement."""
    head = leading_words(sql, 6)
    if not _maybe_ours(head[:4]):
        return None
    try:
        tokens = tokenize(sql, "spark", commands=False)
    except SQLParseError:
        # a lexical error: ours only if it clearly is a (non-temporary) view statement
        if _clearly_view_statement(head):
            raise
        return None
    parser = _Parser(sql, tokens)
    stmt = parser.statement()
    if stmt is not None and parser.invalid is not None:
        raise parser.invalid
    return stmt


def _clearly_view_statement(words: list[str]) -> bool:
    if not words:
        return False
    if words[0] in ("CREATE", "ALTER", "DROP"):
        return "VIEW" in words and not {"TEMP", "TEMPORARY", "MATERIALIZED"} & set(words)
    return _maybe_ours(words[:4])


def _maybe_ours(words: list[str]) -> bool:
    if not words:
        return False
    first = words[0]
    if first in ("CREATE", "ALTER", "DROP"):
        return "VIEW" in words or (first == "CREATE" and len(words) >= 2 and words[1] == "OR")
    if first == "SHOW":
        return len(words) >= 2 and words[1] in ("VIEWS", "CREATE", "TBLPROPERTIES")
    return first in ("DESCRIBE", "DESC")


class _Parser:
    """Recursive descent over sqlglot tokens."""

    def __init__(self, sql: str, tokens: list[Token]) -> None:
        self.sql = sql
        # statement ends at the first top-level semicolon; more statements after it are an error
        self.tokens = tokens
        self.i = 0
        self.after = 0  # where the last name part read ends (a character offset)
        self.part = ""
        # Spark's INVALID_IDENTIFIER (a-b), raised only if the statement parses otherwise
        self.invalid: SparkSyntaxError | None = None
        self.end = len(tokens)
        for k, t in enumerate(tokens):
            if t.token_type == TokenType.SEMICOLON:
                self.end = k
                break

    # ---------------------------------------------------------------- token helpers

    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.tokens[j] if j < self.end else None

    def raw(self, tok: Token) -> str:
        return self.sql[tok.start : tok.end + 1]

    @staticmethod
    def is_word(tok: Token | None) -> bool:
        return tok is not None and tok.token_type not in _NOT_WORDS and bool(_WORD.match(tok.text))

    def at(self, *words: str) -> bool:
        """Whether the next tokens are these keywords."""
        for k, w in enumerate(words):
            tok = self.peek(k)
            if not self.is_word(tok) or tok.text.upper() != w:  # type: ignore[union-attr]
                return False
        return True

    def accept(self, *words: str) -> bool:
        if self.at(*words):
            self.i += len(words)
            return True
        return False

    def expect(self, word: str, what: str) -> None:
        if not self.accept(word):
            raise self.error(f"expected {what}")

    def at_type(self, tt: TokenType) -> bool:
        tok = self.peek()
        return tok is not None and tok.token_type == tt

    def accept_type(self, tt: TokenType) -> bool:
        if self.at_type(tt):
            self.i += 1
            return True
        return False

    def expect_type(self, tt: TokenType, what: str) -> Token:
        tok = self.peek()
        if tok is None or tok.token_type != tt:
            raise self.error(f"expected {what}")
        self.i += 1
        return tok

    def error(self, expected: str, tok: Token | None = None) -> SQLParseError:
        if tok is None:
            tok = self.peek()
        if tok is None:
            at_end = self.tokens[self.end] if self.end < len(self.tokens) else None
            offset = at_end.start if at_end is not None else len(self.sql.rstrip())
            near = "';'" if at_end is not None else "end of input"
            return parse_error(f"Syntax error at or near {near}: {expected}", self.sql, offset)
        return parse_error(f"Syntax error at or near '{self.raw(tok)}': {expected}", self.sql, tok.start)

    def done(self) -> None:
        if self.peek() is not None:
            raise self.error("expected end of statement")
        # anything after the terminating semicolon(s) is another statement
        for tok in self.tokens[self.end :]:
            if tok.token_type != TokenType.SEMICOLON:
                raise parse_error(
                    f"Syntax error at or near '{self.raw(tok)}': expected one statement",
                    self.sql,
                    tok.start,
                )

    # ---------------------------------------------------------------- grammar pieces

    def identifier(self, what: str, at: int | None = None) -> str:
        """One name part, as Spark's lexer reads it (see :mod:`iceview.sql._spark_lexer`), at the
        next token or at character offset ``at``."""
        tok = self.peek()
        if at is None:
            if tok is None:
                raise self.error(f"expected {what}")
            at = tok.start
        spark = spark_token(self.sql, at)
        if spark.kind in ("word", "quoted"):
            self._skip_to(spark.end)
            self.part = spark.text if spark.kind == "word" else spark.text[1:-1].replace("``", "`")
            return self.part
        if spark.kind in _LEXICAL_ERRORS:
            # where a name must start, Spark's parser reports the token and nothing more
            raise token_error(self.sql, spark)
        self._skip_to(spark.start)
        raise self.error(f"expected {what}")

    def _skip_to(self, offset: int) -> None:
        """Move past the sqlglot tokens before ``offset`` (the end of what Spark's lexer read)."""
        while self.i < self.end and self.tokens[self.i].start < offset:
            self.i += 1
        self.after = offset

    def multipart(self, what: str, follow: frozenset[str] | None = _END) -> tuple[str, ...]:
        """``multipartIdentifier`` or ``IDENTIFIER('a.b')``. ``follow`` is what the statement allows
        after the name (``None``: Spark decides the statement only after the name, so a bad
        character is reported without "extra input"); see :func:`name_break`."""
        if self.at("IDENTIFIER") and self._next_is(TokenType.L_PAREN):
            return self.identifier_clause(what)
        parts = [self.identifier(what)]
        while True:
            nxt = spark_token(self.sql, self.after)
            if nxt.kind == "minus":  # `a-b.c`: Spark's INVALID_IDENTIFIER for `a-b`, then `.c`
                self.check_break(follow)
                nxt = spark_token(self.sql, self.after)
            if nxt.kind != "dot":
                break
            parts.append(self.identifier(f"a name part after '.' in {what}", at=nxt.end))
        self.check_break(follow)
        return tuple(parts)

    def check_break(self, follow: frozenset[str] | None, *, dashes: bool = True) -> None:
        """Spark's errors for what comes right after a name part (see :func:`name_break`)."""
        error, end = name_break(self.sql, self.part, self.after, follow, dashes=dashes)
        if error is None:
            return
        if error.error_class != "INVALID_IDENTIFIER":
            raise error
        if self.invalid is None:
            self.invalid = error
        self._skip_to(end)

    def _next_is(self, tt: TokenType) -> bool:
        tok = self.peek(1)
        return tok is not None and tok.token_type == tt

    def identifier_clause(self, what: str) -> tuple[str, ...]:
        self.i += 1  # IDENTIFIER
        self.expect_type(TokenType.L_PAREN, "'(' after IDENTIFIER")
        tok = self.peek()
        value = self.string_lit(f"a string with {what} in IDENTIFIER(...)")
        self.expect_type(TokenType.R_PAREN, "')' to close IDENTIFIER(...)")
        try:
            tokens = tokenize(value, "spark", commands=False)
            inner = _Parser(value, tokens)
            parts = inner.multipart(what)
            inner.done()
            if inner.invalid is not None:
                raise inner.invalid
        except SQLParseError as e:
            raise parse_error(
                f"Invalid identifier {value!r} in IDENTIFIER(...): {e.message}",
                self.sql,
                tok.start if tok is not None else None,
            ) from e
        return parts

    def string_lit(self, what: str) -> str:
        tok = self.peek()
        if tok is None or tok.token_type not in _STRING_TYPES:
            raise self.error(f"expected {what}")
        self.i += 1
        return unescape_spark_string(self.raw(tok))

    def property_key(self) -> str:
        tok = self.peek()
        if tok is not None and tok.token_type in _STRING_TYPES:
            return self.string_lit("a property key")
        # identifier (. identifier)*: Spark takes the text as written (its getText)
        begin = self.i
        self.identifier("a property key")
        while self.accept_type(TokenType.DOT):
            self.identifier("a property key part after '.'")
        return "".join(self.raw(t) for t in self.tokens[begin : self.i])

    def property_value(self) -> str | None:
        tok = self.peek()
        if tok is None:
            return None
        if tok.token_type in _STRING_TYPES:
            return self.string_lit("a property value")
        if tok.token_type == TokenType.NUMBER:
            # sqlglot splits typed numbers (1L) into several tokens over the same span
            self.i += 1
            while self.peek() is not None and self.peek().start <= tok.end:  # type: ignore[union-attr]
                self.i += 1
            text = self.raw(tok)
            return text
        if self.at("TRUE") or self.at("FALSE"):
            self.i += 1
            return tok.text.lower()
        return None

    def property_list(self, *, values: str) -> dict[str, str | None]:
        """``'(' property (',' property)* ')'``; ``values`` is ``required``, ``forbidden`` or ``optional``."""
        open_tok = self.expect_type(TokenType.L_PAREN, "'(' to start the property list")
        props: dict[str, str | None] = {}
        while True:
            key_tok = self.peek()
            if key_tok is None or key_tok.token_type == TokenType.R_PAREN:
                raise self.error("expected a property key")
            key = self.property_key()
            value: str | None = None
            if self.accept_type(TokenType.EQ):
                value = self.property_value()
                if value is None:
                    raise self.error(f"expected a value for property '{key}'")
            else:
                value = self.property_value()
            if key in props:
                quoted = ".".join("`" + p.replace("`", "``") + "`" for p in key.split("."))
                raise SparkSyntaxError(
                    f"Found duplicate keys {quoted}.", self.sql, open_tok.start, "DUPLICATE_KEY"
                )
            props[key] = value
            if self.accept_type(TokenType.COMMA):
                continue
            self.expect_type(TokenType.R_PAREN, "',' or ')' in the property list")
            break
        offset = open_tok.start
        if values == "required":
            missing = [k for k, v in props.items() if v is None]
            if missing:
                raise SparkSyntaxError(
                    "Operation not allowed: Values must be specified for key(s): ["
                    + ",".join(missing)
                    + "].",
                    self.sql,
                    offset,
                    _NOT_ALLOWED,
                )
        elif values == "forbidden":
            given = [k for k, v in props.items() if v is not None]
            if given:
                raise SparkSyntaxError(
                    "Operation not allowed: Values should not be specified for key(s): ["
                    + ",".join(given)
                    + "].",
                    self.sql,
                    offset,
                    _NOT_ALLOWED,
                )
        return props

    def query_rest(self, what: str) -> tuple[str, int]:
        """The rest of the statement is a query; its verbatim text and offset."""
        first = self.peek()
        if first is None:
            raise self.error(f"expected a query after {what}")
        if not (
            first.token_type == TokenType.L_PAREN
            or (self.is_word(first) and first.text.upper() in _QUERY_START)
        ):
            raise self.error(f"expected a query (SELECT, WITH, FROM, VALUES, TABLE or '(') after {what}")
        last = self.tokens[self.end - 1]
        self.i = self.end
        self.done()
        return self.sql[first.start : last.end + 1], first.start

    # ---------------------------------------------------------------- statements

    def statement(self) -> Statement | None:
        if self.accept("CREATE"):
            return self.create()
        if self.accept("ALTER", "VIEW"):
            return self.alter_view()
        if self.accept("DROP", "VIEW"):
            if_exists = self.accept("IF", "EXISTS")
            name = self.multipart("a view name")
            self.done()
            return DropView(name, if_exists)
        if self.accept("SHOW"):
            return self.show()
        if self.accept("DESCRIBE") or self.accept("DESC"):
            return self.describe()
        return None

    def create(self) -> Statement | None:
        or_replace = self.accept("OR", "REPLACE")
        if self.at("GLOBAL") or self.at("TEMPORARY") or self.at("TEMP"):
            return None
        if not self.accept("VIEW"):
            return None  # CREATE TABLE, CREATE MATERIALIZED VIEW, ...: not ours
        if_not_exists = self.accept("IF", "NOT", "EXISTS")
        if or_replace and if_not_exists:
            raise SparkSyntaxError(
                "CREATE VIEW with both IF NOT EXISTS and REPLACE is not allowed.",
                self.sql,
                self.tokens[0].start,
                "_LEGACY_ERROR_TEMP_0052",
            )
        name = self.multipart("a view name", _AFTER_CREATE)
        columns: tuple[ViewColumn, ...] = ()
        if self.at_type(TokenType.L_PAREN):
            columns = self.column_list()
        comment: str | None = None
        properties: dict[str, str] = {}
        binding: str | None = None
        seen: set[str] = set()
        while not self.at("AS"):
            tok = self.peek()
            clause = tok.text.upper() if self.is_word(tok) else ""  # type: ignore[union-attr]
            if clause in seen:
                raise SparkSyntaxError(
                    f"Found duplicate clauses: {clause}. Please, remove one of them.",
                    self.sql,
                    self.tokens[0].start,
                    "DUPLICATE_CLAUSES",
                )
            if self.accept("COMMENT"):
                comment = self.string_lit("a string after COMMENT")
            elif self.accept("TBLPROPERTIES"):
                properties = {k: v for k, v in self.property_list(values="required").items() if v is not None}
            elif self.accept("PARTITIONED", "ON"):
                raise SparkSyntaxError(
                    "Operation not allowed: CREATE VIEW ... PARTITIONED ON.",
                    self.sql,
                    self.tokens[0].start,
                    _NOT_ALLOWED,
                )
            elif self.accept("WITH", "SCHEMA"):
                binding = self.schema_binding()
                clause = "WITH"
            else:
                if tok is None:
                    raise self.error("expected AS and a query")
                if tok.token_type == TokenType.L_PAREN and columns == ():
                    raise self.error("expected AS; a column list must come right after the view name")
                raise self.error("expected COMMENT, TBLPROPERTIES or AS")
            seen.add(clause)
        self.accept("AS")
        query, offset = self.query_rest("AS")
        return CreateView(
            name=name,
            query=query,
            columns=columns,
            comment=comment,
            properties=properties,
            or_replace=or_replace,
            if_not_exists=if_not_exists,
            query_offset=offset,
            schema_binding=binding,
        )

    def schema_binding(self) -> str:
        for words in (("BINDING",), ("COMPENSATION",), ("TYPE", "EVOLUTION"), ("EVOLUTION",)):
            if self.accept(*words):
                return " ".join(words)
        raise self.error("expected BINDING, COMPENSATION, TYPE EVOLUTION or EVOLUTION after WITH SCHEMA")

    def column_list(self) -> tuple[ViewColumn, ...]:
        self.expect_type(TokenType.L_PAREN, "'('")
        cols: list[ViewColumn] = []
        while True:
            tok = self.peek()
            if tok is not None and tok.token_type in (TokenType.R_PAREN, TokenType.COMMA):
                raise self.error("expected a column name in the view's column list")
            name = self.identifier("a column name in the view's column list")
            self.check_break(_AFTER_COLUMN, dashes=False)
            comment = None
            if self.accept("COMMENT"):
                comment = self.string_lit(f"a string after COMMENT for column {name}")
            cols.append(ViewColumn(name, comment))
            if self.accept_type(TokenType.COMMA):
                continue
            if self.accept_type(TokenType.R_PAREN):
                break
            raise self.error("expected ',' or ')' in the view's column list")
        return tuple(cols)

    def alter_view(self) -> Statement | None:
        name = self.multipart("a view name", None)
        if self.accept("SET", "TBLPROPERTIES"):
            props = self.property_list(values="required")
            self.done()
            return AlterViewSetProperties(name, {k: v for k, v in props.items() if v is not None})
        if self.accept("UNSET", "TBLPROPERTIES"):
            if_exists = self.accept("IF", "EXISTS")
            keys = tuple(self.property_list(values="forbidden"))
            self.done()
            return AlterViewUnsetProperties(name, keys, if_exists)
        if self.accept("RENAME", "TO"):
            new_name = self.multipart("the new view name")
            self.done()
            return AlterViewRename(name, new_name)
        if self.at("WITH", "SCHEMA"):
            return None  # Spark 4's ALTER VIEW v WITH SCHEMA ...: the engine's business
        if self.accept("AS"):
            query, offset = self.query_rest("AS")
            return AlterViewAs(name, query, offset)
        tok = self.peek()
        if tok is not None and (
            tok.token_type == TokenType.L_PAREN or (self.is_word(tok) and tok.text.upper() in _QUERY_START)
        ):
            query, offset = self.query_rest("the view name")
            return AlterViewAs(name, query, offset)
        if tok is None:
            raise self.error("expected AS, SET TBLPROPERTIES, UNSET TBLPROPERTIES or RENAME TO")
        return None  # another ALTER VIEW form: the engine's business

    def show(self) -> Statement | None:
        if self.accept("VIEWS"):
            namespace = None
            if self.accept("IN") or self.accept("FROM"):
                namespace = self.multipart("a namespace", _END)
            pattern = None
            if self.accept("LIKE"):
                pattern = self.string_lit("a pattern string after LIKE")
            elif self.peek() is not None and self.peek().token_type in _STRING_TYPES:  # type: ignore[union-attr]
                pattern = self.string_lit("a pattern string")
            self.done()
            return ShowViews(namespace, pattern)
        if self.accept("CREATE", "TABLE"):
            name = self.multipart("a view name", _AFTER_SHOW_CREATE)
            if self.at("AS", "SERDE"):
                return None
            self.done()
            return ShowCreateTable(name)
        if self.accept("TBLPROPERTIES"):
            name = self.multipart("a view name", _END)
            key = None
            if self.accept_type(TokenType.L_PAREN):
                key = self.property_key()
                self.expect_type(TokenType.R_PAREN, "')' after the property key")
            self.done()
            return ShowTblProperties(name, key)
        return None

    def describe(self) -> Statement | None:
        tok = self.peek()
        if tok is None:
            raise self.error("expected a view name")
        if tok.token_type == TokenType.L_PAREN:
            return None  # DESCRIBE (query)
        if self.is_word(tok) and tok.text.upper() in _DESCRIBE_OTHER and self.peek(1) is not None:
            return None
        self.accept("TABLE")
        extended = formatted = False
        nxt = self.peek(1)
        option_follows = nxt is not None and (nxt.token_type == TokenType.IDENTIFIER or self.is_word(nxt))
        if option_follows and self.accept("EXTENDED"):
            extended = True
        elif option_follows and self.accept("FORMATTED"):
            formatted = True
        name = self.multipart("a view name", _END)
        column: tuple[str, ...] | None = None
        tok = self.peek()
        if tok is not None and (tok.token_type == TokenType.IDENTIFIER or self.is_word(tok)):
            if self.at("PARTITION") or self.at("AS", "JSON"):
                return None
            column = self.multipart("a column name")
        self.done()
        return DescribeView(name, extended, formatted, column)
