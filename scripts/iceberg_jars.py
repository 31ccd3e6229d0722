#!/usr/bin/env python3
"""Locate (and where needed build) the jars that run Apache Iceberg Java 1.10.2 inside PySpark 3.5.

    .venv/bin/python scripts/iceberg_jars.py --out .cache/jars

The Iceberg Spark runtime comes from the PyPI package ``snowpark-connect-deps-iceberg`` (1.0.3
ships the genuine ``iceberg-spark-runtime-3.5_2.12-1.10.2.jar``). That copy lacks Iceberg's
relocated Jackson (``org.apache.iceberg.shaded.com.fasterxml.jackson.*``), without which Iceberg
cannot read or write any metadata JSON. This script rebuilds it from the Jackson 2.15.2 jars that
pyspark itself ships, relocated with Debian's jarjar (package ``libjarjar-java``), into
``<out>/iceberg-shaded-jackson-2.15.2.jar``. The build is skipped when that file exists.

``runtime_jars(out_dir)`` returns what belongs on ``spark.jars``: the runtime jar, the relocated
Jackson jar and the JDBC drivers from Debian (``libxerial-sqlite-jdbc-java``, and
``libpostgresql-jdbc-java`` when installed). It has no dependency besides the standard library, so
the library, the tests and the demo can all load it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "ICEBERG_VERSION",
    "JACKSON_VERSION",
    "MissingJarsError",
    "build_shaded_jackson",
    "default_out_dir",
    "iceberg_runtime_jar",
    "main",
    "pyspark_jars_dir",
    "runtime_jars",
    "shaded_jackson_jar",
]

ICEBERG_VERSION = "1.10.2"
SPARK_SCALA = "3.5_2.12"
JACKSON_VERSION = "2.15.2"
RUNTIME_JAR_NAME = f"iceberg-spark-runtime-{SPARK_SCALA}-{ICEBERG_VERSION}.jar"
SHADED_JACKSON_NAME = f"iceberg-shaded-jackson-{JACKSON_VERSION}.jar"
JACKSON_ARTIFACTS = ("jackson-annotations", "jackson-core", "jackson-databind", "jackson-datatype-jsr310")
JACKSON_PACKAGE = "com.fasterxml.jackson."
SHADED_PACKAGE = "org.apache.iceberg.shaded.com.fasterxml.jackson."
# a class the runtime jar needs first (its absence is the NoClassDefFoundError the jar fails with)
PROBE_CLASS = "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class"
MARKER_ENTRY = "META-INF/iceview-shaded-jackson.txt"

JARJAR_JAR = Path("/usr/share/java/jarjar.jar")
SQLITE_JDBC_JAR = Path("/usr/share/java/sqlite-jdbc.jar")
POSTGRES_JDBC_JAR = Path("/usr/share/java/postgresql.jar")

SETUP_HINT = "run `bash scripts/setup.sh --tests`"


class MissingJarsError(FileNotFoundError):
    """A jar (or the tool to build one) is not installed."""


def default_out_dir() -> Path:
    """``.cache/jars`` of the source tree this script belongs to (where setup.sh builds)."""
    return Path(__file__).resolve().parent.parent / ".cache" / "jars"


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingJarsError(f"Python package {package!r} is not installed in {sys.prefix}: {SETUP_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


def iceberg_runtime_jar() -> Path:
    """The Iceberg 1.10.2 Spark 3.5 (Scala 2.12) runtime jar from snowpark-connect-deps-iceberg."""
    jar = _package_dir("snowpark_connect_deps_iceberg") / "jars" / RUNTIME_JAR_NAME
    if not jar.is_file():
        raise MissingJarsError(
            f"{jar} not found (snowpark-connect-deps-iceberg==1.0.3 expected): {SETUP_HINT}"
        )
    return jar


def pyspark_jars_dir() -> Path:
    """The ``jars`` folder of the installed pyspark (it holds Jackson 2.15.2 for pyspark 3.5)."""
    jars = _package_dir("pyspark") / "jars"
    if not jars.is_dir():
        raise MissingJarsError(f"{jars} not found: {SETUP_HINT}")
    return jars


def shaded_jackson_jar(out_dir: str | os.PathLike[str]) -> Path:
    """Where the relocated Jackson jar lives (or will live) under ``out_dir``."""
    return Path(out_dir) / SHADED_JACKSON_NAME


def _jackson_jars(jars_dir: Path) -> list[Path]:
    found = []
    for artifact in JACKSON_ARTIFACTS:
        jar = jars_dir / f"{artifact}-{JACKSON_VERSION}.jar"
        if not jar.is_file():
            raise MissingJarsError(
                f"{jar} not found (pyspark 3.5.x ships Jackson {JACKSON_VERSION}): {SETUP_HINT}"
            )
        found.append(jar)
    return found


def _merge(jars: Sequence[Path], merged: Path) -> dict[str, list[str]]:
    """Put the classes of ``jars`` into one jar for jarjar; return the service files, kept aside."""
    services: dict[str, list[str]] = {}
    seen: set[str] = set()
    with zipfile.ZipFile(merged, "w", zipfile.ZIP_DEFLATED) as out:
        for jar in jars:
            with zipfile.ZipFile(jar) as src:
                for name in src.namelist():
                    if name.endswith("/") or name == "META-INF/MANIFEST.MF":
                        continue
                    # multi-release copies would collide after relocation ("Duplicate jar entries");
                    # the base classes are enough for Java 17
                    if name.startswith("META-INF/versions/") or name.endswith("module-info.class"):
                        continue
                    if name.startswith("META-INF/services/"):
                        services.setdefault(name, []).append(src.read(name).decode("utf-8"))
                        continue
                    if name in seen:  # LICENSE, NOTICE, ... appear in every jar
                        continue
                    seen.add(name)
                    out.writestr(name, src.read(name))
    return services


def build_shaded_jackson(out_dir: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Build ``<out_dir>/iceberg-shaded-jackson-2.15.2.jar`` unless it exists; return its path."""
    target = shaded_jackson_jar(out_dir)
    if target.is_file() and not force:
        return target
    java = shutil.which("java")
    if java is None:
        raise MissingJarsError(f"no `java` on PATH (Java 17 is needed): {SETUP_HINT}")
    if not JARJAR_JAR.is_file():
        raise MissingJarsError(f"{JARJAR_JAR} not found (Debian package libjarjar-java): {SETUP_HINT}")
    sources = _jackson_jars(pyspark_jars_dir())
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="iceview-jackson-") as tmp:
        merged = Path(tmp) / "merged.jar"
        services = _merge(sources, merged)
        rules = Path(tmp) / "rules.txt"
        rules.write_text(f"rule {JACKSON_PACKAGE}** {SHADED_PACKAGE}@1\n", encoding="utf-8")
        relocated = Path(tmp) / "relocated.jar"
        done = subprocess.run(
            [java, "-jar", str(JARJAR_JAR), "process", str(rules), str(merged), str(relocated)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            detail = done.stderr.strip() or done.stdout.strip()
            raise RuntimeError(f"jarjar failed ({done.returncode}): {detail}")
        # jarjar leaves META-INF/services alone: rename and rewrite those files here
        partial = target.with_name(target.name + ".partial")
        with zipfile.ZipFile(relocated) as src, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            for name in src.namelist():
                if not name.endswith("/"):
                    out.writestr(name, src.read(name))
            for name, bodies in sorted(services.items()):
                new_name = name.replace(JACKSON_PACKAGE, SHADED_PACKAGE)
                text = "".join(b if b.endswith("\n") else b + "\n" for b in bodies)
                out.writestr(new_name, text.replace(JACKSON_PACKAGE, SHADED_PACKAGE))
            out.writestr(
                MARKER_ENTRY,
                "Jackson relocated to org.apache.iceberg.shaded.com.fasterxml.jackson by iceview's "
                "scripts/iceberg_jars.py, from: " + ", ".join(p.name for p in sources) + "\n",
            )
        with zipfile.ZipFile(partial) as check:
            if PROBE_CLASS not in check.namelist():
                partial.unlink()
                raise RuntimeError(f"relocation produced no {PROBE_CLASS}")
        os.replace(partial, target)  # atomic: a half-built jar never counts as "exists"
    return target


def runtime_jars(out_dir: str | os.PathLike[str] | None = None, *, build: bool = False) -> list[str]:
    """The jars for ``spark.jars``: Iceberg runtime, relocated Jackson, SQLite JDBC, PostgreSQL JDBC.

    The PostgreSQL driver is listed only when installed. With ``build=True`` the relocated Jackson
    jar is built when missing; otherwise a missing jar raises :class:`MissingJarsError`.
    """
    out = Path(out_dir) if out_dir is not None else default_out_dir()
    jackson = build_shaded_jackson(out) if build else shaded_jackson_jar(out)
    if not jackson.is_file():
        raise MissingJarsError(f"{jackson} not found: {SETUP_HINT}")
    if not SQLITE_JDBC_JAR.is_file():
        raise MissingJarsError(
            f"{SQLITE_JDBC_JAR} not found (Debian libxerial-sqlite-jdbc-java): {SETUP_HINT}"
        )
    jars = [iceberg_runtime_jar(), jackson, SQLITE_JDBC_JAR]
    if POSTGRES_JDBC_JAR.is_file():
        jars.append(POSTGRES_JDBC_JAR)
    return [str(j.absolute()) for j in jars]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--out", type=Path, default=default_out_dir(), help="where to build (default: .cache/jars)"
    )
    parser.add_argument(
        "--force", action="store_true", help="rebuild the relocated Jackson jar even if present"
    )
    args = parser.parse_args(argv)
    try:
        if args.force:
            build_shaded_jackson(args.out, force=True)
        jars = runtime_jars(args.out, build=True)
    except (MissingJarsError, RuntimeError) as e:
        print(f"iceberg_jars.py: {e}", file=sys.stderr)
        return 1
    for jar in jars:
        print(jar)
    return 0


if __name__ == "__main__":
    sys.exit(main())
