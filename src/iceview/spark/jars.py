"""Apache Iceberg's Spark runtime and the JDBC drivers, from Maven, as users configure them.

A Spark session gets :func:`spark_conf`: ``spark.jars.packages`` with
``org.apache.iceberg:iceberg-spark-runtime-<spark>_<scala>:<version>`` (``3.5_2.12`` under pyspark
3.5, ``4.0_2.13`` under pyspark 4.0, read from the installed pyspark) and the SQLite and PostgreSQL
JDBC drivers, and ``spark.jars.ivy`` pointing at iceview's Ivy folder, so Spark downloads them once
and later starts read them from that cache.

The Iceberg version is :data:`DEFAULT_ICEBERG_VERSION` (1.10.2) unless the caller passes one or
``$ICEVIEW_ICEBERG_VERSION`` names one; iceview is tested with 1.10.2 to 1.12.0 (docs/spark.md).

:func:`runtime_jars` resolves the same coordinates into that cache with the Ivy that pyspark ships
and returns the jar files, for a plain JVM classpath (a Java program outside Spark, or compiling
against Iceberg). ``scripts/iceberg_jars.py`` (which ``scripts/setup.sh`` runs) is a command line over it.

Standard library only, and no import of the rest of ``iceview.spark`` (nor of pyspark), so this
module imports where the Spark layer does not.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import quoteattr

from iceview.errors import IceviewError, InvalidArgumentError

__all__ = [
    "DEFAULT_ICEBERG_VERSION",
    "ICEBERG_VERSION",
    "ICEBERG_VERSION_ENV",
    "IVY_DIR_ENV",
    "JDBC_DRIVERS",
    "MAVEN_COORDINATES",
    "TESTED_ICEBERG_VERSIONS",
    "MissingJarsError",
    "iceberg_version",
    "ivy_dir",
    "maven_coordinates",
    "runtime_artifact",
    "runtime_jars",
    "spark_conf",
    "spark_version",
]

DEFAULT_ICEBERG_VERSION = "1.10.2"
ICEBERG_VERSION = DEFAULT_ICEBERG_VERSION  # the default; iceberg_version() says which one is in force
ICEBERG_VERSION_ENV = "ICEVIEW_ICEBERG_VERSION"
# the oldest and the newest Iceberg release iceview's Spark tests were run with
TESTED_ICEBERG_VERSIONS = ("1.10.2", "1.12.0")
MAVEN_COORDINATES = f"org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:{DEFAULT_ICEBERG_VERSION}"
JDBC_DRIVERS = ("org.xerial:sqlite-jdbc:3.50.3.0", "org.postgresql:postgresql:42.7.7")
IVY_DIR_ENV = "ICEVIEW_IVY_DIR"
# Spark's own default repository (SparkSubmitUtils), and the variable with which Spark overrides it
MAVEN_CENTRAL = "https://repo1.maven.org/maven2/"
REPOSITORY_ENV = "DEFAULT_ARTIFACT_REPOSITORY"
RESOLVE_TIMEOUT = 900.0
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]*")
SETUP_HINT = "run `bash scripts/setup.sh`, or see docs/spark.md"


class MissingJarsError(IceviewError, FileNotFoundError):
    """The Iceberg runtime or a JDBC driver cannot be had: no Java or pyspark to resolve it with,
    Maven unreachable, or a version Maven does not publish."""


def iceberg_version(version: str | None = None) -> str:
    """The Iceberg release to use: ``version``, else ``$ICEVIEW_ICEBERG_VERSION``, else
    :data:`DEFAULT_ICEBERG_VERSION`. Raises :class:`~iceview.errors.InvalidArgumentError` (a
    ``ValueError``) for text that is no version."""
    chosen = version or os.environ.get(ICEBERG_VERSION_ENV) or DEFAULT_ICEBERG_VERSION
    if not _VERSION.fullmatch(chosen):
        where = "argument" if version else f"${ICEBERG_VERSION_ENV}"
        raise InvalidArgumentError(
            f"Iceberg version {chosen!r} (from the {where}) is not a version such as 1.10.2"
        )
    return chosen


def spark_version() -> str:
    """The installed pyspark's version (read from its metadata: pyspark is not imported)."""
    try:
        return importlib.metadata.version("pyspark")
    except importlib.metadata.PackageNotFoundError as e:
        raise MissingJarsError(
            f"pyspark is not installed (pip install 'iceview[spark]'): {SETUP_HINT}"
        ) from e


