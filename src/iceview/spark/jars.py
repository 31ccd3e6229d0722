"""The jars that run Apache Iceberg 1.10.2's Spark runtime inside PySpark 3.5 (Scala 2.12).

For real deployments use Maven: ``spark.jars.packages =
org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.x`` (plus your JDBC driver). This module is
for machines without a Maven repository, such as iceview's tests and demo:

* the runtime jar comes from the PyPI package ``snowpark-connect-deps-iceberg==1.0.3`` (the
  genuine ``iceberg-spark-runtime-3.5_2.12-1.10.2.jar``);
* that copy lacks Iceberg's relocated Jackson, so :func:`build_shaded_jackson` rebuilds it from the
  Jackson 2.15.2 jars pyspark 3.5 ships, relocated with Debian's jarjar (``libjarjar-java``);
* the JDBC drivers come from Debian (``libxerial-sqlite-jdbc-java``, ``libpostgresql-jdbc-java``).

The same logic as ``scripts/iceberg_jars.py`` (which ``scripts/setup.sh`` runs), packaged so the
library does not import the scripts folder. Standard library only.
"""

from __future__ import annotations

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
    "MAVEN_COORDINATES",
    "MissingJarsError",
    "build_shaded_jackson",
    "default_jars_dir",
    "iceberg_runtime_jar",
    "runtime_jars",
]

ICEBERG_VERSION = "1.10.2"
SPARK_SCALA = "3.5_2.12"
MAVEN_COORDINATES = f"org.apache.iceberg:iceberg-spark-runtime-{SPARK_SCALA}:{ICEBERG_VERSION}"
JACKSON_VERSION = "2.15.2"
RUNTIME_JAR_NAME = f"iceberg-spark-runtime-{SPARK_SCALA}-{ICEBERG_VERSION}.jar"
SHADED_JACKSON_NAME = f"iceberg-shaded-jackson-{JACKSON_VERSION}.jar"
JACKSON_ARTIFACTS = ("jackson-annotations", "jackson-core", "jackson-databind", "jackson-datatype-jsr310")
JACKSON_PACKAGE = "com.fasterxml.jackson."
SHADED_PACKAGE = "org.apache.iceberg.shaded.com.fasterxml.jackson."
PROBE_CLASS = "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class"
JARJAR_JAR = Path("/usr/share/java/jarjar.jar")
SQLITE_JDBC_JAR = Path("/usr/share/java/sqlite-jdbc.jar")
POSTGRES_JDBC_JAR = Path("/usr/share/java/postgresql.jar")
JARS_DIR_ENV = "ICEVIEW_JARS_DIR"
SETUP_HINT = "run `bash scripts/setup.sh` (or install the jars listed in docs/spark.md)"


class MissingJarsError(FileNotFoundError):
    """A jar, or the tool to build one, is not installed."""


def default_jars_dir() -> Path:
    """Where the relocated Jackson jar lives: ``$ICEVIEW_JARS_DIR``, else the source tree's
    ``.cache/jars`` (an editable install, where ``scripts/setup.sh`` builds it), else
    ``~/.cache/iceview/jars``."""
    env = os.environ.get(JARS_DIR_ENV)
    if env:
        return Path(env)
    tree = Path(__file__).resolve().parents[3] / ".cache" / "jars"
    if tree.is_dir():
        return tree
    return Path.home() / ".cache" / "iceview" / "jars"


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingJarsError(f"Python package {package!r} is not installed in {sys.prefix}: {SETUP_HINT}")
    return Path(next(iter(spec.submodule_search_locations)))


def iceberg_runtime_jar() -> Path:
    """The Iceberg 1.10.2 runtime jar from ``snowpark-connect-deps-iceberg``."""
    jar = _package_dir("snowpark_connect_deps_iceberg") / "jars" / RUNTIME_JAR_NAME
    if not jar.is_file():
        raise MissingJarsError(
            f"{jar} not found (snowpark-connect-deps-iceberg==1.0.3 expected): {SETUP_HINT}"
        )
    return jar


