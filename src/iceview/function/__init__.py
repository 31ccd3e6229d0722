"""A SQL UDF in a catalog: its handle and the changes operations on it make.

* :class:`Function` (:mod:`iceview.function.handle`): the handle a catalog returns;
* :class:`NewDefinition`: a signature with its return type and first body, what create and
  ``add_definition`` take;
* :mod:`iceview.function.changes`: every operation as requirements plus updates.

The metadata format itself is :mod:`iceview.udf`.
"""

from iceview.function.changes import FunctionChange, NewDefinition
from iceview.function.handle import Function, FunctionCommitter, FunctionSource

__all__ = ["Function", "FunctionChange", "FunctionCommitter", "FunctionSource", "NewDefinition"]
