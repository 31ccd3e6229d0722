"""Regenerate the rules table of docs/translation.md from iceview.sql.translate.rules.

Usage: .venv/bin/python scripts/translation_docs.py [--check]
With --check, exit 1 when the document is stale instead of writing it."""

from __future__ import annotations

import sys
from pathlib import Path

from iceview.sql.translate.verdicts import replace_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "translation.md"


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = replace_table(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC} is stale: run scripts/translation_docs.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        DOC.write_text(new, encoding="utf-8")
        print(f"updated {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
