"""``iceview lint`` on the third-party corpus, the spec's examples, the golden files of Iceberg
Java, and catalog views."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import DATA, OTHER, VIEW, Demo, invoke, parse_json

CORPUS = DATA / "corpus"
GOLDEN = DATA / "golden" / "java-1.10.2"

# what tests/data/corpus/README.md says a strict validator must report
CORPUS_EXPECTED: dict[str, list[tuple[str, str]]] = {
    "iceberg-go/view-metadata.json": [],
    "iceberg-java/ValidViewMetadata.json": [],
    "iceberg-java/ViewMetadataInvalidCurrentSchema.json": [("$.versions[1].schema-id", "unknown-schema")],
    "iceberg-java/ViewMetadataInvalidCurrentVersion.json": [
        ("$.current-version-id", "current-version-missing"),
        ("$.version-log[1].version-id", "log-current-mismatch"),
    ],
    "iceberg-java/ViewMetadataMissingCurrentVersion.json": [("$.current-version-id", "invalid-metadata")],
    "iceberg-java/ViewMetadataMissingLocation.json": [("$.location", "invalid-metadata")],
    "iceberg-java/ViewMetadataMultipleSQLsForDialect.json": [
        ("$.versions[0].representations[1].dialect", "duplicate-dialect")
    ],
}


def lint_json(*targets: str, env: dict[str, str] | None = None) -> tuple[int, Any]:
    result = invoke(env or {}, "lint", *targets, "--output", "json")
    assert result.stderr == ""
    return result.exit_code, parse_json(result.stdout)


@pytest.mark.parametrize("name", sorted(CORPUS_EXPECTED))
def test_corpus_file(name: str) -> None:
    code, data = lint_json(str(CORPUS / name))
    [target] = data["targets"]
    found = [(p["path"], p["code"]) for p in target["problems"]]
    assert found == CORPUS_EXPECTED[name]
    assert code == (1 if found else 0)


def test_corpus_messages_in_text() -> None:
    path = CORPUS / "iceberg-java" / "ViewMetadataInvalidCurrentSchema.json"
    result = invoke({}, "lint", str(path))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{path}: 1 problem",
        "  $.versions[1].schema-id  unknown-schema  Version 2 names unknown schema 1234; schemas: [1]",
        "checked 1 file: 1 problem in 1 file",
    ]


def test_whole_corpus_at_once() -> None:
    paths = sorted(str(p) for p in CORPUS.rglob("*.json"))
    code, data = lint_json(*paths)
    assert code == 1
    assert data["checked"] == len(CORPUS_EXPECTED) == len(paths)
    assert data["with-problems"] == 5 and data["problems"] == 6


def test_lazily_invalid_files_still_load_in_show() -> None:
    """The lenient reader loads the lazily invalid files: lint finds what is wrong."""
    path = CORPUS / "iceberg-java" / "ViewMetadataMultipleSQLsForDialect.json"
    assert invoke({}, "show", str(path)).exit_code == 0


@pytest.mark.parametrize(
    "folder", [GOLDEN, *sorted(p for p in (GOLDEN / "gz").iterdir())], ids=lambda p: p.name
)
def test_golden_files_are_clean(folder: Path) -> None:
    paths = sorted(str(p) for p in folder.iterdir() if p.name.endswith(".metadata.json"))
    assert paths
    code, data = lint_json(*paths)
    assert (code, data["problems"], data["checked"]) == (0, 0, len(paths))


def test_spec_examples() -> None:
    """The older seed text of the spec has current-version-id 1 after a log entry setting 2."""
    spec = DATA / "spec"
    code, data = lint_json(*(str(p) for p in sorted(spec.glob("*.metadata.json"))))
    assert code == 1
    bad = {t["target"].rsplit("/", 1)[-1]: t["problems"] for t in data["targets"] if t["problems"]}
    assert list(bad) == ["appendix-a-older-2.metadata.json"]
    assert [p["code"] for p in bad["appendix-a-older-2.metadata.json"]] == ["log-current-mismatch"]


def test_gzip_chosen_by_name(tmp_path: Path) -> None:
    """A gzip file named *.metadata.json.gz, or any name ending in .gz, is decompressed."""
    source = next((GOLDEN / "gz" / "default.event_agg").iterdir())
    for name in ("v.metadata.json.gz", "v.json.gz"):
        (tmp_path / name).write_bytes(source.read_bytes())
        code, data = lint_json(str(tmp_path / name))
        assert code == 0, data


def test_file_uri(tmp_path: Path) -> None:
    path = CORPUS / "iceberg-java" / "ValidViewMetadata.json"
    code, data = lint_json(f"file://{path}")
    assert code == 0 and data["targets"][0]["target"] == f"file://{path}"


def test_catalog_views(demo: Demo) -> None:
    result = invoke(demo.env, "lint", VIEW, OTHER)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [f"{VIEW}: ok", f"{OTHER}: ok", "checked 2 views: no problems"]
    everything = invoke(demo.env, "lint", "--all")
    assert everything.exit_code == 0
    assert everything.stdout == "checked 2 views: no problems\n"


def test_files_and_views_together(demo: Demo) -> None:
    path = str(CORPUS / "iceberg-java" / "ViewMetadataMissingLocation.json")
    code, data = lint_json(VIEW, path, env=demo.env)
    assert code == 1
    assert [(t["target"], t["kind"], len(t["problems"])) for t in data["targets"]] == [
        (VIEW, "view", 0),
        (path, "file", 1),
    ]


def test_all_with_a_lazily_invalid_view(demo: Demo) -> None:
    """A view registered from a lazily invalid file: listed, loaded, and reported."""
    import json

    source = CORPUS / "iceberg-java" / "ViewMetadataInvalidCurrentVersion.json"
    # a registered file, and the location inside it, must lie in the warehouse
    document = json.loads(source.read_text())
    document["location"] = str(demo.warehouse / "registered")
    copy = demo.warehouse / "registered.metadata.json"
    copy.write_text(json.dumps(document))
    with demo.catalog() as catalog:
        catalog.register_view("default.registered", str(copy))
    result = invoke(demo.env, "lint", "--all")
    assert result.exit_code == 1
    assert "default.registered: 2 problems" in result.stdout
    assert "current-version-missing" in result.stdout
    assert result.stdout.splitlines()[-1] == "checked 3 views: 2 problems in 1 view"


def test_each_view_is_a_step_of_the_progress_line(demo: Demo, monkeypatch: pytest.MonkeyPatch) -> None:
    # the line itself, on a real terminal: tests/cli/test_cli_progress.py
    steps: list[str] = []

    @contextlib.contextmanager
    def record(text: str) -> Iterator[None]:
        steps.append(text)
        yield

    monkeypatch.setattr("iceview.cli.commands.lint.step", record)
    assert invoke(demo.env, "lint", "--all").exit_code == 0
    assert steps == ["linting analytics.daily.users (1 of 2)", "linting default.event_agg (2 of 2)"]
