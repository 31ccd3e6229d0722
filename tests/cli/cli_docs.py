"""The examples of docs/cli.md: every ```console block is a sequence of ``$ iceview ...`` commands
(and ``$ echo $?``) with their output, run in order against a fresh demo catalog, as on a wide
terminal (what a person sees, colours removed; tests/cli/test_cli_first_try.py checks narrow ones).

* ``python tests/cli/cli_docs.py`` re-runs the examples as real processes against a demo catalog in
  /tmp/iceview-demo and rewrites the outputs in docs/cli.md;
* tests/cli/test_cli_docs.py re-runs them in-process and checks that the page still tells the
  truth (uuids, times, paths and column widths aside).
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cli_support import DATA, REPO, Demo, add_events, build_demo, invoke, run_process, screen, terminal

DOC = REPO / "docs" / "cli.md"
DOCS_ROOT = Path("/tmp/iceview-demo")
DOCS_COLUMNS = 250  # wide enough that no example wraps, whatever the length of the test's paths
_BLOCK = re.compile(r"```console\n(.*?)```", re.S)


@dataclass
class Step:
    command: str  # what follows "$ "
    output: list[str]


def parse_block(text: str) -> list[Step]:
    steps: list[Step] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append(Step(line[2:], []))
        elif steps:
            steps[-1].output.append(line)
    return steps


def blocks(markdown: str) -> list[list[Step]]:
    return [parse_block(m.group(1)) for m in _BLOCK.finditer(markdown)]


Runner = Callable[[list[str]], tuple[int, str]]


def run_steps(steps: list[Step], runner: Runner, state: dict[str, int]) -> list[Step]:
    """Run the commands; ``$ echo $?`` prints the previous exit code."""
    done: list[Step] = []
    for step in steps:
        if step.command == "echo $?":
            done.append(Step(step.command, [str(state.get("code", 0))]))
            continue
        argv = shlex.split(step.command)
        assert argv[0] == "iceview", step.command
        code, output = runner(argv[1:])
        state["code"] = code
        done.append(Step(step.command, output.rstrip("\n").split("\n") if output.strip() else []))
    return done


def render(steps: list[Step]) -> str:
    out = ""
    for step in steps:
        out += f"$ {step.command}\n"
        out += "".join(line.rstrip() + "\n" for line in step.output)
    return out


def docs_env(demo: Demo) -> dict[str, str]:
    """The demo catalog configured as the page says (a .pyiceberg.yaml in $PYICEBERG_HOME), with
    the events lake (cli_support.add_events) for the translate, add-dialect and sql examples, and
    copies of the Iceberg Java corpus files in ``corpus/`` for the lint examples."""
    add_events(demo)
    shutil.copytree(DATA / "corpus" / "iceberg-java", demo.root / "corpus")
    env = terminal(
        {k: v for k, v in demo.env.items() if not k.startswith(("PYICEBERG_CATALOG__", "PYICEBERG_DEFAULT"))},
        columns=DOCS_COLUMNS,
    )
    Path(env["PYICEBERG_HOME"], ".pyiceberg.yaml").write_text(
        f"default-catalog: demo\ncatalog:\n  demo:\n    uri: sqlite:///{demo.database}\n"
        f"    warehouse: file://{demo.warehouse}\n"
    )
    return env


def in_process_runner(env: dict[str, str]) -> Runner:
    def run(args: list[str]) -> tuple[int, str]:
        result = invoke(env, *args)
        return result.exit_code, screen(result.output)

    return run


def process_runner(env: dict[str, str], cwd: Path) -> Runner:
    def run(args: list[str]) -> tuple[int, str]:
        done = run_process(env, *args, cwd=cwd)
        return done.returncode, screen(done.stdout + done.stderr)

    return run


def update() -> None:
    """Rewrite the outputs in docs/cli.md from real runs against /tmp/iceview-demo."""
    if DOCS_ROOT.exists():
        shutil.rmtree(DOCS_ROOT)
    demo = build_demo(DOCS_ROOT)
    runner = process_runner(docs_env(demo), DOCS_ROOT)
    state: dict[str, int] = {}
    text = DOC.read_text()

    def replace(match: re.Match[str]) -> str:
        steps = run_steps(parse_block(match.group(1)), runner, state)
        return "```console\n" + render(steps) + "```"

    DOC.write_text(_BLOCK.sub(replace, text))


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
_MILLIS = re.compile(r"\b1\d{12}\b")
_RULE = re.compile(r"^─+$")


def normalise(lines: list[str], root: str) -> list[str]:
    """Lines without what differs from run to run: paths, uuids, times, column widths."""
    out = []
    for line in lines:
        line = line.replace(root, "<ROOT>")
        line = _UUID.sub("<UUID>", line)
        line = _TIME.sub("<TIME>", line)
        line = _MILLIS.sub("<MS>", line)
        line = " ".join(line.split())
        out.append("─" if _RULE.match(line) else line)
    return out


if __name__ == "__main__":
    update()
