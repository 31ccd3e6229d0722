"""``iceview.spark.jars``: Iceberg's Spark runtime and the JDBC drivers as Maven coordinates, the
version in force, and the Ivy cache that Spark and ``runtime_jars`` share."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

import pytest

from iceview.errors import InvalidArgumentError
from iceview.spark import jars
from iceview.spark.jars import (
    DEFAULT_ICEBERG_VERSION,
    ICEBERG_VERSION_ENV,
    IVY_DIR_ENV,
    JDBC_DRIVERS,
    MissingJarsError,
    iceberg_version,
    maven_coordinates,
    runtime_artifact,
    runtime_jars,
    spark_conf,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "iceview"


@pytest.fixture(autouse=True)
def _no_version_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ICEBERG_VERSION_ENV, raising=False)


@pytest.mark.parametrize(
    ("spark", "artifact"),
    [
        ("3.5.9", "iceberg-spark-runtime-3.5_2.12"),
        ("3.4.4", "iceberg-spark-runtime-3.4_2.12"),
        ("4.0.1", "iceberg-spark-runtime-4.0_2.13"),
        ("4.1.0.dev1", "iceberg-spark-runtime-4.1_2.13"),
    ],
)
def test_runtime_artifact_follows_the_spark_version(spark: str, artifact: str) -> None:
    assert runtime_artifact(spark) == artifact


def test_runtime_artifact_of_the_installed_pyspark() -> None:
    major_minor = ".".join(importlib.metadata.version("pyspark").split(".")[:2])
    assert runtime_artifact().startswith(f"iceberg-spark-runtime-{major_minor}_")


@pytest.mark.parametrize("spark", ["2.4.8", "5.0.0", "nightly"])
def test_unknown_spark_versions_are_refused(spark: str) -> None:
    with pytest.raises(MissingJarsError, match=f"no Iceberg Spark runtime for Spark '{spark}'"):
        runtime_artifact(spark)


def test_the_version_is_the_argument_else_the_environment_else_1_10_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert DEFAULT_ICEBERG_VERSION == "1.10.2"
    assert iceberg_version() == "1.10.2"
    monkeypatch.setenv(ICEBERG_VERSION_ENV, "1.12.0")
    assert iceberg_version() == "1.12.0"
    assert iceberg_version("1.11.0") == "1.11.0"
    assert maven_coordinates(spark="3.5.9") == [
        "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.12.0",
        *JDBC_DRIVERS,
    ]


@pytest.mark.parametrize("bad", ["1.10;2", "1.10.2,org.evil:x:1", " 1.10.2", "-1"])
def test_a_bad_version_says_where_it_came_from(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    with pytest.raises(InvalidArgumentError, match="from the argument"):
        iceberg_version(bad)
    monkeypatch.setenv(ICEBERG_VERSION_ENV, bad)
    with pytest.raises(InvalidArgumentError, match=f"from the \\${ICEBERG_VERSION_ENV}"):
        maven_coordinates()


def test_spark_conf_names_packages_and_ivy_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(IVY_DIR_ENV, str(tmp_path / "ivy"))
    conf = spark_conf("1.12.0", spark="4.0.1", jdbc=False)
    assert conf == {
        "spark.jars.packages": "org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:1.12.0",
        "spark.jars.ivy": str(tmp_path / "ivy"),
    }
    monkeypatch.delenv(IVY_DIR_ENV)
    conf = spark_conf(spark="3.5.9", ivy=tmp_path)
    assert conf["spark.jars.ivy"] == str(tmp_path)
    assert conf["spark.jars.packages"].split(",") == [
        "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2",
        "org.xerial:sqlite-jdbc:3.50.3.0",
        "org.postgresql:postgresql:42.7.7",
    ]


def test_runtime_jars_reads_its_listing_without_java(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A resolved list is read back from the cache; a listing whose jars are gone resolves again."""
    first = [str(tmp_path / "a.jar"), str(tmp_path / "b.jar")]
    calls: list[list[str]] = []

    def fake_resolve(coordinates: list[str], home: Path, listing: Path) -> None:
        calls.append(list(coordinates))
        for jar in first:
            Path(jar).write_bytes(b"PK")
        listing.parent.mkdir(parents=True, exist_ok=True)
        listing.write_text(os.pathsep.join(first), encoding="utf-8")

    monkeypatch.setattr(jars, "_resolve", fake_resolve)
    assert runtime_jars("1.10.2", spark="3.5.9", ivy=tmp_path) == first
    assert runtime_jars("1.10.2", spark="3.5.9", ivy=tmp_path) == first
    assert len(calls) == 1
    Path(first[0]).unlink()
    assert runtime_jars("1.10.2", spark="3.5.9", ivy=tmp_path) == first
    assert len(calls) == 2
    runtime_jars("1.12.0", spark="3.5.9", ivy=tmp_path)  # another version: another listing
    assert calls[-1][0] == "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.12.0"


@pytest.mark.java
def test_a_version_maven_does_not_publish_fails_with_ivys_reason(tmp_path: Path) -> None:
    with pytest.raises(MissingJarsError) as e:
        runtime_jars("0.0.1", spark="3.5.9", jdbc=False, ivy=tmp_path)
    text = str(e.value)
    assert "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:0.0.1" in text
    assert "not found" in text
    assert str(tmp_path / "cache") in text
    assert not list((tmp_path / "cache").glob("*iceview-jars-*"))  # no resolution reports left


def test_src_builds_no_jars() -> None:
    """iceview takes Iceberg's jars from Maven: nothing in src/ relocates or compiles Java."""
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for word in ("jarjar", "javac", "snowpark"):
            assert word not in text, f"{path} mentions {word}"
