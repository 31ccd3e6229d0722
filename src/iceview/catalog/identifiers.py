"""Kept for imports written before identifiers moved to :mod:`iceview.identifiers`."""

from iceview.identifiers import (
    IdentifierLike,
    NamespaceLike,
    ViewIdentifier,
    namespace_to_string,
    string_to_namespace,
    to_identifier,
    to_namespace,
)

__all__ = [
    "IdentifierLike",
    "NamespaceLike",
    "ViewIdentifier",
    "namespace_to_string",
    "string_to_namespace",
    "to_identifier",
    "to_namespace",
]
