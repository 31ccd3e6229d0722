#!/usr/bin/env python3
"""Build the relocated jars that PyPI's Iceberg 1.10.2 Spark runtime lacks, and print the jars to
put on ``spark.jars``. ``scripts/setup.sh`` runs it; the logic is the library's own
``iceview.spark.jars`` (Jackson, and HttpClient 5 for Iceberg's REST client, ``type=rest``).

usage: .venv/bin/python scripts/iceberg_jars.py [--out DIR] [--force]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from iceview.spark.jars import (
    MissingJarsError,
    build_shaded_httpclient5,
    build_shaded_jackson,
    default_jars_dir,
    runtime_jars,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--out", type=Path, default=default_jars_dir(), help="where to build (default: .cache/jars)"
    )
    parser.add_argument("--force", action="store_true", help="rebuild the relocated jars even if present")
    args = parser.parse_args(argv)
    try:
        if args.force:
            build_shaded_jackson(args.out, force=True)
            build_shaded_httpclient5(args.out, force=True)
        jars = runtime_jars(args.out, build=True, rest_client=True)
    except (MissingJarsError, RuntimeError) as e:
        print(f"iceberg_jars.py: {e}", file=sys.stderr)
        return 1
    for jar in jars:
        print(jar)
    return 0


if __name__ == "__main__":
    sys.exit(main())
