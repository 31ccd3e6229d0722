"""The jars that run Apache Iceberg 1.10.2's Spark runtime inside PySpark 3.5 (Scala 2.12).

For real deployments use Maven: ``spark.jars.packages =
org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.x`` (plus your JDBC driver). This module is
for machines without a Maven repository, such as iceview's tests and demo:

* the runtime jar comes from the PyPI package ``snowpark-connect-deps-iceberg==1.0.3`` (the
  genuine ``iceberg-spark-runtime-3.5_2.12-1.10.2.jar``);
* that copy lacks Iceberg's relocated Jackson, so :func:`build_shaded_jackson` rebuilds it from the
  Jackson 2.15.2 jars pyspark 3.5 ships, relocated with Debian's jarjar (``libjarjar-java``);
* it also lacks Iceberg's relocated Apache HttpClient 5, which Iceberg's REST client (a
  ``type=rest`` catalog) needs, so :func:`build_shaded_httpclient5` rebuilds it from Debian's
  HttpClient 5.2.1 (``libhttpclient5-java``, ``libhttpcore5-java``) with jarjar and ``javac``;
* the JDBC drivers come from Debian (``libxerial-sqlite-jdbc-java``, ``libpostgresql-jdbc-java``).

``scripts/iceberg_jars.py`` (which ``scripts/setup.sh`` runs) is a command line over this module.
Standard library only, and no import of the rest of ``iceview.spark`` (nor of pyspark), so the jars
can be built on a machine where the Spark layer does not import.
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
    "build_shaded_httpclient5",
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
HTTPCLIENT5_VERSION = "5.2.1"
SHADED_HTTPCLIENT5_NAME = f"iceberg-shaded-httpclient5-{HTTPCLIENT5_VERSION}.jar"
# Debian bookworm: libhttpclient5-java, libhttpcore5-java (core5 and core5-h2)
HTTPCLIENT5_JARS = tuple(
    Path("/usr/share/java") / name for name in ("httpclient5.jar", "httpcore5.jar", "httpcore5-h2.jar")
)
HC_PACKAGE = "org.apache.hc."
SHADED_HC_PACKAGE = "org.apache.iceberg.shaded.org.apache.hc."
HC_PROBE_CLASS = "org/apache/iceberg/shaded/org/apache/hc/client5/http/impl/classic/HttpClients.class"
# Iceberg 1.10.2 is built against HttpClient 5.5; its HTTPClient has a method taking
# TlsSocketStrategy (added in 5.4), which the JVM's verifier loads even though the method runs only
# with rest.client.tls.configurer-impl set. Debian has 5.2.1, so the jar carries this interface
# (5.4's shape), which nothing ever implements or calls.
TLS_STRATEGY_PACKAGE = "org.apache.iceberg.shaded.org.apache.hc.client5.http.ssl"
TLS_STRATEGY_SOURCE = f"""package {TLS_STRATEGY_PACKAGE};

/** HttpClient 5.4's TlsSocketStrategy, for class verification only (see iceview.spark.jars). */
public interface TlsSocketStrategy {{
  javax.net.ssl.SSLSocket upgrade(
      java.net.Socket socket,
      String target,
      int port,
      Object attachment,
      org.apache.iceberg.shaded.org.apache.hc.core5.http.protocol.HttpContext context)
      throws java.io.IOException;
}}
"""
JARS_DIR_ENV = "ICEVIEW_JARS_DIR"
SETUP_HINT = "run `bash scripts/setup.sh` (or install the jars listed in docs/spark.md)"


class MissingJarsError(FileNotFoundError):
    """A jar, or the tool to build one, is not installed."""


def default_jars_dir() -> Path:
    """Where the relocated jars live: ``$ICEVIEW_JARS_DIR``, else the source tree's
    ``.cache/jars`` (an editable install, where ``scripts/setup.sh`` builds them), else
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


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"{Path(command[0]).name} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
        )


