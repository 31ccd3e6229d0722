"""The version string of iceview (kept apart so that every layer can import it without a cycle)."""

__version__ = "0.1.0"
