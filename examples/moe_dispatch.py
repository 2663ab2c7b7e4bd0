"""Mixture-of-experts dispatch and combine: each of 8 tokens (rows of 32 float32) is scattered
into the expert buffer row its router chose, MSCATTER Row with Add (tokens routed to one row
add up), then every token reads its row back (MGATHER Row). Fuzz it: ``ptogpu fuzz --kernel
examples/moe_dispatch.py:moe_dispatch --pair cpu:a5 -n 100000``."""
import ptogpu as pto
import ptogpu.fuzz

TOKENS, DIM, SLOTS = 8, 32, 16
V = pto.TileType.Vec


def _gt(dtype, rows, cols):
    return pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, rows, cols], pto.Stride[rows * cols, rows * cols,
                                                                                rows * cols, cols, 1]]


X, Route, Buf, Y = _gt(pto.float32, TOKENS, DIM), _gt(pto.int32, 1, TOKENS), _gt(pto.float32, SLOTS, DIM), \
    _gt(pto.float32, TOKENS, DIM)


def moe_dispatch(x, route, buf, y):
    """x: __gm__ float32[TOKENS * DIM]; route: __gm__ int32[TOKENS] (a buffer row per token);
    buf: __gm__ float32[SLOTS * DIM] (the experts' buffer, zeros); y: __gm__ float32[TOKENS * DIM]."""
    xt = pto.Tile[V, pto.float32, TOKENS, DIM]()
    rt = pto.Tile[V, pto.int32, 1, TOKENS]()
    yt = pto.Tile[V, pto.float32, TOKENS, DIM]()
    pto.TASSIGN(xt, 0)
    pto.TASSIGN(rt, 0x400)
    pto.TASSIGN(yt, 0x800)
    pto.TLOAD(xt, X(x))
    pto.TLOAD(rt, Route(route))
    pto.MSCATTER[pto.Coalesce.Row, pto.ScatterAtomicOp.Add, pto.ScatterOOB.Skip](Buf(buf), xt, rt)
    pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Clamp](yt, Buf(buf), rt)
    pto.TSTORE(Y(y), yt)


FUZZ = dict(
    inputs={"x": pto.fuzz.values((TOKENS, DIM), pto.float32),
            "route": pto.fuzz.indices(TOKENS, cap=SLOTS)},
    outputs={"buf": (SLOTS * DIM, pto.float32), "y": (TOKENS * DIM, pto.float32)},
    pair="cpu:a5",
)
