"""A view in a catalog: its handle, its definition, and the changes operations on it make.

* :class:`View` (:mod:`iceview.view.handle`): the handle a catalog returns;
* :class:`ViewDefinition` (:mod:`iceview.view.definition`): what create and replace take;
* :mod:`iceview.view.changes`: every operation as requirements plus updates;
* :mod:`iceview.view.dialects`: translations of a version's SQL into other dialects.
"""

from iceview.view.changes import ViewChange
from iceview.view.definition import DefinitionFields, Queries, ViewDefinition, environment_summary
from iceview.view.dialects import source_representation, translate_representations
from iceview.view.handle import MetadataSource, UpdateViewProperties, View, ViewCommitter

__all__ = [
    "DefinitionFields",
    "MetadataSource",
    "Queries",
    "UpdateViewProperties",
    "View",
    "ViewChange",
    "ViewCommitter",
    "ViewDefinition",
    "environment_summary",
    "source_representation",
    "translate_representations",
]
