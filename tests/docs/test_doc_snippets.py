"""Every ```python block of README.md and docs/*.md runs, and prints what the page shows.

Conventions (for whoever writes the pages):

* **What runs.** Every block fenced ```python. A page's blocks run in order, in one namespace
  (like a doctest session: a later block may use what an earlier one defined), as ``__main__``, in
  a fresh working directory. A block that cannot run here (a configuration for another machine, a
  Java program, a shell session) is fenced with its own language (```properties, ```yaml, ```java,
  ```bash), never as Python: ```py, ```python3, ```pycon and the like are refused, so that nothing
  escapes the check under another name.
* **Shown output.** A ```text block right after a ```python block (nothing but blank lines in
  between) is what that block prints (its stdout), and is compared line by line. A block without
  one may print anything. Before comparing, what differs from run to run is put aside: uuids, times
  (``2026-11-20T08:00:00.000Z``), epoch milliseconds (``1795821340528``), the column widths of the
  tables Spark's ``show()`` prints (they follow the length of the paths in them), trailing spaces
  and blank lines at either end. The working directory is shown as ``/home/me/project``, and an
  ``iceview serve`` server as ``http://127.0.0.1:8181/`` (its default address).
* **The catalog.** The working directory holds ``.pyiceberg.yaml`` with the catalog ``prod``, an
  embedded SQLite catalog in ``./warehouse``: namespace ``db``, the Iceberg table ``db.events``
  (``event_id``, ``event_ts``, ``source``; 6 rows over 3 days) and the views ``db.event_agg`` (the
  view spec's Appendix A, versions 1 and 2) and ``db.daily`` (``n``, ``day``: events per day), each
  with Spark SQL only (tests/docs/doc_snippets.py, ``build_docs_catalog``). ``HOME`` and
  ``PYICEBERG_HOME`` are an empty folder and no ``PYICEBERG_*`` variable is set, so nothing else
  configures it.
* **Spark.** A page whose blocks use the name ``spark`` without defining it first is given a
  ``spark``: a session of the test process's Spark 3.5 with Iceberg 1.10.2 (the session-scoped
  ``java_spark``; ``newSession()``, so its catalogs and settings stay its own), which is also what
  ``SparkSession.builder.getOrCreate()`` (and so ``iceview.spark.local_session``) returns while the
  page runs. ``prod`` is not a Spark catalog there, so SparkViews reads ``prod.db.events`` from
  ``spark_catalog.db.events``, which holds the same rows (docs/spark.md, "Virtual"). Such a page is
  marked ``java``.
* **A server.** A page whose blocks name ``http://127.0.0.1:8181/`` gets a private ``iceview serve``
  (``fixtures.iceview_serve``), holding namespace ``db`` and the table ``db.t`` (``id``: 1, 2, 3),
  and that address in its blocks is replaced by the server's before they run.

A failure names the page and the first line of the block, and its traceback points into the page.
"""

from __future__ import annotations

import ast
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from doc_snippets import (
    SHOWN_ROOT,
    SHOWN_SERVER,
    Page,
    SnippetError,
    blocks,
    build_docs_catalog,
    pages,
    read_page,
    run_page,
    serve_content,
    spark_events,
)

PAGES = [read_page(path) for path in pages()]


def uses_spark(page: Page) -> bool:
    """Whether a block reads the name ``spark`` before any block of the page assigns it."""
    for block in page.blocks:
        try:
            tree = ast.parse(block.code)
        except SyntaxError:
            return False  # the test reports it
        names = sorted(
            (node.lineno, node.col_offset, isinstance(node.ctx, ast.Load))
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and node.id == "spark"
        )
        if names:
            return names[0][2]
    return False


def uses_server(page: Page) -> bool:
    return any(SHOWN_SERVER in block.code for block in page.blocks)


def _param(page: Page) -> Any:
    marks = [pytest.mark.java] if uses_spark(page) else []
    return pytest.param(page, id=page.name, marks=marks)


