"""Safe dialect translation of view SQL between Spark, Trino and DuckDB, on top of sqlglot.

:func:`translate` turns a view's SQL from one dialect into another and refuses what it cannot carry
over without changing the meaning. sqlglot alone is not enough: its Spark dialect models non-ANSI
Spark, it passes unknown functions through, and some constructs are dropped or left invalid
(``docs/translation.md`` lists the traps). The steps (:mod:`.pipeline`):

1. qualify the relation names with the version's defaults (:func:`iceview.sql.qualify`), so the
   output has no names that the target engine would resolve differently;
2. parse in the source dialect; with table schemas, let sqlglot qualify the columns, expand ``*``
   and annotate types (the type-aware rules need them);
3. apply the rules table (:data:`RULES`, :mod:`.rules`): for every node of the source tree, the most
   specific rule for its construct and the direction keeps it, refuses it, checks it (type-aware
   rules, :mod:`.checks`) or rewrites the few constructs that have an exact counterpart sqlglot
   gets wrong (``trunc`` units, ``DECIMAL`` without precision);
4. generate in the target dialect with ``unsupported_level=RAISE``;
5. re-parse the output in the target dialect and check that nothing was dropped (relations,
   projections, clauses) and, for Trino, that every function exists there (:mod:`.compare`).

Every refusal names the construct and the reason (:class:`TranslationIssue`). ``strict=True``
raises :class:`UnsafeTranslationError` (a :class:`~iceview.errors.TranslationError`) with all of
them; ``strict=False`` returns the SQL with the issues as warnings.

Modules: :mod:`.model` (values), :mod:`.pipeline` (the entry points), :mod:`.policy` (rules and
their lookup), :mod:`.rules` (the table), :mod:`.checks` (rules kept as functions),
:mod:`.allowlists` (function lists per dialect), :mod:`.compare` (the output check).

The names below are imported when first used: a caller that only needs a property key
(:mod:`.keys`) does not load sqlglot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceview._lazy import lazy_names

if TYPE_CHECKING:
    from iceview.sql.translate.allowlists import TRINO_FUNCTIONS, allowed_functions
    from iceview.sql.translate.keys import PROVENANCE_KEY, PROVENANCE_VERSION_KEY, SPARK_ANSI_KEY
    from iceview.sql.translate.model import (
        DIALECTS,
        SOURCE_PREFERENCE,
        TableSchemas,
        Translation,
        TranslationIssue,
        UnsafeTranslationError,
        known_catalogs_of,
        provenance_summary,
        spark_ansi_mode,
        translation_source,
    )
    from iceview.sql.translate.pipeline import set_output_check, translate, translation_hook
    from iceview.sql.translate.rules import RULES

_WHERE: dict[str, str] = {
    "TRINO_FUNCTIONS": "iceview.sql.translate.allowlists",
    "allowed_functions": "iceview.sql.translate.allowlists",
    "DIALECTS": "iceview.sql.translate.model",
    "PROVENANCE_KEY": "iceview.sql.translate.keys",
    "PROVENANCE_VERSION_KEY": "iceview.sql.translate.keys",
    "SPARK_ANSI_KEY": "iceview.sql.translate.keys",
    "SOURCE_PREFERENCE": "iceview.sql.translate.model",
    "TableSchemas": "iceview.sql.translate.model",
    "Translation": "iceview.sql.translate.model",
    "TranslationIssue": "iceview.sql.translate.model",
    "UnsafeTranslationError": "iceview.sql.translate.model",
    "known_catalogs_of": "iceview.sql.translate.model",
    "provenance_summary": "iceview.sql.translate.model",
    "spark_ansi_mode": "iceview.sql.translate.model",
    "translation_source": "iceview.sql.translate.model",
    "translate": "iceview.sql.translate.pipeline",
    "translation_hook": "iceview.sql.translate.pipeline",
    "set_output_check": "iceview.sql.translate.pipeline",
    "RULES": "iceview.sql.translate.rules",
}
"""Each public name -> the module that defines it."""


__getattr__ = lazy_names(__name__, _WHERE, globals())


__all__ = [
    "DIALECTS",
    "PROVENANCE_KEY",
    "PROVENANCE_VERSION_KEY",
    "RULES",
    "SOURCE_PREFERENCE",
    "SPARK_ANSI_KEY",
    "TRINO_FUNCTIONS",
    "TableSchemas",
    "Translation",
    "TranslationIssue",
    "UnsafeTranslationError",
    "allowed_functions",
    "known_catalogs_of",
    "provenance_summary",
    "set_output_check",
    "spark_ansi_mode",
    "translate",
    "translation_hook",
    "translation_source",
]