def runtime_artifact(spark: str | None = None) -> str:
    """``iceberg-spark-runtime-<major.minor>_<scala>`` for Spark ``spark`` (default: the installed
    pyspark's): Scala 2.12 for Spark 3, 2.13 for Spark 4, as pyspark's own builds."""
    text = spark or spark_version()
    found = re.match(r"(\d+)\.(\d+)", text)
    if found is None or found.group(1) not in ("3", "4"):
        raise MissingJarsError(
            f"no Iceberg Spark runtime for Spark {text!r}: iceview knows Spark 3.x (Scala 2.12) and 4.x "
            f"(Scala 2.13)"
        )
    scala = "2.12" if found.group(1) == "3" else "2.13"
    return f"iceberg-spark-runtime-{found.group(1)}.{found.group(2)}_{scala}"


def maven_coordinates(
    version: str | None = None, *, spark: str | None = None, jdbc: bool = True
) -> list[str]:
    """The ``group:artifact:version`` list for ``spark.jars.packages``: Iceberg's Spark runtime
    (:func:`iceberg_version`, :func:`runtime_artifact`) and, with ``jdbc``, :data:`JDBC_DRIVERS`."""
    coordinates = [f"org.apache.iceberg:{runtime_artifact(spark)}:{iceberg_version(version)}"]
    if jdbc:
        coordinates.extend(JDBC_DRIVERS)
    return coordinates


def ivy_dir() -> Path:
    """Ivy's home for the downloads (``spark.jars.ivy``): ``$ICEVIEW_IVY_DIR``, else
    ``~/.cache/iceview/ivy``. The jars are kept in its ``cache`` folder."""
    env = os.environ.get(IVY_DIR_ENV)
    return Path(env) if env else Path.home() / ".cache" / "iceview" / "ivy"


def spark_conf(
    version: str | None = None,
    *,
    spark: str | None = None,
    jdbc: bool = True,
    ivy: str | os.PathLike[str] | None = None,
) -> dict[str, str]:
    """Spark conf that puts Iceberg's runtime (and the JDBC drivers) on a new session:
    ``spark.jars.packages`` (:func:`maven_coordinates`) and ``spark.jars.ivy`` (``ivy`` or
    :func:`ivy_dir`). Spark resolves them when its JVM starts; the first start downloads them."""
    return {
        "spark.jars.packages": ",".join(maven_coordinates(version, spark=spark, jdbc=jdbc)),
        "spark.jars.ivy": str(Path(ivy) if ivy is not None else ivy_dir()),
    }


def runtime_jars(
    version: str | None = None,
    *,
    spark: str | None = None,
    jdbc: bool = True,
    ivy: str | os.PathLike[str] | None = None,
) -> list[str]:
    """The jar files of :func:`maven_coordinates` (with what they depend on), downloaded into
    ``ivy``'s cache (default :func:`ivy_dir`, the one Spark uses through :func:`spark_conf`) by the
    Ivy that pyspark ships, unless already there. For a JVM outside Spark: Spark sessions should
    take :func:`spark_conf` instead. Raises :class:`MissingJarsError` when they cannot be had."""
    coordinates = maven_coordinates(version, spark=spark, jdbc=jdbc)
    home = Path(ivy) if ivy is not None else ivy_dir()
    key = hashlib.sha256("\n".join([*coordinates, _repository()]).encode()).hexdigest()[:16]
    listing = home / "classpaths" / f"{key}.txt"
    jars = _read_listing(listing)
    if jars is None:
        _resolve(coordinates, home, listing)
        jars = _read_listing(listing)
        if jars is None:
            raise MissingJarsError(
                f"Ivy resolved {', '.join(coordinates)} but wrote no jar list to {listing}"
            )
    return jars


def _read_listing(listing: Path) -> list[str] | None:
    try:
        text = listing.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    jars = [j for j in text.split(os.pathsep) if j]
    if not jars or not all(Path(j).is_file() for j in jars):
        return None  # a cache cleaned since: resolve again
    return jars


def _repository() -> str:
    return os.environ.get(REPOSITORY_ENV) or MAVEN_CENTRAL


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise MissingJarsError(f"no `java` on PATH and no JAVA_HOME (Spark needs Java 17): {SETUP_HINT}")
    return found


