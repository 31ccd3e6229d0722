"""Multi-part names as Spark writes them: ``a.b.c``, with back-quotes around a part that holds dots
or other characters (`` `my.view` ``; a doubled back-quote is a literal one)."""

from __future__ import annotations

from iceview.errors import SQLParseError

__all__ = ["NameParseError", "split_name"]


class NameParseError(SQLParseError):
    """A name that cannot be split into parts; ``reason`` says why (``unclosed backquote``,
    ``empty name part``) and ``offset`` where."""

    def __init__(self, text: str, reason: str, offset: int) -> None:
        self.reason = reason
        super().__init__(f"Invalid name {text!r}: {reason}", text, offset)


def split_name(text: str) -> tuple[str, ...]:
    """The parts of a multi-part name. White space around an unquoted part is dropped; a quoted
    part is kept as written. Raises :class:`NameParseError` for an unclosed back-quote or an empty
    part (``a..b``, ``a.``, ``` `` ```)."""
    s = text.strip()
    parts: list[str] = []
    cur: list[str] = []
    quoted_part = False
    start = 0
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if ch == "`":
            j = i + 1
            while j < n:
                if s[j] == "`":
                    if j + 1 < n and s[j + 1] == "`":
                        cur.append("`")
                        j += 2
                        continue
                    break
                cur.append(s[j])
                j += 1
            if j >= n:
                raise NameParseError(text, "unclosed backquote", i)
            quoted_part = True
            i = j + 1
        elif ch == ".":
            _append(parts, cur, quoted_part, text, start)
            cur, quoted_part, start = [], False, i + 1
            i += 1
        elif ch.isspace() and not quoted_part and not cur:
            i += 1
        else:
            cur.append(ch)
            i += 1
    _append(parts, cur, quoted_part, text, start)
    return tuple(parts)


def _append(parts: list[str], cur: list[str], quoted: bool, text: str, start: int) -> None:
    part = "".join(cur) if quoted else "".join(cur).strip()
    if part == "":
        raise NameParseError(text, "empty name part", start)
    parts.append(part)
