"""Store order where it decides the bytes: destination rows that share storage (a dynamic valid
col beyond the tile's Cols) and Row index reads that run past the index tile into the
destination. Each target follows its own order (docs/mgather.md, "Store order"); the
expected bytes come from per-element models of those orders written here over a bytearray,
and numpy and native must both give them."""
import numpy as np
import pytest

import ptogpu as pto

BACKENDS = ["numpy", "native"]
V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
SENT = 0xAB
ROWS = 64


def _core(target, backend):
    core = pto.Core(target, backend)
    core.write("ub", 0, np.full(0x4000, SENT, np.uint8))
    return core


def _table(core, cols, dynamic=False):
    vals = (np.arange(ROWS * cols, dtype=np.int32) * 7 + 3)
    if not dynamic:
        T = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, ROWS, 64], pto.Stride[1, 1, 1, 64, 1]]
        return T(core.gm_put(vals)), vals
    T = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, ROWS, -1], pto.Stride[1, 1, 1, -1, 1]]
    return T(core.gm_put(vals), pto.Shape[1, 1, 1, ROWS, -1](cols),
             pto.Stride[1, 1, 1, -1, 1](cols)), vals


def _put(mem, addr, v):
    mem[addr:addr + 4] = int(np.int32(v).view(np.uint32)).to_bytes(4, "little")


def _run_row(target, backend, vr, vc, cols, rows_idx, pitch):
    core = _core(target, backend)
    with core:
        table, vals = _table(core, vc, dynamic=True) if target == "a5" else _table(core, 64)
        dst = pto.Tile[V, pto.int32, 8, cols, RM, -1, -1](vr, vc)
        idx = pto.Tile[V, pto.int32, 1, 8, RM, 1, -1](vr)
        pto.TASSIGN(idx, 0x3000)
        pto.TASSIGN(dst, 0x100)
        idx.set(np.array([rows_idx], np.int32))
        pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Zero](dst, table, idx)
        return core.read("ub", 0, 0x1000).tobytes(), vals


