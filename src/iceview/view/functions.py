"""A view's SQL UDFs: the calls of its SQL that the catalog's functions must answer, and the
definition versions its translated dialects inlined (``iceview.inlined-functions``), checked
against the catalog: what ``lint`` reports and what makes ``sync_dialects`` translate again."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceview.errors import (
    AmbiguousFunctionCallError,
    FunctionInliningError,
    FunctionResolutionError,
    SQLParseError,
)
from iceview.spec import SQLRepresentation, ViewMetadata, ViewVersion
from iceview.sql.translate.keys import INLINED_FUNCTIONS_KEY, PROVENANCE_KEY
from iceview.sql.udf_body import called_names
from iceview.view.derived import DERIVE_DIALECTS
from iceview.view.dialects import FunctionSource, function_preparer

if TYPE_CHECKING:
    from iceview.sql.inline import UsedDefinition

__all__ = [
    "DependentsSync",
    "FunctionProblem",
    "InlinedDefinition",
    "function_problems",
    "inlined_definitions",
    "stale_inlined",
    "wants_sync",
]


@dataclass(frozen=True)
class InlinedDefinition:
    """A definition version a version's translated dialects inlined."""

    namespace: tuple[str, ...]
    name: str
    definition_id: str
    version_id: int

    def label(self) -> str:
        return f"{'.'.join((*self.namespace, self.name))}({self.definition_id}) version {self.version_id}"


@dataclass(frozen=True)
class DependentsSync:
    """What :func:`iceview.catalog.dependents.sync_dependents` did: the views given a new version
    with their dialects derived again, those already in step, and those it could not sync (name,
    why: nothing was committed for them)."""

    synced: tuple[str, ...] = ()
    in_step: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class FunctionProblem:
    """A problem of a view with the functions it calls: a stable ``code``, a message and the JSON
    path of the view metadata it is about."""

    path: str
    code: str
    message: str


def inlined_definitions(version: ViewVersion) -> list[InlinedDefinition] | None:
    """The definition versions ``version``'s translated dialects inlined (none: the key is absent),
    or None when the summary entry cannot be read."""
    raw = version.summary.get(INLINED_FUNCTIONS_KEY)
    if raw is None:
        return []
    try:
        entries = json.loads(raw)
        return [
            InlinedDefinition(
                tuple(str(n) for n in e["namespace"]),
                str(e["name"]),
                str(e["definition-id"]),
                int(e["version-id"]),
            )
            for e in entries
        ]
    except (ValueError, TypeError, KeyError):
        return None


def stale_inlined(
    version: ViewVersion, functions: FunctionSource, properties: Mapping[str, str] | None = None
) -> list[str]:
    """Why ``version``'s translated dialects are out of step with the functions they inlined: one
    line per definition that was dropped or has another current version, or, when each is as it
    was, because the calls of the SQL they were translated from now resolve to other definitions
    (one added that fits an argument better); empty: in step. ``properties`` are the view's (which
    Spark semantics its SQL has)."""
    used = inlined_definitions(version)
    if used is None:
        return [f"its {INLINED_FUNCTIONS_KEY} entry cannot be read"]
    if not used:
        return []
    out: list[str] = []
    loaded: dict[tuple[str, ...], Any] = {}
    for u in used:
        ident = (*u.namespace, u.name)
        if ident not in loaded:
            loaded[ident] = functions.find_function(ident)
        metadata = loaded[ident]
        if metadata is None:
            out.append(f"{u.label()} was inlined; the function no longer exists")
            continue
        definition = metadata.definition(u.definition_id)
        if definition is None:
            out.append(f"{u.label()} was inlined; the definition no longer exists")
        elif definition.current_version_id != u.version_id:
            out.append(f"{u.label()} was inlined; its current version is {definition.current_version_id}")
    return out or _resolved_again(version, functions, used, properties)


def wants_sync(metadata: ViewMetadata, functions: FunctionSource | None) -> bool:
    """Whether :meth:`iceview.view.View.sync_dialects` has anything to do for a view: it derives
    dialects by its ``iceview.derive-dialects`` property, or its translated dialects are out of
    step with the functions of ``functions`` (its catalog) they inlined (:func:`stale_inlined`)."""
    if DERIVE_DIALECTS in metadata.properties:
        return True
    return (
        functions is not None
        and functions.supports_functions()
        and bool(stale_inlined(metadata.current_version, functions, metadata.properties))
    )


def _resolved_again(
    version: ViewVersion,
    functions: FunctionSource,
    used: list[InlinedDefinition],
    properties: Mapping[str, str] | None,
) -> list[str]:
    """The calls of the SQL the dialects were translated from, resolved again: a line when they
    now take other definitions than the ones inlined."""
    from iceview.sql.translate import spark_ansi_mode

    source = version.summary.get(PROVENANCE_KEY)
    rep = version.sql_for(source) if source else None
    if rep is None:
        return []
    catalog = version.default_catalog or functions.name
    now: set[UsedDefinition] = set()
    prepare = function_preparer(
        functions, {catalog}, {catalog}, spark_ansi_mode(version.summary, properties or {}), None, now
    )
    try:
        prepare(rep.sql, rep.dialect.lower(), catalog, tuple(version.default_namespace))
    except (FunctionInliningError, FunctionResolutionError, SQLParseError, ValueError):
        return []  # lint names the call; translating again would be refused the same way
    before = {((*u.namespace, u.name), u.definition_id) for u in used}
    after = {(u.function[1:], u.definition_id) for u in now}
    if before == after:
        return []
    gone = ", ".join(f"{'.'.join(f)}({d})" for f, d in sorted(before - after)) or "none"
    taken = ", ".join(f"{'.'.join(f)}({d})" for f, d in sorted(after - before)) or "none"
    return [f"its calls now resolve to {taken} instead of {gone}"]


