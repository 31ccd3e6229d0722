"""Derived dialects: SQL that iceview keeps in step with a version's own SQL (``docs/translation.md``).

A view whose property ``iceview.derive-dialects`` lists dialects (``trino,duckdb``) gets, in every
new version committed through iceview's change path (:meth:`Catalog.commit_view`: the Python API,
SparkViews, the command line, the REST client and ``iceview serve`` for any client), those
dialects translated from the version's source SQL, in the same commit. Per version, the summary
records what was derived and what was refused:

* ``iceview.derived-dialects``: the dialects of this version that were derived (``trino,duckdb``);
* ``iceview.derive-refused.<dialect>``: why a dialect was left out (its refusal codes);
* ``iceview.translated-from`` and ``iceview.translator-version``: the provenance of what was derived.

A version never carries stale SQL: what an incoming version marks as derived is dropped and derived
again from its source. A derived dialect that cannot be translated safely is left out, and losing
it never blocks a replace. Hand-written dialects keep Java's drop-dialect guard here: a new version
may not lose a dialect the current version has, did not derive, and the view does not derive. Iceberg Java checks its own guard
on the client, before anything reaches iceview, so a view with this property also gets
``replace.drop-dialect.allowed=true``, which lets a native Iceberg-Spark ``CREATE OR REPLACE VIEW``
through; iceview then derives again in that commit (``iceview serve``), or
:meth:`~iceview.view.View.sync_dialects` does afterwards (a catalog's tables written by Java directly).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyiceberg.schema import Schema

from iceview.errors import (
    AmbiguousFunctionCallError,
    DialectDropError,
    FunctionInliningError,
    FunctionResolutionError,
    InvalidArgumentError,
    SQLParseError,
    TranslationError,
)
from iceview.spec import (
    AddSchema,
    AddViewVersion,
    RemoveProperties,
    SetCurrentViewVersion,
    SetProperties,
    SQLRepresentation,
    ViewMetadata,
    ViewUpdate,
    ViewVersion,
)
from iceview.spec.builder import REPLACE_DROP_DIALECT_ALLOWED
from iceview.sql.translate.keys import INLINED_FUNCTIONS_KEY, PROVENANCE_KEY, PROVENANCE_VERSION_KEY
from iceview.view.dialects import (
    FunctionSource,
    inlined_functions_summary,
    source_representation,
    translate_representations,
)

__all__ = [
    "CATALOG_ALIASES",
    "DERIVED_KEY",
    "DERIVE_DIALECTS",
    "REFUSED_PREFIX",
    "DeriveContext",
    "derive_dialects_of",
    "derive_updates",
    "derive_version",
    "derived_dialects",
    "refusals",
]

DERIVE_DIALECTS = "iceview.derive-dialects"
"""View property: the dialects every new version derives from its source SQL (comma-separated)."""
DERIVED_KEY = "iceview.derived-dialects"
"""Version summary: the dialects of this version that were derived."""
REFUSED_PREFIX = "iceview.derive-refused."
"""Version summary, plus a dialect: the refusal codes of a dialect left out."""

CATALOG_ALIASES = "iceview.catalog-aliases"
"""Catalog property: other names engines give this catalog (comma-separated), known in its SQL."""

_KNOWN = ("spark", "trino", "duckdb")


def _split(value: str) -> list[str]:
    out: list[str] = []
    for part in value.split(","):
        name = part.strip().lower()
        if name and name not in out:
            out.append(name)
    return out


def derive_dialects_of(properties: Mapping[str, str]) -> tuple[str, ...]:
    """The dialects a view's properties ask to derive (none without ``iceview.derive-dialects``).
    An unknown dialect raises ``InvalidArgumentError``."""
    raw = properties.get(DERIVE_DIALECTS)
    if raw is None:
        return ()
    names = _split(raw)
    unknown = [n for n in names if n not in _KNOWN]
    if unknown:
        raise InvalidArgumentError(
            f"Invalid {DERIVE_DIALECTS}: unknown dialect {', '.join(unknown)} (known: {', '.join(_KNOWN)})"
        )
    return tuple(names)


def derived_dialects(version: ViewVersion) -> frozenset[str]:
    """The dialects of ``version`` that iceview derived: its ``iceview.derived-dialects``; for a
    version written before that key, every dialect but the one ``iceview.translated-from`` names."""
    summary = version.summary
    marked = summary.get(DERIVED_KEY)
    if marked is not None:
        return frozenset(_split(marked))
    source = summary.get(PROVENANCE_KEY)
    if source is None:
        return frozenset()
    return frozenset(d.lower() for d in version.dialects if d.lower() != source.lower())


def refusals(version: ViewVersion) -> dict[str, str]:
    """The dialects derivation left out of ``version``, with their refusal codes."""
    return {k[len(REFUSED_PREFIX) :]: v for k, v in version.summary.items() if k.startswith(REFUSED_PREFIX)}


SchemaLookup = Callable[[str, str, ViewVersion], Mapping[tuple[str, ...], Schema]]
"""``(sql, dialect, version) -> {qualified name: schema}`` of the relations a version's SQL reads."""


