"""PTO IR (the ``pto`` MLIR dialect of PTOAS): read a module (``parse``), run one of its
functions as a kernel on the current core (``load_text`` / ``load_file``: a callable taking its
pointer arguments by name, as a Python kernel does), write a module back as text
(``module_text``). docs/ptoir.md lists the ops and what each becomes."""
from .printer import module_text
from .run import PtoKernel, load_file, load_text
from .syntax import Module, parse

__all__ = ["parse", "module_text", "load_text", "load_file", "PtoKernel", "Module"]