def _ivy_jar() -> Path:
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise MissingJarsError(f"pyspark is not installed (pip install 'iceview[spark]'): {SETUP_HINT}")
    jars = Path(next(iter(spec.submodule_search_locations))) / "jars"
    found = sorted(jars.glob("ivy-*.jar"))
    if not found:
        raise MissingJarsError(f"no ivy-*.jar in {jars} (pyspark ships Apache Ivy there): {SETUP_HINT}")
    return found[-1]


def _settings(home: Path) -> str:
    # The resolver is named "central" and the cache is <home>/cache, as in Spark's own Ivy settings
    # (SparkSubmitUtils), so Spark's spark.jars.packages finds what this resolved and vice versa.
    cache = quoteattr(str(home / "cache"))
    return f"""<ivysettings>
  <settings defaultResolver="iceview-chain"/>
  <caches defaultCacheDir={cache} lockStrategy="artifact-lock-nio"/>
  <resolvers>
    <chain name="iceview-chain" returnFirst="true">
      <ibiblio name="central" m2compatible="true" usepoms="true" root={quoteattr(_repository())}/>
    </chain>
  </resolvers>
</ivysettings>
"""


def _module(coordinates: Sequence[str], name: str) -> str:
    lines = [
        '<ivy-module version="2.0">',
        f'  <info organisation="iceview" module="{name}"/>',
        '  <configurations><conf name="default"/></configurations>',
        "  <dependencies>",
    ]
    for coordinate in coordinates:
        group, artifact, version = coordinate.split(":")
        lines.append(
            f"    <dependency org={quoteattr(group)} name={quoteattr(artifact)} rev={quoteattr(version)}"
            ' conf="default->default(runtime)"/>'
        )
    lines += ["  </dependencies>", "</ivy-module>", ""]
    return "\n".join(lines)


def _resolve(coordinates: Sequence[str], home: Path, listing: Path) -> None:
    java, ivy_jar = _java(), _ivy_jar()
    home.mkdir(parents=True, exist_ok=True)
    listing.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="iceview-ivy-") as tmp:
        settings, module = Path(tmp) / "ivysettings.xml", Path(tmp) / "ivy.xml"
        settings.write_text(_settings(home), encoding="utf-8")
        # a module name of its own per run, so that concurrent runs do not share resolution reports
        name = f"iceview-jars-{uuid.uuid4().hex}"
        module.write_text(_module(coordinates, name), encoding="utf-8")
        partial = Path(tmp) / "classpath.txt"
        command = [
            java,
            f"-Divy.home={home}",
            "-jar",
            str(ivy_jar),
            "-settings",
            str(settings),
            "-ivy",
            str(module),
            "-confs",
            "default",
            "-cachepath",
            str(partial),
        ]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired as e:
            _remove_reports(home, name)
            raise MissingJarsError(
                f"Ivy did not resolve {', '.join(coordinates)} from {_repository()} within "
                f"{RESOLVE_TIMEOUT:.0f} s (cache {home / 'cache'})"
            ) from e
        _remove_reports(home, name)
        if done.returncode != 0 or not partial.is_file():
            raise MissingJarsError(
                f"Ivy could not resolve {', '.join(coordinates)} from {_repository()} "
                f"(cache {home / 'cache'}): {_ivy_problem(done.stdout + done.stderr)}; Iceberg publishes a "
                f"runtime for each Spark line that release supports (docs/spark.md)"
            )
        # os.replace: concurrent resolutions of the same list each write a whole file
        staged = listing.with_name(f"{listing.name}.{os.getpid()}.partial")
        shutil.copyfile(partial, staged)
        os.replace(staged, listing)


def _remove_reports(home: Path, name: str) -> None:
    """Delete the resolution reports Ivy left in the cache for module ``name``."""
    for report in (home / "cache").glob(f"*{name}*"):
        report.unlink(missing_ok=True)


def _ivy_problem(output: str) -> str:
    """The lines of Ivy's output that say what failed (else its last lines)."""
    markers = ("not found", "download failed", "ERROR", "Exception", "UnknownHost", "Connection", "timed out")
    wanted = [line.strip(": \t") for line in output.splitlines() if any(m in line for m in markers)]
    keep = list(dict.fromkeys(line for line in wanted if line)) or output.strip().splitlines()[-10:]
    return " | ".join(keep[:12]) or "no output"
