"""scripts/rck_check.py decides whether an RCK run meets iceview's bar: views pass in full, tables
fail only where Iceberg's reference server fails. Checked on JUnit reports written here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("rck_check", ROOT / "scripts" / "rck_check.py")
assert _spec is not None and _spec.loader is not None
rck_check = importlib.util.module_from_spec(_spec)
sys.modules["rck_check"] = rck_check
_spec.loader.exec_module(rck_check)

VIEWS = "org.apache.iceberg.rest.RESTCompatibilityKitViewCatalogTests"
TABLES = "org.apache.iceberg.rest.RESTCompatibilityKitCatalogTests"


def write(reports: Path, suite: str, cls: str, cases: dict[str, str]) -> None:
    body = []
    for name, outcome in cases.items():
        inner = {"pass": "", "fail": '<failure message="Expecting: x"/>', "skip": "<skipped/>"}[outcome]
        body.append(f'<testcase name="{name}" classname="{cls}" time="0.1">{inner}</testcase>')
    (reports / suite).mkdir(parents=True)
    (reports / suite / "TEST-junit-jupiter.xml").write_text(
        f'<testsuite name="x">{"".join(body)}</testsuite>', encoding="utf-8"
    )


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    (d / "reference-table-failures.txt").write_text("# measured\ntestLoadTable()\n", encoding="utf-8")
    (d / "reference-table-skips.txt").write_text("testNamespaceWithDot()\n", encoding="utf-8")
    (d / "reference-view-skips.txt").write_text("listViewsInEmptyNamespace()\n", encoding="utf-8")
    (d / "iceview-table-deviations.txt").write_text("b()  # a recorded reason\n", encoding="utf-8")
    return d


def run(reports: Path, data: Path) -> int:
    return int(rck_check.main([str(reports), "--data", str(data)]))


def test_meets_the_bar(tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reports = tmp_path / "r"
    write(reports, "views", VIEWS, {"basicCreateView()": "pass", "listViewsInEmptyNamespace()": "skip"})
    write(
        reports,
        "tables",
        TABLES,
        {"testLoadTable()": "fail", "testNamespaceWithDot()": "skip", "a()": "pass"},
    )
    assert run(reports, data) == 0
    assert "expectations hold" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("views", "tables"),
    [
        ({"basicCreateView()": "fail"}, {"a()": "pass"}),  # any view failure
        ({"basicCreateView()": "pass"}, {"a()": "fail"}),  # a table failure the reference does not have
        ({"basicCreateView()": "skip"}, {"a()": "pass"}),  # a skip the reference does not have
    ],
)
def test_new_failures_or_skips_fail_the_run(
    tmp_path: Path, data: Path, views: dict[str, str], tables: dict[str, str]
) -> None:
    reports = tmp_path / "r"
    write(reports, "views", VIEWS, views)
    write(reports, "tables", TABLES, tables)
    assert run(reports, data) == 1


def test_a_deviation_without_a_reason_cannot_be_checked(tmp_path: Path, data: Path) -> None:
    (data / "iceview-table-deviations.txt").write_text("b()\n", encoding="utf-8")
    reports = tmp_path / "r"
    write(reports, "views", VIEWS, {"basicCreateView()": "pass"})
    write(reports, "tables", TABLES, {"b()": "fail"})
    assert run(reports, data) == 4


def test_missing_or_broken_reports_cannot_be_checked(tmp_path: Path, data: Path) -> None:
    reports = tmp_path / "r"
    write(reports, "views", VIEWS, {"basicCreateView()": "pass"})
    assert run(reports, data) == 4  # no tables results
    (reports / "tables").mkdir()
    (reports / "tables" / "TEST-junit-jupiter.xml").write_text("<testsuite", encoding="utf-8")
    assert run(reports, data) == 4
