"""Vendor code ports line for line: pipe sync calls are checked no-ops, every instruction takes
trailing wait events and returns a RecordEvent, and deduced template arguments can be given."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu import reg

V = pto.TileType.Vec


def test_pipe_and_event_values_are_cann_s():
    assert [pto.PIPE_S, pto.PIPE_V, pto.PIPE_M, pto.PIPE_MTE1, pto.PIPE_MTE2, pto.PIPE_MTE3,
            pto.PIPE_ALL, pto.PIPE_FIX] == [0, 1, 2, 3, 4, 5, 6, 10]
    assert [int(getattr(pto, f"EVENT_ID{k}")) for k in range(8)] == list(range(8))


def test_sync_calls_are_checked_no_ops():
    with pto.Core("a5", "numpy") as core:
        before = core.read("ub", 0, 1024).tobytes()
        pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)
        pto.pipe_barrier(pto.PIPE_ALL)
        assert core.read("ub", 0, 1024).tobytes() == before
        with pytest.raises(pto.PtoCheckError, match="event_t"):
            pto.set_flag(pto.PIPE_MTE2, pto.PIPE_V, 3)
        with pytest.raises(pto.PtoCheckError, match="pipe_t"):
            pto.pipe_barrier(pto.EVENT_ID1)


def test_every_instruction_takes_wait_events_and_returns_one():
    with pto.Core("a5", "numpy") as core:
        vals = np.arange(64, dtype=np.float32)
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 8, 8], pto.Stride[64, 64, 64, 8, 1]]
        table = G(core.gm_put(vals))
        I = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        gidx = I(core.gm_put(np.arange(8, dtype=np.int32)[::-1].copy()))
        idx = pto.Tile[V, pto.int32, 1, 8]()
        dst = pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(idx, 0x0)
        pto.TASSIGN(dst, 0x100)
        e1 = pto.TLOAD(idx, gidx)
        e2 = pto.MGATHER[pto.Coalesce.Elem](dst, table, idx, e1)
        e3 = pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx, e1, e2)   # several waits
        out = G(core.gm_alloc(64, pto.float32))
        sub = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]](out.data())
        e4 = pto.TSTORE(sub, dst, e3)
        assert core.read("gm", out.addr, 32).view(np.float32).tolist() == list(range(7, -1, -1))
        src = pto.Tile[V, pto.float32, 1, 64]()
        off = pto.Tile[V, pto.uint32, 1, 8]()
        blk = pto.Tile[V, pto.float32, 1, 64]()
        for t, a in ((src, 0x200), (off, 0x400), (blk, 0x500)):
            pto.TASSIGN(t, a)
        src.set(vals[None])
        off.set(np.array([[32 * k for k in range(8)]], np.uint32))
        e5 = pto.TGATHERB(blk, src, off, e4)
        e6 = pto.TGATHERB[type(blk), type(src), type(off)](blk, src, off, e5)
        assert blk.numpy().tolist() == src.numpy().tolist()
        T = pto.Tile[V, pto.int16, 1, 32]
        s0, s1, d0, d1, s2 = T(), T(), T(), T(), pto.Tile[V, pto.int16, 1, 64]()
        for k, t in enumerate((s0, s1, d0, d1, s2)):
            pto.TASSIGN(t, 0x1000 + 0x100 * k)
        s0.set(np.arange(32, dtype=np.int16)[None])
        s1.set(np.arange(32, 64, dtype=np.int16)[None])
        e7 = pto.TINTERLEAVE(d1, d0, s1, s0, e6)
        s2.set(np.arange(64, dtype=np.int16)[None])
        e8 = pto.TDEINTERLEAVE(d1, d0, s2, e7)                 # the one-source form, then a wait
        assert d0.numpy().tolist() == [list(range(0, 64, 2))]
        events = [e1, e2, e3, e4, e5, e6, e7, e8]
        assert all(isinstance(e, pto.RecordEvent) for e in events)
        assert [e.seq for e in events] == sorted(e.seq for e in events)
        assert [e.instruction for e in events] == ["TLOAD", "MGATHER", "MGATHER", "TSTORE", "TGATHERB",
                                                   "TGATHERB", "TINTERLEAVE", "TDEINTERLEAVE"]


def test_a_trailing_event_never_becomes_the_scratch_operand():
    """GM->L1 Elem on A5 takes a scratch; an event after it is a wait, and an event where the
    scratch belongs is a wait too: the call runs exactly as without it."""
    with pto.Core("a5", "numpy") as core:
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
        table = G(core.gm_put(np.arange(64, dtype=np.float32)))
        I = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 16, 8], pto.Stride[128, 128, 128, 8, 1]]
        gidx = I(core.gm_put(np.zeros(128, np.int32)))
        dst = pto.Tile[pto.TileType.Mat, pto.float32, 16, 8, pto.BLayout.ColMajor, 16, 8, pto.SLayout.RowMajor, 512]()
        pto.TASSIGN(dst, 0)
        S = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 128], pto.Stride[128, 128, 128, 128, 1]]
        scratch = S(core.gm_alloc(128, pto.float32))
        ev = pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, gidx, scratch)
        ev2 = pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, gidx, scratch, ev)
        assert isinstance(ev2, pto.RecordEvent)
        f = pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp]
        outcomes = []
        for args in ((dst, table, gidx, ev), (dst, table, gidx)):    # the event is only a wait
            core.write("l1", 0, np.zeros(512, np.uint8))
            try:
                f(*args)
                outcomes.append(core.read("l1", 0, 512).tobytes())
            except pto.PtoError as e:
                outcomes.append(str(e))
        assert outcomes[0] == outcomes[1]


def test_explicit_template_arguments_must_match_the_operands():
    with pto.Core("a5", "numpy") as core:
        src = pto.Tile[V, pto.float32, 1, 64]()
        off = pto.Tile[V, pto.uint32, 1, 8]()
        blk = pto.Tile[V, pto.float32, 1, 64]()
        for t, a in ((src, 0x200), (off, 0x400), (blk, 0x500)):
            pto.TASSIGN(t, a)
        off.set(np.zeros((1, 8), np.uint32))
        with pytest.raises(pto.PtoCheckError, match="TileDataSrc"):
            pto.TGATHERB[type(blk), type(off)](blk, src, off)
        core.write("ub", 0x8000, np.arange(64, dtype=np.float32))
        core.write("ub", 0x20000, np.arange(64, dtype=np.uint32)[::-1].copy())
        ir = reg.RegTensor[pto.uint32]()
        reg.LoadAlign(ir, core.ub_ptr(0x20000, pto.uint32))
        m, _ = reg.UpdateMask[pto.float32](64)
        d = reg.RegTensor[pto.float32]()
        reg.Gather[pto.float32](d, core.ub_ptr(0x8000, pto.float32), ir, m)
        assert d.numpy().tolist() == list(range(63, -1, -1))
        reg.Gather[pto.float32, pto.float32, pto.uint32](d, core.ub_ptr(0x8000, pto.float32), ir, m)
        with pytest.raises(pto.PtoCheckError, match="T0 = half"):
            reg.Gather[pto.half](d, core.ub_ptr(0x8000, pto.float32), ir, m)


def test_vendor_style_events_are_waits_and_a_non_event_is_a_check_error():
    """The vendor's kernels declare ``Event<Op::TAND, Op::TSTORE_VEC> event1;`` and pass it:
    every instruction takes it as a wait; any other trailing argument does not compile."""
    with pto.Core("a5", "numpy") as core:
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        I = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        g = G(core.gm_put(np.arange(8, dtype=np.float32)))
        gi = I(core.gm_put(np.arange(8, dtype=np.int32)))
        t, it = pto.Tile[V, pto.float32, 1, 8](), pto.Tile[V, pto.int32, 1, 8]()
        pto.TASSIGN(t, 0)
        pto.TASSIGN(it, 0x100)
        e0 = pto.Event[pto.Op.TLOAD, pto.Op.TAND]()
        e1 = pto.Event[pto.Op.TAND, pto.Op.TSTORE_VEC]()
        assert isinstance(pto.TLOAD(it, gi, e0), pto.RecordEvent)
        gather, scatter = pto.MGATHER[pto.Coalesce.Elem], pto.MSCATTER[pto.Coalesce.Elem]
        assert isinstance(gather(t, g, it, e0, e1), pto.RecordEvent)
        assert isinstance(scatter(g, t, it, e1), pto.RecordEvent)
        assert isinstance(pto.TSTORE(g, t, e1), pto.RecordEvent)
        assert core.read("gm", g.addr, 32).view(np.float32).tolist() == list(range(8))
        calls = [lambda x: pto.TLOAD(it, gi, x), lambda x: pto.TSTORE(g, t, x),
                 lambda x: gather(t, g, it, e0, x, e1), lambda x: scatter(g, t, it, x)]
        for call in calls:
            for bad in (pto.EVENT_ID0, 3):
                with pytest.raises(pto.PtoCheckError, match="wait event"):
                    call(bad)
        with pytest.raises(pto.PtoCheckError, match="Event template"):
            pto.Event[pto.PIPE_V, pto.Op.TAND]