def _merge(sources: Sequence[Path], merged: Path) -> dict[str, list[str]]:
    """Write the classes and resources of ``sources`` into one jar ``merged`` (the first copy of a
    name wins); return the ``META-INF/services`` files, which are concatenated instead."""
    services: dict[str, list[str]] = {}
    seen: set[str] = set()
    with zipfile.ZipFile(merged, "w", zipfile.ZIP_DEFLATED) as out:
        for jar in sources:
            with zipfile.ZipFile(jar.resolve()) as src:
                for name in src.namelist():
                    if name.endswith("/") or name == "META-INF/MANIFEST.MF":
                        continue
                    if name.startswith("META-INF/versions/") or name.endswith("module-info.class"):
                        continue  # multi-release copies collide after relocation
                    if name.startswith("META-INF/services/"):
                        services.setdefault(name, []).append(src.read(name).decode("utf-8"))
                    elif name not in seen:
                        seen.add(name)
                        out.writestr(name, src.read(name))
    return services


def _relocate(
    java: str,
    sources: Sequence[Path],
    target: Path,
    *,
    package: str,
    shaded: str,
    probe: str,
) -> None:
    """Merge ``sources``, relocate ``package`` to ``shaded`` with jarjar and write ``target``
    atomically, checking it holds ``probe``."""
    with tempfile.TemporaryDirectory(prefix="iceview-relocate-") as tmp:
        merged = Path(tmp) / "merged.jar"
        services = _merge(sources, merged)
        rules = Path(tmp) / "rules.txt"
        rules.write_text(f"rule {package}** {shaded}@1\n", encoding="utf-8")
        relocated = Path(tmp) / "relocated.jar"
        _run([java, "-jar", str(JARJAR_JAR), "process", str(rules), str(merged), str(relocated)])
        partial = target.with_name(target.name + ".partial")
        with zipfile.ZipFile(relocated) as src, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            names = [n for n in src.namelist() if not n.endswith("/")]
            for name in names:
                out.writestr(name, src.read(name))
            for name, bodies in sorted(services.items()):
                text = "".join(b if b.endswith("\n") else b + "\n" for b in bodies)
                out.writestr(name.replace(package, shaded), text.replace(package, shaded))
        with zipfile.ZipFile(partial) as check:
            if probe not in check.namelist():
                partial.unlink()
                raise RuntimeError(f"relocation produced no {probe}")
        os.replace(partial, target)


def _java_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise MissingJarsError(f"no `{name}` on PATH (a Java 17 JDK is needed): {SETUP_HINT}")
    return found


def build_shaded_jackson(out_dir: str | os.PathLike[str] | None = None, *, force: bool = False) -> Path:
    """Build ``<out_dir>/iceberg-shaded-jackson-2.15.2.jar`` unless it exists; return its path."""
    target = Path(out_dir if out_dir is not None else default_jars_dir()) / SHADED_JACKSON_NAME
    if target.is_file() and not force:
        return target
    java = _java_tool("java")
    if not JARJAR_JAR.is_file():
        raise MissingJarsError(f"{JARJAR_JAR} not found (Debian package libjarjar-java): {SETUP_HINT}")
    sources = _jackson_jars()
    target.parent.mkdir(parents=True, exist_ok=True)
    _relocate(java, sources, target, package=JACKSON_PACKAGE, shaded=SHADED_PACKAGE, probe=PROBE_CLASS)
    return target


def _tls_strategy_class(javac: str, classpath: Sequence[Path]) -> bytes:
    """Compile :data:`TLS_STRATEGY_SOURCE` against the relocated HttpCore 5 of ``classpath``."""
    with tempfile.TemporaryDirectory(prefix="iceview-tls-stub-") as tmp:
        source = Path(tmp) / "src" / "TlsSocketStrategy.java"
        source.parent.mkdir()
        source.write_text(TLS_STRATEGY_SOURCE, encoding="utf-8")
        classes = Path(tmp) / "classes"
        cp = os.pathsep.join(str(p) for p in classpath)
        _run([javac, "-nowarn", "--release", "11", "-d", str(classes), "-cp", cp, str(source)])
        return (classes / _tls_strategy_entry()).read_bytes()


def _tls_strategy_entry() -> str:
    return TLS_STRATEGY_PACKAGE.replace(".", "/") + "/TlsSocketStrategy.class"