@dataclass(frozen=True)
class DeriveContext:
    """What derivation needs from the catalog that commits: its name and properties (for names
    as Trino knows them) and the schemas of the relations a query reads (for the type rules)."""

    catalog_name: str
    catalog_properties: Mapping[str, str]
    schemas: SchemaLookup | None = None
    functions: FunctionSource | None = None
    """The catalog's SQL UDFs, inlined into the derived SQL (none: calls are translated as they are)."""

    @property
    def names(self) -> set[str]:
        """The names the catalog goes by in the SQL it holds: its own, and the catalog property
        ``iceview.catalog-aliases`` (what engines call it: a Spark session's catalog name for a
        REST server, whose views' SQL is written with that name)."""
        aliases = self.catalog_properties.get(CATALOG_ALIASES, "")
        return {self.catalog_name, *(a.strip() for a in aliases.split(",") if a.strip())}


def _final_properties(base: ViewMetadata | None, updates: Sequence[ViewUpdate]) -> dict[str, str]:
    props = dict(base.properties) if base is not None else {}
    for update in updates:
        if isinstance(update, SetProperties):
            props.update(update.updates)
        elif isinstance(update, RemoveProperties):
            for key in update.removals:
                props.pop(key, None)
    return props


def _version_schema(
    version: ViewVersion, base: ViewMetadata | None, updates: Sequence[ViewUpdate], upto: int
) -> Schema | None:
    added = [u.schema for u in updates[:upto] if isinstance(u, AddSchema)]
    if version.schema_id == -1:
        return added[-1] if added else None
    for schema in reversed(added):
        if schema.schema_id == version.schema_id:
            return schema
    return base.schema_by_id(version.schema_id) if base is not None else None


def _codes(error: Exception) -> str:
    if isinstance(error, FunctionInliningError):
        return error.code
    if isinstance(error, FunctionResolutionError):
        return (
            "UDF_AMBIGUOUS_CALL"
            if isinstance(error, AmbiguousFunctionCallError)
            else "UDF_NO_MATCHING_DEFINITION"
        )
    codes = getattr(error, "codes", None)
    if codes:
        return ",".join(dict.fromkeys(str(c) for c in codes))
    inner = getattr(error, "errors", None)
    if isinstance(inner, dict) and inner:
        return ",".join(_codes(e) for e in inner.values())
    return type(error).__name__


