"""Kernels the tests fuzz: one with a planted divergence (on a SIMT target its second gather
reads one element further on: no rule field predicts it), and ones that misbehave."""
import numpy as np

import ptogpu as pto
import ptogpu.fuzz
from ptogpu.core import current_core

V = pto.TileType.Vec
Idx = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
Tab = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
Out = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]


def planted(table, ids, out):
    it, a, b = pto.Tile[V, pto.int32, 1, 8](), pto.Tile[V, pto.float32, 1, 8](), pto.Tile[V, pto.float32, 1, 8]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(a, 0x100)
    pto.TASSIGN(b, 0x200)
    pto.TLOAD(it, Idx(ids))
    gather = pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp]
    gather(a, Tab(table), it)
    shift = 1 if current_core().target.mgather.simt else 0      # the planted bug
    gather(b, Tab(table + shift), it)
    pto.TSTORE(Out(out), b)


def raises(table, ids, out):
    it = pto.Tile[V, pto.int32, 1, 8]()
    pto.TASSIGN(it, 0)
    pto.TLOAD(it, Idx(ids))
    return {}["no such key"]                    # an exception that is not ptogpu's


CALLS = [0]


def raises_later(table, ids, out):
    CALLS[0] += 1
    if CALLS[0] > 12:
        raise RuntimeError("the kernel gave up")
    planted(table, ids, out)


def returns(table, ids, out):
    return 1


def loops(table, ids, out):
    while True:
        pass


def strays(table, ids, out):
    t = pto.Tile[V, pto.float32, 1, 8]()
    pto.TASSIGN(t, 0x100)
    t.set(np.ones((1, 8), np.float32))
    pto.TSTORE(Out(out + 8), t)                 # 32 bytes past `out`: the gap after it


def strays_early(table, ids, out):
    t = pto.Tile[V, pto.float32, 1, 8]()
    pto.TASSIGN(t, 0x100)
    t.set(np.ones((1, 8), np.float32))
    pto.TSTORE(Out(out + 8), t)                 # the stray write: the first call
    pto.TSTORE(Out(out), t)                     # a later call, inside its buffer


def exits(table, ids, out):
    raise SystemExit(3)


_BUFS = dict(inputs={"ids": pto.fuzz.indices(8, cap=64, gen="uniform")},
             outputs={"out": (8, pto.float32)},
             fixed={"table": np.arange(64, dtype=np.float32)}, pair="cpu:a5")
FUZZ = {name: _BUFS for name in ("planted", "raises", "raises_later", "returns", "loops", "strays", "strays_early",
                                 "exits")}
