"""Aliasing dst and index tiles on the scalar-loop targets (CPU simulator, A2/A3): the loop
reads each index just before its stores, so a later index load sees an earlier store
(ARCHITECTURE.md: overlapping tiles alias as on hardware). The expected bytes come from a
per-element model of the reference loops written here, over a plain bytearray."""
import numpy as np
import pytest

import ptogpu as pto

BACKENDS = ["numpy", "native"]
TABLE = (np.arange(64, dtype=np.int32) * 2 + 1)


def _table(core):
    T = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 8, 8], pto.Stride[64, 64, 64, 8, 1]]
    return T(core.gm_put(TABLE))


def _u32(mem: bytearray, addr: int) -> int:
    return int.from_bytes(mem[addr:addr + 4], "little")


def _put(mem: bytearray, addr: int, v: int) -> None:
    mem[addr:addr + 4] = int(np.int32(v).view(np.uint32)).to_bytes(4, "little")


def _model_elem(mem, idx_addr, dst_addr, rows, cols, cap, oob):
    """A2/A3 §6.5 / CPU §4 Elem loop, row-major, one element at a time (u32 cast; the CPU
    simulator's size_t cast agrees for the non-negative values used here)."""
    for r in range(rows):
        for c in range(cols):
            u = _u32(mem, idx_addr + 4 * (r * cols + c))
            if oob == "clamp":
                u = min(u, cap - 1)
            _put(mem, dst_addr + 4 * (r * cols + c), TABLE[u])


