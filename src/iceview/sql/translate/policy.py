"""The machinery of the rules table: constructs, policies, rules and the most-specific lookup.

A :class:`Rule` says what happens to a :class:`Construct` when translating from a source dialect to
a target dialect (either may be :data:`ANY`): its :data:`Policy` is one of

* :data:`KEEP`: translated as sqlglot generates it;
* :class:`Rewrite`: rewritten in the tree before generation (the function is applied after every
  rule has seen the untouched tree);
* :class:`Refuse`: an issue with a stable code and a reason;
* :class:`Check`: a type-aware (or otherwise conditional) rule kept as a function, which may add
  issues with the codes it declares.

A construct is a set of sqlglot expression classes, matched like ``isinstance`` (or, ``exact``, by
the class itself, as the function allow-lists are), optionally narrowed by named tests ("LATERAL
VIEW OUTER", "function call on the target's allow-list", ...). :meth:`RuleTable.lookup` picks, for
a node, the most specific matching rule: the construct whose class is nearest to the node's class
in its MRO (the way :func:`functools.singledispatch` picks an implementation), then the one with
more tests, then a specific target over ``ANY``, then a specific source over ``ANY``. Two matching
rules that are equally specific are a mistake in the table (:class:`RuleConflictError`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final, TypeAlias

from sqlglot import exp

from iceview.sql.translate.allowlists import allowed_functions
from iceview.sql.translate.model import DIALECTS, TranslationIssue, short

ANY: Final = "*"
"""The wildcard dialect of a rule's source or target."""


@dataclass
class Context:
    """One translation's direction and what its rules found: issues, and rewrites to apply."""

    source: str
    target: str
    typed: bool = False
    qualified: bool = True
    spark_ansi: bool | None = None
    """Whether the Spark side runs in ANSI mode (None: unknown, so what the modes disagree on is refused)."""
    issues: list[TranslationIssue] = field(default_factory=list)
    rewrites: list[tuple[Rewrite, exp.Expr]] = field(default_factory=list)
    memo: dict[object, object] = field(default_factory=dict)
    """What checks compute once per pass over the tree (``spark_typing.spark_typer``); cleared
    when the rewrites change the tree."""

    def add(self, code: str, node: exp.Expr, reason: str) -> None:
        self.issues.append(TranslationIssue(code, short(node, self.source), reason))


Test: TypeAlias = Callable[[exp.Expr, Context], bool]
"""A construct's narrowing test: the node and the translation's context."""


@dataclass(frozen=True)
class Construct:
    """What a rule is about: nodes of ``classes`` (with subclasses, unless ``exact``) for which
    every test holds. ``name`` says it in words (the class name, or e.g. ``LATERAL VIEW OUTER``)."""

    name: str
    classes: tuple[type[exp.Expr], ...] = ()
    exact_names: frozenset[str] = frozenset()
    tests: tuple[Test, ...] = ()

    def distance(self, cls: type[exp.Expr]) -> int | None:
        """How far the construct's class is from ``cls`` in its MRO (0: the class itself), or None
        when the construct does not cover ``cls``."""
        if cls.__name__ in self.exact_names:
            return 0
        mro = cls.__mro__
        found = [mro.index(c) for c in self.classes if c in mro]
        return min(found) if found else None

    def holds(self, node: exp.Expr, ctx: Context) -> bool:
        return all(test(node, ctx) for test in self.tests)

    def where(self, name: str, *tests: Test) -> Construct:
        """This construct narrowed by more tests."""
        return Construct(name, self.classes, self.exact_names, self.tests + tests)

    def __repr__(self) -> str:
        return f"<{self.name}>"


def construct(*classes: type[exp.Expr], name: str | None = None) -> Construct:
    """Nodes of ``classes`` or their subclasses (``isinstance``)."""
    return Construct(name or " | ".join(c.__name__ for c in classes), classes=classes)


def exactly(*classes: type[exp.Expr] | str, name: str | None = None) -> Construct:
    """Nodes of exactly these classes (given as classes or class names), not their subclasses."""
    names = frozenset(c if isinstance(c, str) else c.__name__ for c in classes)
    return Construct(name or " | ".join(sorted(names)), exact_names=names)


def predicate(name: str, classes: type[exp.Expr] | tuple[type[exp.Expr], ...], *tests: Test) -> Construct:
    """A named construct: nodes of ``classes`` (with subclasses) for which every test holds."""
    return Construct(name, classes if isinstance(classes, tuple) else (classes,), tests=tests)


# --------------------------------------------------------------------------------------------------
# policies


@dataclass(frozen=True)
class Keep:
    """Translated as sqlglot generates it."""

    def apply(self, node: exp.Expr, ctx: Context) -> None:
        return None


KEEP: Final = Keep()


@dataclass(frozen=True)
class Refuse:
    """An issue with a stable ``code`` and a ``reason``. The reason may name ``{name}`` (the
    function's name as written), ``{source}`` and ``{target}``."""

    code: str
    reason: str

    def apply(self, node: exp.Expr, ctx: Context) -> None:
        fields = {"source": ctx.source, "target": ctx.target}
        if "{name}" in self.reason:
            fields["name"] = call_name(node)
        ctx.add(self.code, node, self.reason.format(**fields))


CheckStep: TypeAlias = Callable[[exp.Expr, Context], None]