@contextlib.contextmanager
def page_session(spark: Any) -> Iterator[Any]:
    """A new session of the running Spark (its own SQL conf, catalogs and temporary views), which
    ``SparkSession.builder.getOrCreate()`` returns until the block ends."""
    from pyspark.sql import SparkSession

    session = spark.newSession()
    saved = SparkSession._instantiatedSession, SparkSession._activeSession
    SparkSession._instantiatedSession = session
    SparkSession._activeSession = session
    try:
        yield session
    finally:
        SparkSession._instantiatedSession, SparkSession._activeSession = saved
        # the JVM's too: createDataFrame made the page's session active on this thread there, and
        # Spark's CatalogManager reads catalog settings from the active session
        spark._jvm.SparkSession.setActiveSession(spark._jsparkSession)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The pages' working directory, with their catalog; nothing else configures PyIceberg."""
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    for key in list(os.environ):
        if key.upper().startswith("PYICEBERG"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PYICEBERG_HOME", str(home))
    monkeypatch.chdir(root)
    build_docs_catalog(root)
    return root


def test_pages_have_python_blocks_and_no_other_python_fences() -> None:
    assert sum(len(page.blocks) for page in PAGES) >= 15
    misfenced = [f"{page.name} {where}" for page in PAGES for where in page.misfenced]
    assert misfenced == [], "Python under another fence: make it ```python (and runnable) or another language"


@pytest.mark.parametrize("page", [_param(page) for page in PAGES if page.blocks])
def test_page_runs_and_prints_what_it_shows(page: Page, request: pytest.FixtureRequest) -> None:
    given: dict[str, Any] = {}
    server: str | None = None
    with contextlib.ExitStack() as stack:
        if uses_server(page):
            started = request.getfixturevalue("iceview_server_factory")()
            serve_content(started.uri)
            server = started.uri
        if uses_spark(page):
            java_spark = request.getfixturevalue("java_spark")
            spark = stack.enter_context(page_session(java_spark.spark))
            stack.enter_context(spark_events(spark))
            given["spark"] = spark
        root: Path = request.getfixturevalue("project")
        failure = None
        try:
            run_page(page, {"__name__": "__main__", **given}, root=root, server=server)
        except SnippetError as e:
            failure = str(e)
    if failure is not None:
        pytest.fail(failure, pytrace=False)


# ----------------------------------------------------------------------------- the runner itself

EXAMPLE = """# A page

```python
import uuid
from pathlib import Path

print(uuid.uuid4(), Path("warehouse").absolute())
```

```text
0b6f3c1e-0f5e-4a55-9c33-4f4ef5cf3f0e /home/me/project/warehouse
```

A block whose output is not shown:

```python
print("anything")
```

Prose stands between, so this is not its output:

```text
anything else
```

```py
print("Python under another name")
```
"""


def test_blocks_pairs_each_python_block_with_the_text_block_right_after_it() -> None:
    page = blocks("docs/example.md", EXAMPLE)
    assert [(b.line, b.output_line) for b in page.blocks] == [(4, 11), (17, None)]
    assert page.blocks[0].output == "0b6f3c1e-0f5e-4a55-9c33-4f4ef5cf3f0e /home/me/project/warehouse\n"
    assert page.misfenced == ["line 26: ```py"]


def test_shown_output_is_compared_with_uuids_and_the_working_directory_put_aside() -> None:
    page = blocks("docs/example.md", EXAMPLE)
    run_page(page, {"__name__": "__main__"}, root=Path.cwd())  # the paths differ: cwd is not tmp_path
    page.blocks[0].output = f"<uuid> {SHOWN_ROOT}/warehouse\n"
    with pytest.raises(SnippetError) as failure:
        run_page(page, {"__name__": "__main__"}, root=Path.cwd())
    assert str(failure.value).startswith(
        "docs/example.md: the block at line 4 printed something else than the ```text block at line 11 shows"
    )
    assert f"-<uuid> {SHOWN_ROOT}/warehouse" in str(failure.value)
    assert f"+<UUID> {SHOWN_ROOT}/warehouse" in str(failure.value)


def test_a_block_that_raises_is_named_by_page_and_line_and_traced_into_the_page(tmp_path: Path) -> None:
    page = blocks("docs/example.md", "# A page\n\n```python\nx = 1\nprint(undefined)\n```\n")
    with pytest.raises(SnippetError) as failure:
        run_page(page, {"__name__": "__main__"}, root=tmp_path)
    message = str(failure.value)
    assert message.startswith("docs/example.md: the block at line 4 raised NameError: name 'undefined'")
    assert 'docs/example.md", line 5, in <module>' in message
