"""A CSR (ELL-padded) gather-multiply, double-buffered: y[j] = vals[j] * x[cols[j]] for every
stored non-zero j, block by block, with the ping-pong pipeline of the vendor's
demos/baseline/add (TLOAD on MTE2, TGATHER and TMUL on V, TSTORE on MTE3, each hand-off a
set_flag / wait_flag pair). The vendor has no CSR kernel; this is the C++ we ported, line for
line (the same tiles, calls and order):

    template <unsigned ROWS, unsigned K, unsigned BLOCKS, unsigned XLEN>
    AICORE void runCsrGather(__gm__ float* y, __gm__ float* vals, __gm__ int32_t* cols, __gm__ float* x)
    {
        using XTile = Tile<TileType::Vec, float, 1, XLEN>;
        using ColTile = Tile<TileType::Vec, int32_t, ROWS, K>;
        using ValTile = Tile<TileType::Vec, float, ROWS, K>;
        using BlockShape = Shape<1, 1, 1, ROWS, K>;
        using BlockStride = Stride<1, 1, 1, K, 1>;
        GlobalTensor<float, Shape<1, 1, 1, 1, XLEN>, Stride<1, 1, 1, XLEN, 1>> xGlobal(x);
        GlobalTensor<float, BlockShape, BlockStride> valsGlobal(vals), yGlobal(y);
        GlobalTensor<int32_t, BlockShape, BlockStride> colsGlobal(cols);
        XTile xTile;  ColTile tmp;
        ColTile colTiles[2];  ValTile valTiles[2], gTiles[2], yTiles[2];
        TASSIGN(xTile, 0x0);  TASSIGN(tmp, 0x1000);
        TASSIGN(colTiles[0], 0x2000);  TASSIGN(colTiles[1], 0x3000);  ... (valTiles 0x4000.., gTiles 0x6000.., yTiles 0x8000..)
        TLOAD(xTile, xGlobal);
        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  set_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
        int pp = 0;
        for (unsigned b = 0; b < BLOCKS; ++b) {
            TASSIGN(valsGlobal, vals + b * ROWS * K);  TASSIGN(colsGlobal, cols + b * ROWS * K);
            TASSIGN(yGlobal, y + b * ROWS * K);
            wait_flag(PIPE_V, PIPE_MTE2, (event_t)pp);
            TLOAD(colTiles[pp], colsGlobal);  TLOAD(valTiles[pp], valsGlobal);
            set_flag(PIPE_MTE2, PIPE_V, (event_t)pp);  wait_flag(PIPE_MTE2, PIPE_V, (event_t)pp);
            wait_flag(PIPE_MTE3, PIPE_V, (event_t)pp);
            TGATHER(gTiles[pp], xTile, colTiles[pp], tmp);
            TMUL(yTiles[pp], valTiles[pp], gTiles[pp]);
            set_flag(PIPE_V, PIPE_MTE2, (event_t)pp);  set_flag(PIPE_V, PIPE_MTE3, (event_t)pp);
            wait_flag(PIPE_V, PIPE_MTE3, (event_t)pp);
            TSTORE(yGlobal, yTiles[pp]);
            set_flag(PIPE_MTE3, PIPE_V, (event_t)pp);
            pp = 1 - pp;
        }
        wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);  wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);
        wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);  wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID1);
    }

Fuzz it: ``ptogpu fuzz --kernel examples/csr_gather.py:csr_gather --pair cpu:a5 -n 2000``: a column
index outside x reads 0 on the simulator and UB past x on the NPUs (TGATHER's out-of-src0 rule).
"""
import numpy as np

import ptogpu as pto
import ptogpu.fuzz

ROWS, K, BLOCKS, XLEN = 4, 16, 4, 256
V = pto.TileType.Vec
XTile = pto.Tile[V, pto.float32, 1, XLEN]
ColTile = pto.Tile[V, pto.int32, ROWS, K]
ValTile = pto.Tile[V, pto.float32, ROWS, K]
BlockShape, BlockStride = pto.Shape[1, 1, 1, ROWS, K], pto.Stride[1, 1, 1, K, 1]
XGT = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, XLEN], pto.Stride[1, 1, 1, XLEN, 1]]
ValGT = pto.GlobalTensor[pto.float32, BlockShape, BlockStride]
ColGT = pto.GlobalTensor[pto.int32, BlockShape, BlockStride]
PIPE_V, PIPE_MTE2, PIPE_MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3
EVENTS = (pto.EVENT_ID0, pto.EVENT_ID1)


