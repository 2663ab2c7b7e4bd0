"""Run single-core tests on cores of N identical instances ("mirror" mode).

Every ``pto.Core(...)`` made without ``batch`` gets ``batch=N``; inputs (``gm_put``,
``tile.set``, ``core.write``) go to every instance, as on any core of N. Each read the test
makes (``tile.numpy()``, ``raw()``, ``ptr.numpy()``, ``core.read``, ``GlobalTensor.numpy()``,
registers) must be byte-identical across the N instances, and is handed to the test as the
single core's value; an instruction whose instances fault must fault in every instance with
the same message, and that fault is raised as the single core raises it. So each test's
goldens (derived from the rules) check every instance of the batched execution byte for byte.
"""
from __future__ import annotations

import contextlib

import numpy as np

import ptogpu as pto
from ptogpu import core as core_mod
from ptogpu import tensor as tensor_mod
from ptogpu import tile as tile_mod
from ptogpu.reg import registers as reg_mod


def _one(core, value):
    """The instances' value, checked equal byte for byte; the single core's view of it."""
    if core is None or not getattr(core, "_mirror", False) or not core.batched:
        return value
    a = np.asarray(value)
    assert a.shape[0] == core.batch, (a.shape, core.batch)
    b = np.ascontiguousarray(a).view(np.uint8).reshape(core.batch, -1)
    bad = np.flatnonzero((b != b[0]).any(axis=1))
    assert bad.size == 0, f"instance {bad[0]} of {core.batch} differs from instance 0"
    return a[0]


@contextlib.contextmanager
def mirrored(n: int):
    Core = core_mod.Core
    saved = {}

    def patch(owner, name, make):
        saved[(owner, name)] = getattr(owner, name)
        setattr(owner, name, make(getattr(owner, name)))

    def init(orig):
        def f(self, *a, batch=None, **kw):
            orig(self, *a, batch=n if batch is None else batch, **kw)
            self._mirror = batch is None
        return f

    def execute(orig):
        def f(self, step, **kw):
            if not getattr(self, "_mirror", False) or self._executing:
                return orig(self, step, **kw)
            orig(self, step, **kw)
            got = {None if e is None else (type(e), str(e)) for e in self.faults}
            if got != {None}:
                assert len(got) == 1, f"instances disagree: {sorted(map(str, got))}"
                e = self.faults[0]
                self.faults = [None] * self.batch   # the single core goes on after a fault
                self.live[:] = True
                raise e
        return f

    def reader(orig, core_of):
        def f(self, *a, **kw):
            return _one(core_of(self), orig(self, *a, **kw))
        return f

    patch(Core, "__init__", init)
    patch(Core, "execute", execute)
    patch(Core, "read", lambda o: reader(o, lambda s: s))
    patch(tile_mod.Tile, "numpy", lambda o: reader(o, lambda s: s.core))
    patch(tensor_mod.GlobalTensor, "numpy", lambda o: reader(o, lambda s: s.core))
    patch(reg_mod.RegTensor, "numpy", lambda o: reader(o, lambda s: s._core))
    patch(reg_mod.RegTensor, "raw", lambda o: reader(o, lambda s: s._core))
    try:
        yield
    finally:
        for (owner, name), v in saved.items():
            setattr(owner, name, v)


__all__ = ["mirrored", "pto"]