def _calls(
    metadata: ViewMetadata, functions: FunctionSource, default_catalog: str | None
) -> Iterator[tuple[int, SQLRepresentation, list[tuple[tuple[str, ...], tuple[str, ...]]] | None]]:
    """Each SQL representation of the current version (its index, itself) with the calls in it
    that may name a function of ``functions``: (as written, qualified with the version's defaults,
    catalog first), one-part names in the default namespace; None when sqlglot cannot read it."""
    from iceview.sql import qualify_parts

    current = metadata.current_version
    catalog, namespace, names = _defaults(current, functions, default_catalog)
    for j, rep in enumerate(current.representations):
        if not isinstance(rep, SQLRepresentation):
            continue
        try:
            written_names = called_names(rep.sql, rep.dialect.lower())
        except (SQLParseError, ValueError):
            yield j, rep, None  # not a dialect sqlglot reads, or not SQL it parses
            continue
        calls = []
        for written in written_names:
            qualified = (
                (catalog, *namespace, written[0])
                if len(written) == 1
                else qualify_parts(
                    written, default_catalog=catalog, default_namespace=namespace, known_catalogs=names
                )
            )
            if qualified[0] in names and len(qualified) > 2:
                calls.append((written, qualified))
        yield j, rep, calls


def _defaults(
    version: ViewVersion, functions: FunctionSource, default_catalog: str | None
) -> tuple[str, tuple[str, ...], set[str]]:
    """A version's catalog and namespace for names, and the names the catalog goes by."""
    catalog = version.default_catalog or default_catalog or functions.name
    return catalog, tuple(version.default_namespace), {functions.name, catalog}


def called_functions(
    metadata: ViewMetadata, functions: FunctionSource, *, default_catalog: str | None = None
) -> list[tuple[str, ...]]:
    """The functions of ``functions`` (a catalog) that the current version of one of its views
    calls: the view's dependencies besides the relations it reads. Each identifier (namespace and
    name) once, in the order of the first call: qualified calls (``ns.f(...)``) of the catalog, and
    one-part calls (``f(...)``) of a name sqlglot does not know as the dialect's function that the
    view's default namespace holds, as Iceberg-Spark resolves them. Calls in the function bodies
    are not followed."""
    found: dict[tuple[str, ...], None] = {}
    for _, _, calls in _calls(metadata, functions, default_catalog):
        for _, qualified in calls or ():
            ident = qualified[1:]
            if ident not in found and functions.find_function(ident) is not None:
                found[ident] = None
    return list(found)


def function_problems(
    metadata: ViewMetadata, functions: FunctionSource, *, default_catalog: str | None = None
) -> list[FunctionProblem]:
    """The problems of the current version of a view of ``functions`` with the SQL UDFs it calls:

    * ``missing-function``: a qualified call (``ns.f(...)``) of a namespace of the catalog that
      holds no such function;
    * a call the engines could not run: ``no-matching-definition``, ``ambiguous-function-call``, or
      ``udf-<code>`` for :class:`~iceview.errors.FunctionInliningError` (``udf-argument-untyped``);
    * ``stale-inlined-function``: its translated dialects inlined a definition version that is no
      longer current (translate them again: ``iceview dialects sync``)."""
    from iceview.sql.translate import spark_ansi_mode

    current = metadata.current_version
    index = next(i for i, v in enumerate(metadata.versions) if v.version_id == current.version_id)
    catalog, namespace, names = _defaults(current, functions, default_catalog)
    problems: list[FunctionProblem] = []
    spark_ansi = spark_ansi_mode(current.summary, metadata.properties)
    prepare = function_preparer(functions, names, names, spark_ansi, None, None)
    for j, rep, calls in _calls(metadata, functions, default_catalog):
        if calls is None:
            continue  # not lint's to say
        path = f"$.versions[{index}].representations[{j}].sql"
        dialect = rep.dialect.lower()
        for written, qualified in calls:
            if len(written) < 2:
                continue  # a one-part name may be the engine's own function
            if functions.namespace_exists(qualified[1:-1]) and functions.find_function(qualified[1:]) is None:
                problems.append(
                    FunctionProblem(
                        path,
                        "missing-function",
                        f"The {rep.dialect} SQL calls {'.'.join(written)}, and the catalog has no function "
                        f"{'.'.join(qualified[1:])}",
                    )
                )
        try:
            prepare(rep.sql, dialect, catalog, namespace)
        except FunctionInliningError as e:
            code = "udf-" + e.code.lower().removeprefix("udf_").replace("_", "-")
            problems.append(FunctionProblem(path, code, f"The {rep.dialect} SQL cannot run: {e}"))
        except FunctionResolutionError as e:
            code = (
                "ambiguous-function-call"
                if isinstance(e, AmbiguousFunctionCallError)
                else "no-matching-definition"
            )
            problems.append(FunctionProblem(path, code, f"The {rep.dialect} SQL cannot run: {e}"))
        except (SQLParseError, ValueError):
            continue
    for reason in stale_inlined(current, functions, metadata.properties):
        problems.append(
            FunctionProblem(
                f"$.versions[{index}].summary",
                "stale-inlined-function",
                f"Its translated dialects are out of step: {reason} (iceview dialects sync translates them again)",
            )
        )
    return problems