def derive_version(
    version: ViewVersion,
    wanted: Sequence[str],
    view_schema: Schema | None,
    properties: Mapping[str, str],
    context: DeriveContext,
) -> ViewVersion:
    """``version`` with its derived dialects made again from its source SQL: the representations
    it marks as derived are dropped, each dialect of ``wanted`` it has no hand-written SQL for is
    translated (or left out, with its refusal codes in the summary)."""
    old_derived = derived_dialects(version)
    hand = [
        r
        for r in version.representations
        if isinstance(r, SQLRepresentation) and r.dialect.lower() not in old_derived
    ]
    others = [r for r in version.representations if not isinstance(r, SQLRepresentation)]
    summary = {
        k: v
        for k, v in version.summary.items()
        if k != DERIVED_KEY
        and not k.startswith(REFUSED_PREFIX)
        and k not in (PROVENANCE_KEY, PROVENANCE_VERSION_KEY, INLINED_FUNCTIONS_KEY)
    }
    if not hand:
        return version
    # translated again from the source chosen before (add_dialects(source=...)) when it is still there
    before = version.summary.get(PROVENANCE_KEY, "").lower()
    source = source_representation(hand, before if any(r.dialect.lower() == before for r in hand) else None)
    have = {r.dialect.lower() for r in hand}
    catalog = version.default_catalog or context.catalog_name
    lookup = None
    if context.schemas is not None:
        schemas = context.schemas
        # every dialect is translated from the same source: its relations are looked up once
        found: dict[tuple[str, str], Mapping[tuple[str, ...], Schema]] = {}

        def lookup_version(sql: str, dialect: str) -> Mapping[tuple[str, ...], Schema]:
            if (sql, dialect) not in found:
                found[sql, dialect] = schemas(sql, dialect, version)
            return found[sql, dialect]

        lookup = lookup_version
    derived: list[SQLRepresentation] = []
    used: set[Any] = set()
    for dialect in wanted:
        if dialect in have:
            continue
        try:
            derived += translate_representations(
                [source],
                [dialect],
                default_catalog=catalog,
                default_namespace=version.default_namespace,
                known_catalogs={*context.names, catalog},
                schemas=lookup,
                view_schema=view_schema,
                summary=version.summary,
                properties=properties,
                catalog_name=context.catalog_name,
                catalog_properties=context.catalog_properties,
                functions=context.functions,
                functions_as=context.names,
                used=used,
            )
        except (TranslationError, SQLParseError, FunctionInliningError, FunctionResolutionError) as e:
            summary[REFUSED_PREFIX + dialect] = _codes(e)
    if derived:
        from iceview.sql.translate import provenance_summary

        summary[DERIVED_KEY] = ",".join(r.dialect for r in derived)
        summary.update(provenance_summary(source.dialect))
        summary.update(inlined_functions_summary(used))
    return version.replace(representations=(*hand, *derived, *others), summary=summary)


def _guard_hand_written(base: ViewMetadata, new: ViewVersion, wanted: Sequence[str]) -> None:
    # a dialect the view derives is never guarded: the new version has it derived, hand-written,
    # or refused with its reasons (a REST server may drop a created version's marks, too)
    previous = base.current_version
    kept = {d.lower() for d in previous.dialects} - derived_dialects(previous) - set(wanted)
    now = {d.lower() for d in new.dialects}
    lost = sorted(kept - now)
    if lost:
        raise DialectDropError(
            f"Cannot replace view due to loss of hand-written view dialects ({', '.join(lost)}): "
            f"the view derives {', '.join(derive_dialects_of(base.properties)) or 'no dialects'} "
            f"({DERIVE_DIALECTS}), and only derived dialects may be lost\n"
            f"Previous dialects: [{', '.join(sorted(previous.dialects))}]\n"
            f"New dialects: [{', '.join(sorted(new.dialects))}]",
            sorted(previous.dialects),
            sorted(new.dialects),
        )


def derive_updates(
    base: ViewMetadata | None, updates: Sequence[ViewUpdate], context: DeriveContext
) -> list[ViewUpdate]:
    """``updates`` with every added version's derived dialects made again, when the view's
    properties (after the updates) ask for any; and ``replace.drop-dialect.allowed=true`` set, so
    that Java's client-side guard lets replaces through (module docs). Without the property the
    updates are returned as they are."""
    properties = _final_properties(base, updates)
    wanted = derive_dialects_of(properties)
    if not wanted:
        return list(updates)
    out: list[ViewUpdate] = []
    current_ids = {u.view_version_id for u in updates if isinstance(u, SetCurrentViewVersion)}
    for index, update in enumerate(updates):
        if isinstance(update, AddViewVersion):
            version = update.view_version
            schema = _version_schema(version, base, updates, index)
            new = derive_version(version, wanted, schema, properties, context)
            if base is not None and (-1 in current_ids or version.version_id in current_ids):
                _guard_hand_written(base, new, wanted)
            update = AddViewVersion(new)
        out.append(update)
    if properties.get(REPLACE_DROP_DIALECT_ALLOWED, "").lower() != "true":
        out.append(SetProperties({REPLACE_DROP_DIALECT_ALLOWED: "true"}))
    return out