def _model_row(mem, idx_addr, dst_addr, rows, cols, cap):
    """Row loop: read idx[r], then the row's stores (Clamp)."""
    for r in range(rows):
        u = min(_u32(mem, idx_addr + 4 * r), cap - 1)
        for c in range(cols):
            _put(mem, dst_addr + 4 * (r * cols + c), TABLE[u * 8 + c])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_elem_dst_over_later_index_rows_follows_program_order(target, backend):
    with pto.Core(target, backend) as core:
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 4, 8]()
        dst = pto.Tile[pto.TileType.Vec, pto.int32, 4, 8]()
        pto.TASSIGN(idx, 0x0)
        pto.TASSIGN(dst, 0x20)                       # dst row r is idx row r + 1
        ii = (np.arange(32, dtype=np.int32).reshape(4, 8) * 5) % 40
        idx.set(ii)
        mem = bytearray(core.read("ub", 0, 0x100).tobytes())
        _model_elem(mem, 0x0, 0x20, 4, 8, 64, "clamp")
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, _table(core), idx)
        assert core.read("ub", 0, 0x100).tobytes() == bytes(mem)
        # and it differs from "every index read first", so the test can fail
        first = TABLE[np.minimum(ii, 63)]
        assert dst.numpy()[1:].tobytes() != first[1:].tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_row_dst_over_index_tile_reads_indices_row_by_row(target, backend):
    with pto.Core(target, backend) as core:
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 1, 8, pto.BLayout.RowMajor, 1, 4]()
        dst = pto.Tile[pto.TileType.Vec, pto.int32, 4, 8]()
        pto.TASSIGN(idx, 0x20)                       # idx lies in dst row 1
        pto.TASSIGN(dst, 0x0)
        idx.set(np.array([[3, 2, 5, 1]], np.int32))
        mem = bytearray(core.read("ub", 0, 0x100).tobytes())
        _model_row(mem, 0x20, 0x0, 4, 8, 8)
        pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Clamp](dst, _table(core), idx)
        assert core.read("ub", 0, 0x100).tobytes() == bytes(mem)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a5_aliasing_runs_in_warp_lockstep_not_program_order(backend):
    """A5 is a SIMT launch: one warp loads all 32 indices before its stores."""
    with pto.Core("a5", backend) as core:
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 2, 8]()
        dst = pto.Tile[pto.TileType.Vec, pto.int32, 2, 8]()
        pto.TASSIGN(idx, 0x0)
        pto.TASSIGN(dst, 0x20)
        ii = np.arange(16, dtype=np.int32).reshape(2, 8)
        idx.set(ii)
        with pytest.warns(pto.PtoHazard):
            pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, _table(core), idx)
        assert dst.numpy().tobytes() == TABLE[ii].tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a2a3_nz_elem_aliasing_follows_column_block_order(backend):
    """§6.6 loop order: column block, then row, then column inside the block."""
    with pto.Core("a2a3", backend) as core:
        C0 = 8
        T = pto.GlobalTensor[pto.int32, pto.Shape[1, 2, 1, 16, 8], pto.Stride[256, 128, 128, 8, 1],
                             pto.Layout.NZ]
        nz_table = np.arange(256, dtype=np.int32) * 3
        table = T(core.gm_put(nz_table))
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 16, 16]()
        dst = pto.Tile[pto.TileType.Vec, pto.int32, 16, 16, pto.BLayout.ColMajor, 16, 16,
                       pto.SLayout.RowMajor, 512]()
        pto.TASSIGN(idx, 0x0)    # dst's first column block (written first) is idx rows 0..7,
        #                          which the second column block reads afterwards
        pto.TASSIGN(dst, 0x0)
        ii = (np.arange(256, dtype=np.int32).reshape(16, 16) * 7) % 256
        idx.set(ii)
        mem = bytearray(core.read("ub", 0, 0x800).tobytes())
        for b in range(2):
            for r in range(16):
                for k in range(C0):
                    c = b * C0 + k
                    u = _u32(mem, 4 * (r * 16 + c))
                    u = min(u, 255)
                    lr, lc = divmod(u, 16)
                    off = (lc // C0) * 128 + lr * 8 + lc % C0
                    _put(mem, 4 * (b * 16 * C0 + r * C0 + k), nz_table[off])
        first = core.read("ub", 0, 0x800).tobytes()
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        assert core.read("ub", 0, 0x800).tobytes() == bytes(mem)
        # the model's result is not what reading every index first would give
        lr, lc = np.divmod(np.minimum(ii, 255), 16)
        eager = nz_table[(lc // C0) * 128 + lr * 8 + lc % C0]
        assert dst.numpy().tobytes() != eager.tobytes() and first != bytes(mem)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_fault_midway_through_the_ordered_loop_writes_nothing(target, backend):
    """Row 0's store turns row 1's index into 0x7FFFFFFF; Undefined then reads far outside GM."""
    with pto.Core(target, backend) as core:
        big = np.full(8, 0x7FFFFFFF, np.int32)
        T = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 2, 8], pto.Stride[16, 16, 16, 8, 1]]
        table = T(core.gm_put(np.concatenate([big, big])))
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 2, 8]()
        dst = pto.Tile[pto.TileType.Vec, pto.int32, 2, 8]()
        pto.TASSIGN(idx, 0x0)
        pto.TASSIGN(dst, 0x20)
        idx.set(np.zeros((2, 8), np.int32))
        before = core.read("ub", 0, 0x100).tobytes()
        with pytest.raises(pto.PtoFault):
            pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Undefined](dst, table, idx)
        assert core.read("ub", 0, 0x100).tobytes() == before


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("oob", ["clamp", "zero"])
def test_a2a3_nz_row_aliasing_reads_each_row_index_after_earlier_bursts(backend, oob):
    """§6.4: (Zero: whole tile pre-zeroed first), then per row: read idx[r], one burst per
    column block. Row 0's first burst lands on the index tile."""
    with pto.Core("a2a3", backend) as core:
        T = pto.GlobalTensor[pto.int32, pto.Shape[1, 2, 1, 16, 8], pto.Stride[256, 128, 128, 8, 1],
                             pto.Layout.NZ]
        nz_table = (np.arange(256, dtype=np.int32) * 5) % 13
        table = T(core.gm_put(nz_table))
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 1, 16, pto.BLayout.RowMajor, 1, 16]()
        dst = pto.Tile[pto.TileType.Vec, pto.int32, 16, 16, pto.BLayout.ColMajor, 16, 16,
                       pto.SLayout.RowMajor, 512]()
        pto.TASSIGN(idx, 0x0)
        pto.TASSIGN(dst, 0x0)
        idx.set(np.array([[3, 9, 1, 4, 20, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]], np.int32))
        mem = bytearray(core.read("ub", 0, 0x800).tobytes())
        if oob == "zero":
            mem[0:0x400] = bytes(0x400)
        for r in range(16):
            u = _u32(mem, 4 * r)
            if oob == "clamp":
                u = min(u, 15)
            elif u >= 16:
                continue                      # Zero: row stays as pre-zeroed
            for j in range(2):
                for k in range(8):
                    _put(mem, 4 * ((j * 16 + r) * 8 + k), nz_table[j * 128 + u * 8 + k])
        pto.MGATHER[pto.Coalesce.Row, getattr(pto.GatherOOB, oob.title())](dst, table, idx)
        assert core.read("ub", 0, 0x800).tobytes() == bytes(mem)
