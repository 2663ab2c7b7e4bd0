"""A ``.pto`` file as a campaign's program: ``path.pto[:func]`` (the module's only or
``pto.entry`` function when unnamed), its buffers read from the function or from
``path.fuzz.py`` (``ptoir.buffers``)."""
from __future__ import annotations

import os

from ..execution.program import Program
from .buffers import buffers, sidecar
from .run import PtoKernel, load_file


def is_pto(ref: str) -> bool:
    """``ref`` names a PTO IR kernel (``FILE.pto`` or ``FILE.pto:FUNC``)."""
    return ref.endswith(".pto") or ref.rpartition(":")[0].endswith(".pto")


def load(ref: str) -> Program:
    """The program of ``path.pto[:func]``; ValueError (a PtoIRError) where it cannot run."""
    path, _, name = (ref, "", "") if ref.endswith(".pto") else ref.rpartition(":")
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"kernel {ref!r}: no file {path}")
    side = sidecar(path)
    kernel = load_file(path, name or None, (side or {}).get("scalars"))
    return program(kernel, path, side=side)


def program(kernel: PtoKernel, path: str | None = None, pair: str | None = None,
            side: dict | None = None) -> Program:
    """``kernel`` with its buffers (read from it, each of ``side``, ``path``'s sidecar, replacing
    one)."""
    fz = buffers(kernel, path, side)
    ref = f"{path}:{kernel.func.name}" if path else kernel.ref
    return Program(kernel, dict(fz["inputs"]), dict(fz["outputs"]), dict(fz["fixed"]), ref,
                   str(pair or fz.get("pair", "cpu:a5")))