def csr_gather(y, vals, cols, x):
    """y, vals, x: __gm__ float*; cols: __gm__ int32_t*."""
    xGlobal = XGT(x)
    valsGlobal, yGlobal = ValGT(vals), ValGT(y)
    colsGlobal = ColGT(cols)
    xTile, tmp = XTile(), ColTile()
    colTiles = [ColTile(), ColTile()]
    valTiles, gTiles, yTiles = [ValTile(), ValTile()], [ValTile(), ValTile()], [ValTile(), ValTile()]
    pto.TASSIGN(xTile, 0x0)
    pto.TASSIGN(tmp, 0x1000)
    for k in range(2):
        pto.TASSIGN(colTiles[k], 0x2000 + 0x1000 * k)
        pto.TASSIGN(valTiles[k], 0x4000 + 0x1000 * k)
        pto.TASSIGN(gTiles[k], 0x6000 + 0x1000 * k)
        pto.TASSIGN(yTiles[k], 0x8000 + 0x1000 * k)
    pto.TLOAD(xTile, xGlobal)
    pto.set_flag(PIPE_V, PIPE_MTE2, pto.EVENT_ID0)
    pto.set_flag(PIPE_V, PIPE_MTE2, pto.EVENT_ID1)
    pto.set_flag(PIPE_MTE3, PIPE_V, pto.EVENT_ID0)
    pto.set_flag(PIPE_MTE3, PIPE_V, pto.EVENT_ID1)
    pp = 0
    for b in range(BLOCKS):
        pto.TASSIGN(valsGlobal, vals + b * ROWS * K)
        pto.TASSIGN(colsGlobal, cols + b * ROWS * K)
        pto.TASSIGN(yGlobal, y + b * ROWS * K)
        pto.wait_flag(PIPE_V, PIPE_MTE2, EVENTS[pp])
        pto.TLOAD(colTiles[pp], colsGlobal)
        pto.TLOAD(valTiles[pp], valsGlobal)
        pto.set_flag(PIPE_MTE2, PIPE_V, EVENTS[pp])
        pto.wait_flag(PIPE_MTE2, PIPE_V, EVENTS[pp])
        pto.wait_flag(PIPE_MTE3, PIPE_V, EVENTS[pp])
        pto.TGATHER(gTiles[pp], xTile, colTiles[pp], tmp)
        pto.TMUL(yTiles[pp], valTiles[pp], gTiles[pp])
        pto.set_flag(PIPE_V, PIPE_MTE2, EVENTS[pp])
        pto.set_flag(PIPE_V, PIPE_MTE3, EVENTS[pp])
        pto.wait_flag(PIPE_V, PIPE_MTE3, EVENTS[pp])
        pto.TSTORE(yGlobal, yTiles[pp])
        pto.set_flag(PIPE_MTE3, PIPE_V, EVENTS[pp])
        pp = 1 - pp
    pto.wait_flag(PIPE_V, PIPE_MTE2, pto.EVENT_ID0)
    pto.wait_flag(PIPE_V, PIPE_MTE2, pto.EVENT_ID1)
    pto.wait_flag(PIPE_MTE3, PIPE_V, pto.EVENT_ID0)
    pto.wait_flag(PIPE_MTE3, PIPE_V, pto.EVENT_ID1)


NNZ = BLOCKS * ROWS * K
FUZZ = dict(
    inputs={"cols": pto.fuzz.indices(NNZ, cap=XLEN),                       # in range, OOB, negative, ...
            "vals": pto.fuzz.values(NNZ, pto.float32, gen="small")},
    outputs={"y": (NNZ, pto.float32)},
    fixed={"x": (np.arange(XLEN, dtype=np.float32) + 1) / 4},
    pair="cpu:a5",
)