def build_shaded_httpclient5(out_dir: str | os.PathLike[str] | None = None, *, force: bool = False) -> Path:
    """Build ``<out_dir>/iceberg-shaded-httpclient5-5.2.1.jar`` unless it exists; return its path.

    Debian's HttpClient 5.2.1 jars, merged and relocated with jarjar to the package names the
    Iceberg runtime jar refers to (``org.apache.iceberg.shaded.org.apache.hc.*``), plus one
    interface compiled with ``javac`` (see :data:`TLS_STRATEGY_SOURCE`). Iceberg's REST client
    (``type=rest``) needs it; the other catalog types do not.
    """
    target = Path(out_dir if out_dir is not None else default_jars_dir()) / SHADED_HTTPCLIENT5_NAME
    if target.is_file() and not force:
        return target
    java, javac = _java_tool("java"), _java_tool("javac")
    missing = [str(j) for j in (*HTTPCLIENT5_JARS, JARJAR_JAR) if not j.is_file()]
    if missing:
        raise MissingJarsError(
            f"not found: {', '.join(missing)} (Debian packages libhttpclient5-java libhttpcore5-java "
            f"libjarjar-java): {SETUP_HINT}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="iceview-httpclient5-") as tmp:
        # the stub compiles against the relocated HttpCore 5, so relocate once without it first
        first = Path(tmp) / SHADED_HTTPCLIENT5_NAME
        _relocate(
            java, HTTPCLIENT5_JARS, first, package=HC_PACKAGE, shaded=SHADED_HC_PACKAGE, probe=HC_PROBE_CLASS
        )
        stub = _tls_strategy_class(javac, [first])
        with zipfile.ZipFile(first) as check:
            has_stub = _tls_strategy_entry() in check.namelist()
        if has_stub:
            os.replace(first, target)
        else:
            partial = target.with_name(target.name + ".partial")
            shutil.copyfile(first, partial)
            with zipfile.ZipFile(partial, "a", zipfile.ZIP_DEFLATED) as out:
                out.writestr(_tls_strategy_entry(), stub)
            os.replace(partial, target)
    return target


def runtime_jars(
    out_dir: str | os.PathLike[str] | None = None,
    *,
    build: bool = True,
    rest_client: bool | None = None,
) -> list[str]:
    """``spark.jars`` for Iceberg in PySpark 3.5: the runtime jar, the relocated Jackson, the
    relocated HttpClient 5 of Iceberg's REST client, the SQLite JDBC driver and, when installed, the
    PostgreSQL one. The relocated jars are built when missing and ``build``.

    ``rest_client``: ``True`` requires the HttpClient 5 jar (raises :class:`MissingJarsError` when
    it cannot be had), ``False`` leaves it out, ``None`` (the default) adds it when it is built or
    can be built: only ``type=rest`` catalogs need it.
    """
    out = Path(out_dir) if out_dir is not None else default_jars_dir()
    jackson = build_shaded_jackson(out) if build else out / SHADED_JACKSON_NAME
    if not jackson.is_file():
        raise MissingJarsError(f"{jackson} not found: {SETUP_HINT}")
    jars: list[Path] = [iceberg_runtime_jar(), jackson]
    if rest_client is not False:
        httpclient5 = out / SHADED_HTTPCLIENT5_NAME
        try:
            if build:
                httpclient5 = build_shaded_httpclient5(out)
            elif not httpclient5.is_file():
                raise MissingJarsError(f"{httpclient5} not found (Iceberg's REST client): {SETUP_HINT}")
        except MissingJarsError:
            if rest_client:
                raise
        else:
            jars.append(httpclient5)
    for driver in (SQLITE_JDBC_JAR, POSTGRES_JDBC_JAR):
        if driver.is_file():
            jars.append(driver)
    return [str(j.absolute()) for j in jars]


def jdbc_drivers() -> Sequence[str]:
    """The Debian JDBC driver jars that are installed."""
    return [str(p) for p in (SQLITE_JDBC_JAR, POSTGRES_JDBC_JAR) if p.is_file()]
