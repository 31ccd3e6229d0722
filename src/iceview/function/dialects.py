"""SQL for more dialects in a function's definitions, translated from a body it has.

The counterpart of a view's ``add_dialects``: each chosen definition whose current version lacks a
wanted dialect gets a new current version with its representations plus the translations (same
``deterministic`` and ``on-null-input``), all in one change. A scalar body is translated by the view
translator (:func:`iceview.sql.udf_body.translate_scalar_body`); table function bodies are not
translated yet. Every body is translated before anything changes: when one is refused, every
refusal is named and nothing is committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from iceview.errors import FunctionInliningError, InvalidArgumentError, TranslationError
from iceview.function.changes import FunctionChange, _change, _now_ms
from iceview.sql.translate import translation_source
from iceview.sql.udf_body import translate_scalar_body
from iceview.udf import (
    DefinitionVersion,
    FunctionDefinition,
    FunctionMetadata,
    FunctionMetadataBuilder,
    SQLRepresentation,
)

__all__ = ["BodyTranslation", "FunctionDialectsRefusedError", "add_dialects_change", "translate_bodies"]


class FunctionDialectsRefusedError(TranslationError):
    """Bodies that could not be translated: ``refusals`` maps ``(definition-id, dialect)`` to
    the translator's error (with its ``issues``)."""

    def __init__(self, refusals: dict[tuple[str, str], Exception]) -> None:
        self.refusals = dict(refusals)
        self.issues = tuple(i for e in self.refusals.values() for i in getattr(e, "issues", ()))
        shown = "; ".join(f"({d}) to {dialect}: {e}" for (d, dialect), e in self.refusals.items())
        super().__init__(f"Cannot translate the function's bodies: {shown}")


@dataclass(frozen=True)
class BodyTranslation:
    """One definition's body in ``target``, translated from its ``source`` body."""

    definition_id: str
    source: str
    target: str
    sql: str


def _source(definition: FunctionDefinition, source: str | None) -> SQLRepresentation:
    version = definition.current_version
    if source is not None:
        rep = version.sql_for(source)
        if rep is None:
            raise InvalidArgumentError(
                f"Definition ({definition.signature()}) has no {source} SQL "
                f"(dialects: {', '.join(version.dialects) or 'none'})"
            )
    else:
        rep = translation_source(version)
        if rep is None:
            raise InvalidArgumentError(f"Definition ({definition.signature()}) has no SQL body to translate")
    assert isinstance(rep, SQLRepresentation)
    return rep


def _chosen(metadata: FunctionMetadata, definitions: Sequence[str] | None) -> list[FunctionDefinition]:
    if definitions is None:
        return list(metadata.definitions)
    chosen: list[FunctionDefinition] = []
    for wanted in definitions:
        found = metadata.definition(wanted)
        if found is None:
            raise InvalidArgumentError(f"Function has no definition {wanted!r}")
        if found not in chosen:
            chosen.append(found)
    return chosen


def translate_bodies(
    metadata: FunctionMetadata,
    dialects: Sequence[str],
    *,
    source: str | None = None,
    definitions: Sequence[str] | None = None,
    spark_ansi: bool | None = None,
    missing_only: bool = True,
) -> list[BodyTranslation]:
    """Each chosen definition's current body translated to each of ``dialects`` (lower-cased),
    from its ``source`` SQL (default: ``spark``, else ``trino``, else ``duckdb``, else its first);
    with ``missing_only``, only the dialects it lacks. Raises
    :class:`FunctionDialectsRefusedError` naming every refusal."""
    wanted = [d.lower() for d in dialects]
    out: list[BodyTranslation] = []
    refusals: dict[tuple[str, str], Exception] = {}
    for definition in _chosen(metadata, definitions):
        version = definition.current_version
        present = {d.lower() for d in version.dialects}
        targets = [d for d in dict.fromkeys(wanted) if not (missing_only and d in present)]
        if not targets:
            continue
        rep = _source(definition, source)
        for target in targets:
            if definition.function_type == "udtf":
                refusals[(definition.definition_id, target)] = TranslationError(
                    "table function bodies are not translated yet"
                )
                continue
            try:
                sql = translate_scalar_body(
                    definition, rep.sql, rep.dialect.lower(), target, spark_ansi=spark_ansi
                )
            except (TranslationError, FunctionInliningError) as e:
                refusals[(definition.definition_id, target)] = e
                continue
            out.append(BodyTranslation(definition.definition_id, rep.dialect.lower(), target, sql))
    if refusals:
        raise FunctionDialectsRefusedError(refusals)
    return out


def add_dialects_change(
    base: FunctionMetadata,
    dialects: Sequence[str],
    *,
    source: str | None = None,
    definitions: Sequence[str] | None = None,
    spark_ansi: bool | None = None,
) -> FunctionChange | None:
    """The change adding the translations of :func:`translate_bodies` to ``base`` (``None``:
    every chosen definition has every dialect already)."""
    translations = translate_bodies(
        base, dialects, source=source, definitions=definitions, spark_ansi=spark_ansi
    )
    if not translations:
        return None
    by_definition: dict[str, list[BodyTranslation]] = {}
    for t in translations:
        by_definition.setdefault(t.definition_id, []).append(t)

    def edit(builder: FunctionMetadataBuilder) -> None:
        for definition_id, added in by_definition.items():
            current = base.current_version(definition_id)
            version = DefinitionVersion(
                version_id=1,
                representations=(
                    *current.representations,
                    *(SQLRepresentation(t.target, t.sql) for t in added),
                ),
                timestamp_ms=_now_ms(),
                deterministic=current.deterministic,
                on_null_input=current.on_null_input,
            )
            builder.add_definition_version(definition_id, version)
            builder.set_current_definition_version(definition_id, -1)

    return _change(base, edit)