@dataclass(frozen=True)
class Check:
    """A rule kept as a function (type-aware, or depending on arguments or surroundings): its steps
    run in order and may add issues with the declared ``codes``. ``a + b`` runs both."""

    name: str
    steps: tuple[CheckStep, ...]
    codes: tuple[str, ...]

    def apply(self, node: exp.Expr, ctx: Context) -> None:
        for step in self.steps:
            step(node, ctx)

    def __add__(self, other: Check) -> Check:
        codes = self.codes + tuple(c for c in other.codes if c not in self.codes)
        return Check(f"{self.name} + {other.name}", self.steps + other.steps, codes)


@dataclass(frozen=True)
class Rewrite:
    """An exact rewrite of what sqlglot would generate wrongly, applied to the node (in place)
    after every rule has seen the tree."""

    name: str
    fn: Callable[[exp.Expr], None]

    def apply(self, node: exp.Expr, ctx: Context) -> None:
        ctx.rewrites.append((self, node))


Policy: TypeAlias = Keep | Refuse | Check | Rewrite


def call_name(node: exp.Expr) -> str:
    """A function's name as the refusals spell it."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    if isinstance(node, exp.Func):
        return node.sql_name().lower()
    return type(node).__name__.lower()


# --------------------------------------------------------------------------------------------------
# rules and the table


@dataclass(frozen=True)
class Rule:
    """``(construct, source, target) -> policy``; source and target are a dialect or :data:`ANY`."""

    construct: Construct
    source: str
    target: str
    policy: Policy

    def __post_init__(self) -> None:
        for d in (self.source, self.target):
            if d != ANY and d not in DIALECTS:
                raise ValueError(f"rule {self}: unknown dialect {d!r}")

    def applies_to(self, source: str, target: str) -> bool:
        return self.source in (ANY, source) and self.target in (ANY, target)

    def codes(self) -> tuple[str, ...]:
        """The refusal codes the rule may give."""
        if isinstance(self.policy, Refuse):
            return (self.policy.code,)
        if isinstance(self.policy, Check):
            return self.policy.codes
        return ()

    def __str__(self) -> str:
        return f"({self.construct.name}, {self.source}, {self.target}) -> {type(self.policy).__name__}"


Rank: TypeAlias = tuple[int, int, int, int]


class RuleConflictError(LookupError):
    """Two rules match a node equally specifically: the table is ambiguous."""


class RuleTable:
    """Rules, looked up per node by specificity (see the module's doc)."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        seen: set[tuple[Construct, str, str]] = set()
        for r in self.rules:
            key = (r.construct, r.source, r.target)
            if key in seen:
                raise ValueError(f"duplicate rule {r}")
            seen.add(key)
        self._candidates: dict[tuple[type[exp.Expr], str, str], tuple[tuple[Rank, Rule], ...]] = {}

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def candidates(self, cls: type[exp.Expr], source: str, target: str) -> tuple[tuple[Rank, Rule], ...]:
        """The rules that may apply to nodes of ``cls`` in this direction, most specific first."""
        key = (cls, source, target)
        found = self._candidates.get(key)
        if found is None:
            ranked = []
            for r in self.rules:
                d = r.construct.distance(cls)
                if d is None or not r.applies_to(source, target):
                    continue
                rank = (d, -len(r.construct.tests), -(r.target != ANY), -(r.source != ANY))
                ranked.append((rank, r))
            found = tuple(sorted(ranked, key=lambda x: x[0]))
            self._candidates[key] = found
        return found

    def lookup(self, node: exp.Expr, ctx: Context) -> Rule | None:
        """The most specific rule for ``node`` in ``ctx``'s direction, or None (then: keep)."""
        best: tuple[Rank, Rule] | None = None
        for rank, r in self.candidates(type(node), ctx.source, ctx.target):
            if best is not None and rank != best[0]:
                break
            if r.construct.holds(node, ctx):
                if best is not None:
                    raise RuleConflictError(f"{best[1]} and {r} both match {short(node, ctx.source)}")
                best = (rank, r)
        return best[1] if best is not None else None

    def apply(self, tree: exp.Expr, ctx: Context) -> list[TranslationIssue]:
        """Every node's rule, in the tree's breadth-first order; then the rewrites, the deepest
        nodes first (in that order among equals). Returns ``ctx.issues``.

        Inner rewrites go first because an outer one may copy its arguments into a new tree
        (``array_contains``'s three-valued CASE): a rewrite of the original argument applied
        afterwards would change a node no longer in the query."""
        for node in tree.walk():
            rule = self.lookup(node, ctx)
            if rule is not None:
                rule.policy.apply(node, ctx)
        depth = {id(node): node.depth for _, node in ctx.rewrites}
        for rewrite, node in sorted(ctx.rewrites, key=lambda pair: -depth[id(pair[1])]):
            rewrite.fn(node)
        ctx.rewrites.clear()
        ctx.memo.clear()
        return ctx.issues

    def codes(self) -> frozenset[str]:
        """Every refusal code a rule of the table may give."""
        return frozenset(c for r in self.rules for c in r.codes())


def on_allow_list(node: exp.Expr, ctx: Context) -> bool:
    """Whether ``node``'s class is on the allow-list of ``ctx``'s direction."""
    return type(node).__name__ in allowed_functions(ctx.target, ctx.source)


def call(*classes: type[exp.Expr]) -> Construct:
    """A call of exactly one of ``classes`` that is on the direction's allow-list."""
    base = exactly(*classes)
    return base.where(f"{base.name} (allowed)", on_allow_list)
