"""``iceview lint FILE|VIEW... | --all``: the strict validator over files and catalog views.

Each problem is a JSON path, a code and a message. Besides the codes of
:data:`iceview.spec.validate.CODES`, a target that cannot be read at all has ``not-found`` (the
file does not exist), ``unreadable`` (it cannot be read) or ``invalid-metadata`` (corrupt gzip,
malformed JSON, a missing or mistyped field: the path says where).

A view of a catalog that keeps SQL UDFs is also checked against the functions its SQL calls
(:func:`iceview.view.functions.function_problems`): ``missing-function``,
``no-matching-definition``, ``ambiguous-function-call``, ``udf-<code>`` (a call no engine could
run, e.g. ``udf-argument-untyped``) and ``stale-inlined-function`` (translated dialects that
inlined a definition version that is no longer current).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table
from rich.text import Text

from iceview.catalog.walk import walk
from iceview.cli import completion
from iceview.cli.context import State, command, common_options, pass_state
from iceview.cli.errors import CliUsageError, InvalidMetadata, NotFound
from iceview.cli.names import format_name, parse_name
from iceview.cli.output import Output
from iceview.cli.status import step
from iceview.cli.suggest import no_such_view
from iceview.cli.targets import file_properties, is_file_argument, read_file

if TYPE_CHECKING:
    from iceview.spec import ViewMetadata


@dataclass(frozen=True)
class Finding:
    path: str
    code: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "code": self.code, "message": self.message}


@dataclass
class Checked:
    label: str
    kind: str
    metadata_file: str | None = None
    findings: list[Finding] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.label,
            "kind": self.kind,
            "metadata-file": self.metadata_file,
            "problems": [f.to_json() for f in self.findings],
        }


def _unreadable(error: BaseException) -> Finding:
    from iceview.errors import InvalidMetadataError, NotFoundError

    cause = error.__cause__ if isinstance(error, (InvalidMetadata, NotFound)) else error
    if isinstance(error, NotFound) or isinstance(cause, NotFoundError):
        return Finding("$", "not-found", str(cause or error))
    if isinstance(cause, InvalidMetadataError):
        return Finding(cause.path, "invalid-metadata", " ".join(cause.message.split()))
    return Finding("$", "unreadable", str(error))


def check(
    label: str,
    kind: str,
    load: Callable[[], ViewMetadata],
    more: Callable[[ViewMetadata], list[Finding]] | None = None,
) -> Checked:
    """Load a target and validate it (and check it with ``more`` when it is valid); failures to
    load are findings too."""
    from iceview.errors import InvalidMetadataError, NotFoundError
    from iceview.spec import validate

    result = Checked(label, kind)
    try:
        md = load()
    except (InvalidMetadata, NotFound, NotFoundError, InvalidMetadataError) as e:
        result.findings.append(_unreadable(e))
        return result
    result.metadata_file = md.metadata_file_location
    try:
        result.findings = [Finding(p.path, p.code, p.message) for p in validate(md)]
    except InvalidMetadataError as e:
        result.findings.append(_unreadable(e))
    if more is not None and not result.findings:
        result.findings = more(md)
    return result


def _function_checks(state: State) -> Callable[[ViewMetadata], list[Finding]] | None:
    """The checks of a catalog view against the SQL UDFs it calls, when the catalog keeps them."""
    catalog = state.catalog()
    if not catalog.supports_functions():
        return None

    def checks(md: ViewMetadata) -> list[Finding]:
        from iceview.view.functions import function_problems

        return [Finding(p.path, p.code, p.message) for p in function_problems(md, catalog)]

    return checks


def _view_loader(state: State, levels: tuple[str, ...]) -> Callable[[], ViewMetadata]:
    def load() -> ViewMetadata:
        return state.catalog().load_view(levels).metadata

    return load


def _file_loader(state: State, location: str) -> Callable[[], ViewMetadata]:
    def load() -> ViewMetadata:
        return read_file(location, file_properties(state))

    return load


@command("lint", "Validate view metadata strictly.")
@click.argument("targets", nargs=-1, metavar="[FILE|VIEW]...", shell_complete=completion.views)
@click.option("--all", "all_views", is_flag=True, help="Lint every view in the catalog.")
@common_options
@pass_state
def lint(state: State, targets: tuple[str, ...], all_views: bool) -> None:
    """Validate view metadata strictly: metadata files (local paths or URIs; gzip by name), views
    of the catalog, or with --all every view in the catalog. Prints each problem's JSON path, code
    and message; exits with 1 when there are problems, 0 when all is clean."""
    from iceview.errors import NoSuchViewError

    ctx = click.get_current_context()
    if all_views == bool(targets):
        raise CliUsageError("give metadata files or view names, or --all (not both)", ctx)
    jobs: list[tuple[str, str, Callable[[], ViewMetadata]]] = []
    if all_views:
        for levels in walk(state.catalog(), "views"):
            jobs.append((format_name(levels), "view", _view_loader(state, tuple(levels))))
    else:
        for target in targets:
            if is_file_argument(target):
                jobs.append((target, "file", _file_loader(state, target)))
            else:
                levels = parse_name(target)
                jobs.append((format_name(levels), "view", _view_loader(state, levels)))
    results: list[Checked] = []
    functions = _function_checks(state) if any(kind == "view" for _, kind, _ in jobs) else None
    for i, (label, kind, load) in enumerate(jobs, 1):
        try:
            with step(f"linting {label} ({i} of {len(jobs)})"):
                results.append(check(label, kind, load, functions if kind == "view" else None))
        except NoSuchViewError:
            if all_views:  # dropped while we were linting
                continue
            raise no_such_view(state.catalog(), parse_name(label)) from None
    _report(results, state.out, show_clean=not all_views)
    if any(r.findings for r in results):
        ctx.exit(1)


def _report(results: list[Checked], out: Output, show_clean: bool) -> None:
    bad = [r for r in results if r.findings]
    total = sum(len(r.findings) for r in results)
    if out.is_json:
        out.json(
            {
                "checked": len(results),
                "with-problems": len(bad),
                "problems": total,
                "targets": [r.to_json() for r in results],
            }
        )
        return
    for result in results:
        if not result.findings:
            if show_clean:
                out.line(result.label, ": ", ("ok", "green"))
            continue
        count = len(result.findings)
        out.line((result.label, "bold"), ": ", (f"{count} problem{'s' if count != 1 else ''}", "red"))
        grid = Table.grid(padding=(0, 2))
        for finding in result.findings:
            grid.add_row(Text("  " + finding.path), Text(finding.code, style="yellow"), finding.message)
        out.print(grid)
    kinds = {r.kind for r in results}
    noun = "target" if len(kinds) > 1 else (next(iter(kinds)) if kinds else "view")
    checked = _count(len(results), noun)
    if total:
        out.line(f"checked {checked}: {_count(total, 'problem')} in {_count(len(bad), noun)}")
    else:
        out.line(f"checked {checked}: no problems")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
