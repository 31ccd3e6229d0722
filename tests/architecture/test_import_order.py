"""The house's arrows point down: a module imports only from its own part or the parts above it,
and no import cycle exists anywhere in ``src/`` (docs/architecture.md).

Between parts every import counts, wherever it stands. Inside one part, a cycle is an import that
runs when a module is loaded (top level, not under ``TYPE_CHECKING``); an import inside a function
body runs only when it is called, after both modules are loaded."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# top to bottom; a part may import from itself and the parts before it
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("errors, version and lazy names", ("iceview.errors", "iceview._version", "iceview._lazy")),
    ("format", ("iceview.spec", "iceview.udf")),
    ("identifiers", ("iceview.identifiers",)),
    ("sql", ("iceview.sql",)),
    ("files", ("iceview.files", "iceview.localfs")),
    ("view", ("iceview.view", "iceview.function")),
    ("catalog", ("iceview.catalog",)),
    ("server", ("iceview.server",)),
    ("engines", ("iceview.spark", "iceview.duckdb")),
    ("cli", ("iceview.cli",)),
    ("package", ("iceview",)),  # the root re-exports, lazily
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / "iceview").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    best = -1
    best_len = -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    assert best >= 0, f"{module} is in no part of the house: add it to LAYERS"
    return best


def _load_time(tree: ast.Module) -> list[ast.stmt]:
    """The statements that run when the module is loaded (``if`` branches other than
    ``TYPE_CHECKING``, ``try`` bodies and handlers included)."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                todo.extend(node.body)
            todo.extend(node.orelse)
        elif isinstance(node, ast.Try):
            todo.extend(node.body)
            for handler in node.handlers:
                todo.extend(handler.body)
            todo.extend(node.orelse)
            todo.extend(node.finalbody)
    return out


def _imports(module: str, path: Path, *, load_time: bool = False) -> set[str]:
    """The iceview modules ``module`` imports: wherever the import stands, or with ``load_time``
    only those that run when it is loaded."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    nodes = _load_time(tree) if load_time else list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            # ``from pkg import submodule`` imports the submodule
            names = [f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("iceview") and name != module:
                found.add(name)
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}
LOAD_GRAPH = {module: _imports(module, path, load_time=True) for module, path in MODULES.items()}


def test_every_module_has_a_part() -> None:
    for module in MODULES:
        _layer(module)


def test_no_module_imports_a_part_below_it() -> None:
    upward = [
        f"{module} ({LAYERS[_layer(module)][0]}) imports {target} ({LAYERS[_layer(target)][0]})"
        for module, targets in GRAPH.items()
        for target in sorted(targets)
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_between_parts() -> None:
    parts = {
        i: {_layer(t) for m, ts in GRAPH.items() if _layer(m) == i for t in ts} - {i}
        for i in range(len(LAYERS))
    }
    assert _cycles({str(k): {str(x) for x in v} for k, v in parts.items()}) == []


def test_no_import_cycle_when_loading() -> None:
    assert _cycles(LOAD_GRAPH) == []


# Cycles that exist only through imports inside functions or under TYPE_CHECKING. The format's
# ViewMetadata offers builder(), from_json() and to_json() itself, so the model refers to the
# builder and the codec that make it. Nothing may join these or add another.
KNOWN_LAZY_CYCLES = [
    [
        "iceview.spec.builder",
        "iceview.spec.codec",
        "iceview.spec.model",
        "iceview.spec.updates",
        "iceview.spec.validate",
    ],
]


def test_no_other_import_cycle() -> None:
    assert _cycles(GRAPH) == KNOWN_LAZY_CYCLES


def test_the_checks_can_fail() -> None:
    """The walker sees imports at every depth: these known edges must be found."""
    assert "iceview.spec" in GRAPH["iceview.files"]
    assert "iceview.view" in GRAPH["iceview.catalog.interface"]
    assert "iceview.catalog.config" in GRAPH["iceview"]  # a lazy import inside a function
    assert "iceview.catalog.config" not in LOAD_GRAPH["iceview"]
    assert "iceview.spec" in LOAD_GRAPH["iceview.files"]
    assert "iceview.view" not in LOAD_GRAPH["iceview.catalog.interface"]  # imported in its methods
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _layer("iceview.catalog.sql") > _layer("iceview.view.handle")


def _part(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_private_module_of_another_part_is_imported() -> None:
    private = [
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        for target in sorted(targets)
        if _part(target) != _part(module) and any(p.startswith("_") for p in target.split(".")[2:])
    ]
    assert private == []