ROW_CASES = [(8, 40, 16), (8, 100, 32), (6, 64, 8), (4, 24, 16)]
ROW_IDX = [1, 70, 3, 4, 99, 6, 7, 8]            # 70 and 99 are out of range: Zero rows


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("vr,vc,cols", ROW_CASES)
def test_a2a3_row_overlapping_dst_rows_row_after_row(backend, vr, vc, cols):
    """A2/A3 Row is a loop: row r is one DMA burst (its VC elements, then the bytes up to the
    next 32-byte boundary filled with the burst's first element) or, for a Zero row, VC zeros
    stored by the scalar unit; row r+1 comes after row r."""
    got, vals = _run_row("a2a3", backend, vr, vc, cols, ROW_IDX[:vr], 64)
    mem = bytearray([SENT]) * 0x1000
    for r in range(vr):
        base, u = 0x100 + 4 * r * cols, ROW_IDX[r]
        if u >= ROWS:
            for c in range(vc):
                _put(mem, base + 4 * c, 0)
            continue
        row = vals[u * 64:u * 64 + vc]
        for c in range(vc):
            _put(mem, base + 4 * c, row[c])
        for c in range(vc, -(-vc * 4 // 32) * 8):
            _put(mem, base + 4 * c, row[0])
    assert got == bytes(mem)


def _a5_row_model(vr, vc, cols, rows_idx, vals):
    """The A5 Row launch, warp after warp, lanes in lock-step: warp w takes rows w % rw + k*rw
    and columns (w // rw)*32 + lane + j*wpr*32 (rw = min(VR, 32), wpr = max(1, min(32 // rw,
    ceil(VC / 32)))); the source row is table + uint32(u * VC)."""
    mem = bytearray([SENT]) * 0x1000
    rw = min(vr, 32)
    wpr = max(1, min(32 // rw, -(-vc // 32)))
    for w in range(rw * wpr):
        for row in range(w % rw, vr, rw):
            u = rows_idx[row]
            for col0 in range((w // rw) * 32, vc, wpr * 32):
                for lane in range(32):
                    c = col0 + lane
                    if c < vc:
                        v = vals[u * vc + c] if u < ROWS else 0
                        _put(mem, 0x100 + 4 * (row * cols + c), v)
    return bytes(mem)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("vr,vc,cols", ROW_CASES)
def test_a5_row_overlapping_dst_rows_follow_the_lockstep_schedule(backend, vr, vc, cols):
    got, vals = _run_row("a5", backend, vr, vc, cols, ROW_IDX[:vr], vc)
    assert got == _a5_row_model(vr, vc, cols, ROW_IDX[:vr], vals)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_elem_overlapping_dst_rows_follow_each_targets_order(target, backend):
    """Elem, 8 x 200 valid cells in 8 x 32 storage (1600 > 1024 threads: two rounds on A5).
    Scalar loops go row-major; A5 goes warp after warp (warp w's rounds k: elements
    (k*warps + w)*32 + lane), so warp 0's second round is stored before warp 1's first."""
    vr, vc, cols = 8, 200, 32
    rng = np.random.default_rng(5)
    ii = rng.integers(0, ROWS * 64, (vr, vc)).astype(np.int32)
    core = _core(target, backend)
    with core:
        table, vals = _table(core, 64)
        dst = pto.Tile[V, pto.int32, 8, cols, RM, -1, -1](vr, vc)
        idx = pto.Tile[V, pto.int32, 8, 256, RM, -1, -1](vr, vc)
        pto.TASSIGN(dst, 0x100)
        pto.TASSIGN(idx, 0x8000)
        idx.set(ii)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        got = core.read("ub", 0, 0x1000).tobytes()
    mem = bytearray([SENT]) * 0x1000
    flat = ii.ravel()
    if target == "a5":
        total = vr * vc
        warps = min(32, -(-total // 32))
        order = [(k * warps + w) * 32 + lane for w in range(warps)
                 for k in range(-(-total // (32 * warps))) for lane in range(32)]
        order = [i for i in order if i < total]
    else:
        order = range(vr * vc)
    for i in order:
        r, c = divmod(i, vc)
        _put(mem, 0x100 + 4 * (r * cols + c), vals[flat[i]])
    assert got == bytes(mem)
    rowmajor = bytearray([SENT]) * 0x1000
    for i in range(vr * vc):
        r, c = divmod(i, vc)
        _put(rowmajor, 0x100 + 4 * (r * cols + c), vals[flat[i]])
    assert (bytes(mem) != bytes(rowmajor)) == (target == "a5")   # the orders really differ


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_row_indices_read_past_the_index_tile_into_dst(target, backend):
    """A [1, 8] index tile with a dynamic valid col of 16 lies just before dst: rows 8..15
    read their indices from dst row 0, which the loop has written by then."""
    core = _core(target, backend)
    with core:
        vals = np.arange(ROWS * 16, dtype=np.int32) % 29
        T = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, ROWS, 16], pto.Stride[1, 1, 1, 16, 1]]
        table = T(core.gm_put(vals))
        dst = pto.Tile[V, pto.int32, 16, 16, RM, 16, 16]()
        idx = pto.Tile[V, pto.int32, 1, 8, RM, 1, -1](16)
        pto.TASSIGN(idx, 0x0)
        pto.TASSIGN(dst, 0x20)
        first = [3, 1, 4, 1, 5, 9, 2, 6]
        core.write("ub", 0, np.array(first, np.int32).view(np.uint8))
        mem = bytearray(core.read("ub", 0, 0x800).tobytes())
        pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Clamp](dst, table, idx)
        got = core.read("ub", 0, 0x800).tobytes()
    for r in range(16):
        u = min(int.from_bytes(mem[4 * r:4 * r + 4], "little"), ROWS - 1)
        for c in range(16):
            _put(mem, 0x20 + 4 * (r * 16 + c), vals[u * 16 + c])
    assert got == bytes(mem)
