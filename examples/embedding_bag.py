"""Embedding-bag lookup: each instance's 16 token ids select rows of a 1000 x 64 float32
table (MGATHER Row), and the 16 rows are stored out. Fuzz it: ``ptogpu fuzz --kernel
examples/embedding_bag.py:embedding_bag --pair cpu:a5 -n 100000``."""
import numpy as np

import ptogpu as pto
import ptogpu.fuzz

VOCAB, DIM, BAG = 1000, 64, 16
V = pto.TileType.Vec

Ids = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, BAG], pto.Stride[BAG, BAG, BAG, BAG, 1]]
Table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, VOCAB, DIM], pto.Stride[VOCAB * DIM, VOCAB * DIM,
                                                                                     VOCAB * DIM, DIM, 1]]
Out = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, BAG, DIM], pto.Stride[BAG * DIM, BAG * DIM,
                                                                                BAG * DIM, DIM, 1]]


def embedding_bag(ids, table, out):
    """ids: __gm__ int32[BAG]; table: __gm__ float32[VOCAB * DIM]; out: __gm__ float32[BAG * DIM]."""
    it = pto.Tile[V, pto.int32, 1, BAG]()
    rows = pto.Tile[V, pto.float32, BAG, DIM]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(rows, 0x100)
    pto.TLOAD(it, Ids(ids))
    pto.MGATHER[pto.Coalesce.Row](rows, Table(table), it)
    pto.TSTORE(Out(out), rows)


FUZZ = dict(
    inputs={"ids": pto.fuzz.indices(BAG, cap=VOCAB)},                      # mixed: in range, OOB, negative, ...
    outputs={"out": (BAG * DIM, pto.float32)},
    fixed={"table": (np.arange(VOCAB * DIM) % 997).astype(np.float32) / 8},
    pair="cpu:a5",
)
