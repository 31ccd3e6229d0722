"""Checks an Iceberg REST Compatibility Kit (RCK) run against iceview's expectations.

Reads the JUnit XML reports that the harness's ``rck.sh`` writes (``<reports>/<suite>/TEST-junit-jupiter.xml``)
and compares each suite with what Iceberg's own reference REST server scores, recorded in
``tests/data/rck/``:

* views (``RESTCompatibilityKitViewCatalogTests``): no test may fail, and only the tests the reference
  server skips may be skipped;
* tables (``RESTCompatibilityKitCatalogTests``): a test may fail only if it fails against the reference
  server too (``reference-table-failures.txt``), and be skipped only if the reference skips it or fails it.

Prints a summary and exits 0 when the expectations hold, 1 when they do not, 4 when the reports hold no
results for a suite that should have run or cannot be read. Standard library only: ``scripts/rck.sh`` runs it with the
system ``python3``, so it works before ``.venv`` exists.

usage: python3 rck_check.py REPORTS_DIR [--mode all|views|tables] [--data DIR]
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

EXIT_OK = 0
EXIT_NOT_MET = 1
EXIT_CANNOT_CHECK = 4

SUITE_CLASSES = {
    "views": "org.apache.iceberg.rest.RESTCompatibilityKitViewCatalogTests",
    "tables": "org.apache.iceberg.rest.RESTCompatibilityKitCatalogTests",
}
MODES = {"all": ("views", "tables"), "views": ("views",), "tables": ("tables",)}
DEFAULT_DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "rck"


@dataclass
class SuiteResult:
    """Outcome of one RCK suite, by JUnit test name (e.g. ``testLoadTable()``)."""

    passed: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)  # name -> failure message, on one line
    skipped: set[str] = field(default_factory=set)
    seconds: float = 0.0

    @property
    def total(self) -> int:
        """Number of tests that reported a result."""
        return len(self.passed) + len(self.failed) + len(self.skipped)

    def counts(self) -> str:
        """``N passed, M failed, K skipped``, as rck.sh prints it."""
        return f"{len(self.passed)} passed, {len(self.failed)} failed, {len(self.skipped)} skipped"


@dataclass(frozen=True)
class Reference:
    """What Iceberg's reference server scores on one suite."""

    failures: frozenset[str]
    skips: frozenset[str]
    deviations: dict[str, str] = field(default_factory=dict)
    """Tests iceview serve is known to fail where the reference passes, each with its reason
    (``iceview-table-deviations.txt``: ``name  # reason``)."""


@dataclass
class Verdict:
    """The comparison of one suite with its reference."""

    suite: str
    result: SuiteResult
    new_failures: dict[str, str]  # failed here, not against the reference
    known: dict[str, str]  # failed here, not against the reference, for a recorded reason
    new_skips: set[str]  # skipped here, passed against the reference
    fixed: set[str]  # failed against the reference, pass here

    @property
    def ok(self) -> bool:
        """True when nothing that works on the reference server fails or is skipped here."""
        return not self.new_failures and not self.new_skips and self.result.total > 0


class CheckError(Exception):
    """The reports or the reference lists cannot be read."""


def read_names(path: Path) -> frozenset[str]:
    """Test names from a reference list: one per line; blank lines and ``#`` comments ignored."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CheckError(f"cannot read the reference list {path}: {exc.strerror}") from exc
    return frozenset(s for s in (line.strip() for line in lines) if s and not s.startswith("#"))


def read_deviations(path: Path) -> dict[str, str]:
    """``name  # reason`` lines: failures iceview records on purpose or cannot avoid."""
    out: dict[str, str] = {}
    for line in read_names(path):
        name, _, reason = line.partition("#")
        if not reason.strip():
            raise CheckError(f"{path}: {name.strip()} has no reason")
        out[name.strip()] = reason.strip()
    return out


def load_reference(data: Path, suite: str) -> Reference:
    """The reference scores of ``suite``; views have no reference failures (they must all pass)
    and no deviations."""
    failures = read_names(data / "reference-table-failures.txt") if suite == "tables" else frozenset()
    skips = read_names(
        data / ("reference-table-skips.txt" if suite == "tables" else "reference-view-skips.txt")
    )
    deviations = read_deviations(data / "iceview-table-deviations.txt") if suite == "tables" else {}
    return Reference(failures, skips, deviations)


