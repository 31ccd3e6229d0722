"""``python -m iceview.cli``."""

from iceview.cli import main

main()
