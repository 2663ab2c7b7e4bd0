"""Bucketing: each of 64 values is scattered into the slot its position names (TSCATTER: two
values may aim at one slot), then every value reads its slot back (TGATHER), as a hash-table
insert-then-probe does. Fuzz it: ``ptogpu fuzz --kernel examples/bucket_scatter.py:bucket_scatter
--pair a2a3:a5 -n 100000``: where positions collide A2/A3 keeps the later value and A5 the lowest
lane of its vscatter, so the first diverging call is the TSCATTER."""
import ptogpu as pto
import ptogpu.fuzz

ROWS, COLS, SLOTS = 2, 32, 64
V = pto.TileType.Vec


def _gt(dtype, rows, cols):
    return pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, rows, cols], pto.Stride[rows * cols, rows * cols,
                                                                                rows * cols, cols, 1]]


Vals, Pos, Table, Back = _gt(pto.int32, ROWS, COLS), _gt(pto.int32, ROWS, COLS), _gt(pto.int32, 1, SLOTS), \
    _gt(pto.int32, ROWS, COLS)


def bucket_scatter(vals, pos, table, back):
    """vals, pos: __gm__ int32[ROWS * COLS]; table: __gm__ int32[SLOTS]; back: __gm__ int32[ROWS * COLS]."""
    vt = pto.Tile[V, pto.int32, ROWS, COLS]()
    pt = pto.Tile[V, pto.int32, ROWS, COLS]()
    tt = pto.Tile[V, pto.int32, 1, SLOTS]()
    bt = pto.Tile[V, pto.int32, ROWS, COLS]()
    tmp = pto.Tile[V, pto.int32, ROWS, COLS]()
    for t, a in ((vt, 0x0), (pt, 0x100), (tt, 0x200), (bt, 0x300), (tmp, 0x400)):
        pto.TASSIGN(t, a)
    pto.TLOAD(vt, Vals(vals))
    pto.TLOAD(pt, Pos(pos))
    pto.TSCATTER(tt, vt, pt)                 # table[pos[i, j]] = vals[i, j]
    pto.TGATHER(bt, tt, pt, tmp)             # back[i, j] = table[pos[i, j]]
    pto.TSTORE(Table(table), tt)
    pto.TSTORE(Back(back), bt)


FUZZ = dict(
    inputs={"vals": pto.fuzz.values((ROWS, COLS), pto.int32),
            "pos": pto.fuzz.indices((ROWS, COLS), cap=SLOTS, gen="uniform")},
    outputs={"table": (SLOTS, pto.int32), "back": (ROWS * COLS, pto.int32)},
    pair="a2a3:a5",
)