def _summary(text: str | None) -> str:
    """A failure message on one line (AssertJ's span several; a server may answer with HTML)."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= 200 else flat[:197] + "..."


def parse_reports(reports: Path) -> dict[str, SuiteResult]:
    """Results per suite from every ``*/TEST-junit-jupiter.xml`` under ``reports``."""
    by_class = {cls: suite for suite, cls in SUITE_CLASSES.items()}
    results: dict[str, SuiteResult] = {}
    for xml in sorted(reports.glob("*/TEST-junit-jupiter.xml")):
        try:
            root = ET.parse(xml).getroot()
        except ET.ParseError as exc:
            raise CheckError(f"{xml} is not valid JUnit XML: {exc}") from exc
        for case in root.iter("testcase"):
            suite = by_class.get(case.get("classname", ""))
            if suite is None:
                continue
            res = results.setdefault(suite, SuiteResult())
            name = case.get("name", "?")
            res.seconds += float(case.get("time") or 0.0)
            problem = case.find("failure")
            if problem is None:
                problem = case.find("error")
            if problem is not None:
                res.failed[name] = _summary(problem.get("message") or problem.get("type"))
            elif case.find("skipped") is not None:
                res.skipped.add(name)
            else:
                res.passed.add(name)
    return results


def compare(suite: str, result: SuiteResult, ref: Reference) -> Verdict:
    """Compare one suite's result with the reference server's."""
    unexpected = {n: m for n, m in result.failed.items() if n not in ref.failures}
    new_failures = {n: m for n, m in unexpected.items() if n not in ref.deviations}
    known = {n: ref.deviations[n] for n in unexpected if n in ref.deviations}
    new_skips = {n for n in result.skipped if n not in ref.skips and n not in ref.failures}
    fixed = {n for n in ref.failures if n in result.passed}
    return Verdict(suite, result, new_failures, known, new_skips, fixed)


def report(verdicts: list[Verdict]) -> None:
    """Print the per-suite counts, then what differs from the reference server."""
    for v in verdicts:
        known = len(v.result.failed) - len(v.new_failures) - len(v.known)
        note = f"; {known} known reference failures" if known else ""
        print(f"RCK {v.suite}: {v.result.counts()} ({v.result.seconds:.1f} s of tests{note})")
    new_failures = [(v.suite, n, m) for v in verdicts for n, m in sorted(v.new_failures.items())]
    if new_failures:
        print(f"NEW failures, tests that pass against Iceberg's reference server ({len(new_failures)}):")
        for suite, name, msg in new_failures:
            print(f"  [{suite}] {name}: {msg}")
    known = [(v.suite, n, r) for v in verdicts for n, r in sorted(v.known.items())]
    if known:
        print(f"Known iceview deviations, recorded with their reasons ({len(known)}):")
        for suite, name, reason in known:
            print(f"  [{suite}] {name}: {reason}")
    new_skips = [(v.suite, n) for v in verdicts for n in sorted(v.new_skips)]
    if new_skips:
        print(f"NEW skips, tests that the reference server runs ({len(new_skips)}):")
        for suite, name in new_skips:
            print(f"  [{suite}] {name}")
    fixed = [(v.suite, n) for v in verdicts for n in sorted(v.fixed)]
    if fixed:
        print(f"Reference failures that pass here (informational, {len(fixed)}):")
        for suite, name in fixed:
            print(f"  [{suite}] {name}")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("reports", type=Path, help="the run's reports directory (rck.sh prints it)")
    parser.add_argument("--mode", choices=sorted(MODES), default="all")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of the reference lists")
    args = parser.parse_args(argv)

    try:
        results = parse_reports(args.reports)
        missing = [s for s in MODES[args.mode] if results.get(s, SuiteResult()).total == 0]
        if missing:
            raise CheckError(
                f"no results for the {' and '.join(missing)} suite in {args.reports}"
                f" (see {args.reports}/*/console.txt)"
            )
        verdicts = [compare(s, results[s], load_reference(args.data, s)) for s in MODES[args.mode]]
    except CheckError as exc:
        print(f"rck_check: {exc}", file=sys.stderr)
        return EXIT_CANNOT_CHECK
    report(verdicts)
    if all(v.ok for v in verdicts):
        rules = {"views": "views pass in full", "tables": "tables fail only where the reference fails"}
        print(f"RCK: expectations hold ({'; '.join(rules[v.suite] for v in verdicts)})")
        return EXIT_OK
    bad = ", ".join(v.suite for v in verdicts if not v.ok)
    print(f"RCK: expectations NOT met in the {bad} suite (reports: {args.reports})")
    return EXIT_NOT_MET


if __name__ == "__main__":
    sys.exit(main())
