#!/usr/bin/env python3
"""Download Iceberg's Spark runtime and the JDBC drivers from Maven into iceview's Ivy cache (the one
``spark.jars.ivy`` points Spark at), so the first Spark start need not, and print the jar files.
``scripts/setup.sh`` runs it; the logic is the library's own ``iceview.spark.jars``.

usage: .venv/bin/python scripts/iceberg_jars.py [--iceberg-version V] [--conf]

The Iceberg version is --iceberg-version, else $ICEVIEW_ICEBERG_VERSION, else 1.10.2; the cache is
$ICEVIEW_IVY_DIR, else ~/.cache/iceview/ivy.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from iceview.spark.jars import MissingJarsError, runtime_jars, spark_conf


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--iceberg-version", help="Iceberg release (default: $ICEVIEW_ICEBERG_VERSION or 1.10.2)"
    )
    parser.add_argument(
        "--conf", action="store_true", help="print the Spark conf (spark.jars.packages, spark.jars.ivy) too"
    )
    args = parser.parse_args(argv)
    try:
        jars = runtime_jars(args.iceberg_version)
        conf = spark_conf(args.iceberg_version)
    except (MissingJarsError, ValueError) as e:
        print(f"iceberg_jars.py: {e}", file=sys.stderr)
        return 1
    for jar in jars:
        print(jar)
    if args.conf:
        for key, value in conf.items():
            print(f"{key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