def _jackson_jars() -> list[Path]:
    jars_dir = _package_dir("pyspark") / "jars"
    found = []
    for artifact in JACKSON_ARTIFACTS:
        jar = jars_dir / f"{artifact}-{JACKSON_VERSION}.jar"
        if not jar.is_file():
            raise MissingJarsError(
                f"{jar} not found (pyspark 3.5.x ships Jackson {JACKSON_VERSION}): {SETUP_HINT}"
            )
        found.append(jar)
    return found


def build_shaded_jackson(out_dir: str | os.PathLike[str] | None = None, *, force: bool = False) -> Path:
    """Build ``<out_dir>/iceberg-shaded-jackson-2.15.2.jar`` unless it exists; return its path."""
    target = Path(out_dir if out_dir is not None else default_jars_dir()) / SHADED_JACKSON_NAME
    if target.is_file() and not force:
        return target
    java = shutil.which("java")
    if java is None:
        raise MissingJarsError(f"no `java` on PATH (Java 17 is needed): {SETUP_HINT}")
    if not JARJAR_JAR.is_file():
        raise MissingJarsError(f"{JARJAR_JAR} not found (Debian package libjarjar-java): {SETUP_HINT}")
    sources = _jackson_jars()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="iceview-jackson-") as tmp:
        merged = Path(tmp) / "merged.jar"
        services: dict[str, list[str]] = {}
        seen: set[str] = set()
        with zipfile.ZipFile(merged, "w", zipfile.ZIP_DEFLATED) as out:
            for jar in sources:
                with zipfile.ZipFile(jar) as src:
                    for name in src.namelist():
                        if name.endswith("/") or name == "META-INF/MANIFEST.MF":
                            continue
                        if name.startswith("META-INF/versions/") or name.endswith("module-info.class"):
                            continue  # multi-release copies collide after relocation
                        if name.startswith("META-INF/services/"):
                            services.setdefault(name, []).append(src.read(name).decode("utf-8"))
                            continue
                        if name not in seen:
                            seen.add(name)
                            out.writestr(name, src.read(name))
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
            raise RuntimeError(
                f"jarjar failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
            )
        partial = target.with_name(target.name + ".partial")
        with zipfile.ZipFile(relocated) as src, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            for name in src.namelist():
                if not name.endswith("/"):
                    out.writestr(name, src.read(name))
            for name, bodies in sorted(services.items()):
                text = "".join(b if b.endswith("\n") else b + "\n" for b in bodies)
                out.writestr(
                    name.replace(JACKSON_PACKAGE, SHADED_PACKAGE),
                    text.replace(JACKSON_PACKAGE, SHADED_PACKAGE),
                )
        with zipfile.ZipFile(partial) as check:
            if PROBE_CLASS not in check.namelist():
                partial.unlink()
                raise RuntimeError(f"relocation produced no {PROBE_CLASS}")
        os.replace(partial, target)
    return target


def runtime_jars(out_dir: str | os.PathLike[str] | None = None, *, build: bool = True) -> list[str]:
    """``spark.jars`` for Iceberg in PySpark 3.5: the runtime jar, the relocated Jackson (built when
    missing and ``build``), the SQLite JDBC driver and, when installed, the PostgreSQL one."""
    out = Path(out_dir) if out_dir is not None else default_jars_dir()
    jackson = build_shaded_jackson(out) if build else out / SHADED_JACKSON_NAME
    if not jackson.is_file():
        raise MissingJarsError(f"{jackson} not found: {SETUP_HINT}")
    jars: list[Path] = [iceberg_runtime_jar(), jackson]
    for driver in (SQLITE_JDBC_JAR, POSTGRES_JDBC_JAR):
        if driver.is_file():
            jars.append(driver)
    return [str(j.absolute()) for j in jars]


def jdbc_drivers() -> Sequence[str]:
    """The Debian JDBC driver jars that are installed."""
    return [str(p) for p in (SQLITE_JDBC_JAR, POSTGRES_JDBC_JAR) if p.is_file()]
