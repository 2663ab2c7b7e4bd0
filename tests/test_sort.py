"""TSORT32 and TMRGSORT per target (docs/sort.md): records against goldens sorted here from the
rules (descending, ties by position or by index value, the tail block's treatment, where each
target merges)."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto

V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
NAN = 0x7FC00000
pytestmark = pytest.mark.usefixtures("fresh_stack")


def tile(dt, rows, cols, addr, vr=None, vc=None):
    t = pto.Tile[V, getattr(pto, dt), rows, cols, RM, rows if vr is None else vr, cols if vc is None else vc]()
    pto.TASSIGN(t, addr)
    return t


def f32(x) -> int:
    return int(np.float32(x).view(np.uint32))


def sorted_block(vals, idx, ties):
    """(value bits, index) pairs, descending; ties by position (stable) or by index value."""
    pairs = list(zip(vals, idx, range(len(vals))))
    pairs.sort(key=lambda p: (-p[0], p[1] if ties == "idx" else p[2]))
    return [(f32(v), i) for v, i, _ in pairs]


VALS = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
        0, 2, 8, 8, 4, 1, 9, 7]
IDX = list(range(100, 140))[::-1]           # index values that run against the positions


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npu_tsort32_drops_or_pads_the_tail(target):
    with pto.Core(target, "numpy") as core:
        src, idx = tile("float32", 1, 64, 0x0, vc=40), tile("uint32", 1, 64, 0x100)
        dst, tmp = tile("float32", 1, 128, 0x400), tile("float32", 1, 128, 0x800)
        core.write("ub", 0x400, np.full(512, 0xEE, np.uint8))
        src.set(np.array([VALS], np.float32))
        idx.set(np.array([IDX + [7] * 24], np.uint32))
        pto.TSORT32(dst, src, idx)                                 # 3 operands: 40 // 32 = 1 block
        got = core.read("ub", 0x400, 512).view(np.uint32).reshape(-1, 2)
        assert [tuple(p) for p in got[:32]] == sorted_block(VALS[:32], IDX[:32], "position")
        assert (got[32:] == 0xEEEEEEEE).all()
        core.write("ub", 0x800, np.full(512, 0xEE, np.uint8))
        pto.TSORT32(dst, src, idx, tmp)                            # with tmp: the tail padded with NaN
        got = core.read("ub", 0x400, 512).view(np.uint32).reshape(-1, 2)
        scratch = core.read("ub", 0x800, 512).view(np.uint32)
    tail = sorted_block(VALS[32:], IDX[32:], "position")
    assert [tuple(p) for p in got[32:40]] == tail
    assert [tuple(p) for p in got[40:64]] == [(NAN, 7)] * 24       # the pads keep idx memory's values
    # tmp keeps the row (its 32-byte blocks: 40 floats) and the tail block's pad from column 40
    # on: to the block's end, on A2/A3 32 lanes further (TSort32Impl's vector_dup of 64 lanes)
    end = 96 if target == "a2a3" else 64
    assert scratch[:40].tolist() == np.array(VALS, np.float32).view(np.uint32).tolist()
    assert (scratch[40:end] == NAN).all() and (scratch[end:] == 0xEEEEEEEE).all()


def test_cpu_tsort32_writes_the_partial_block_and_breaks_ties_by_index():
    with pto.Core("cpu", "numpy") as core:
        src, idx = tile("float32", 1, 64, 0x0, vc=40), tile("uint32", 1, 64, 0x100, vc=40)
        dst = tile("float32", 1, 128, 0x400)
        core.write("ub", 0x400, np.full(512, 0xEE, np.uint8))
        src.set(np.array([VALS], np.float32))
        idx.set(np.array([IDX], np.uint32))
        pto.TSORT32(dst, src, idx)
        got = core.read("ub", 0x400, 512).view(np.uint32).reshape(-1, 2)
    assert [tuple(p) for p in got[:32]] == sorted_block(VALS[:32], IDX[:32], "idx")
    assert [tuple(p) for p in got[32:40]] == sorted_block(VALS[32:], IDX[32:], "idx")
    assert (got[40:] == 0xEEEEEEEE).all()


def test_cpu_tsort32_needs_idx_shaped_like_src_and_its_half_blocks_overlap():
    with pto.Core("cpu", "numpy") as core:
        src, idx = tile("half", 1, 64, 0x0), tile("uint32", 1, 64, 0x100, vc=32)
        dst = tile("half", 1, 256, 0x400)
        core.write("ub", 0x400, np.full(512, 0xEE, np.uint8))
        src.set(np.arange(64, dtype=np.float16).reshape(1, 64))
        pto.TSORT32(dst, src, idx)
        assert (core.read("ub", 0x400, 512) == 0xEE).all()        # idx valid 1x32 != src's 1x64: nothing
        idx2 = tile("uint32", 1, 64, 0x200)
        idx2.set(np.arange(64, dtype=np.uint32).reshape(1, 64))
        pto.TSORT32(dst, src, idx2)
        rec = core.read("ub", 0x400, 512).view(np.uint16).reshape(-1, 4)
    # block 0 at record 0, block 1 at half 64 = record 16: the second block overwrites block 0's last 16
    assert [int(np.uint16(r[0]).view(np.float16)) for r in rec[:16]] == list(range(31, 15, -1))
    assert [int(np.uint16(r[0]).view(np.float16)) for r in rec[16:48]] == list(range(63, 31, -1))
    assert [int(r[2]) for r in rec[16:48]] == list(range(63, 31, -1)) and (rec[16:48, 1] == 0).all()


def _lists(core, a, b, av, bv):
    a.set(np.array([[x for v in av for x in (v, 0.0)]], np.float32))
    b.set(np.array([[x for v in bv for x in (v, 0.0)]], np.float32))


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("exhausted", [False, True])
def test_tmrgsort_two_lists(target, exhausted):
    av, bv = [9, 7, 5, 3, 1, 1, 0, 0], [8, 7, 6, 1]
    with pto.Core(target, "numpy") as core:
        a, b = tile("float32", 1, 16, 0x0), tile("float32", 1, 16, 0x100, vc=8)
        dst, tmp = tile("float32", 1, 32, 0x200, vc=12), tile("float32", 1, 64, 0x400)
        core.write("ub", 0x200, np.full(128, 0xEE, np.uint8))
        core.write("ub", 0x400, np.full(256, 0xDD, np.uint8))
        _lists(core, a, b, av, bv)
        ex = pto.MrgSortExecutedNumList()
        (pto.TMRGSORT[True] if exhausted else pto.TMRGSORT)(dst, ex, tmp, a, b)
        core_bytes = core.read("ub", 0x200, 128)
        got = core_bytes.view(np.float32)[::2]
        counts = (ex.mrgSortList0, ex.mrgSortList1)
    # ties go to the lower list: 9a 8b 7a 7b 6b 5a 3a 1a 1a 1b 0a 0a; b empties at the 10th record
    merged = [9, 8, 7, 7, 6, 5, 3, 1, 1, 1, 0, 0]
    assert got[:6].tolist() == merged[:6]
    past = core_bytes[0x30: 0x40]                               # records 6, 7: past dst's valid 12 elements
    if target == "cpu":                                         # into dst, at most dst's 6 records:
        assert counts == (3, 3)                                 # counted always, the cap reached first
        assert (past == 0xEE).all()
    else:
        assert past.view(np.float32)[::2].tolist() == [3, 1]   # 64 bytes of tmp: 2 more records                                                       # everything into tmp, counted if exhausted
        assert counts == ((6, 4) if exhausted else (0, 0))


def test_tmrgsort_single_list_merges_groups_of_four_blocks():
    rng = np.random.default_rng(1)
    blocks = [sorted(rng.integers(0, 50, 8).tolist(), reverse=True) for _ in range(4)]
    for target in ("cpu", "a5"):
        with pto.Core(target, "numpy"):
            src, dst = tile("float32", 1, 64, 0x0), tile("float32", 1, 64, 0x200)
            src.set(np.array([[x for blk in blocks for v in blk for x in (v, 0.0)]], np.float32))
            pto.TMRGSORT(dst, src, 16)                          # blockLen: 16 elements = 8 records
            got = dst.numpy()[0, ::2].tolist()
        assert got == sorted((v for blk in blocks for v in blk), reverse=True)


@pytest.mark.parametrize("target, dt, ok", [("cpu", "int32", True), ("a5", "int32", False), ("a2a3", "half", True)])
def test_tsort32_types(target, dt, ok):
    with pto.Core(target, "numpy"):
        src, idx, dst = tile(dt, 1, 32, 0x0), tile("uint32", 1, 32, 0x100), tile(dt, 1, 128, 0x200)
        if ok:
            pto.TSORT32(dst, src, idx)
        else:
            with pytest.raises(pto.PtoCheckError, match="Invalid data type|must be"):
                pto.TSORT32(dst, src, idx)


def test_cpu_tmrgsort_into_its_own_list_reads_what_it_wrote():
    """The simulator writes each record before reading the next heads: a dst that is list 0
    (the vendor's top-k merges a row into itself) overwrites list 0's unread records; the NPUs
    merge through tmp."""
    got = {}
    for target in ("cpu", "a5"):
        with pto.Core(target, "numpy"):
            a = tile("float32", 1, 16, 0x0, vc=6)
            b = tile("float32", 1, 16, 0x100, vc=4)
            dst = tile("float32", 1, 16, 0x0, vc=10)                 # over a
            tmp = tile("float32", 1, 32, 0x400)
            a.set(np.array([[5, 0, 3, 0, 1, 0]], np.float32))
            b.set(np.array([[4, 0, 2, 0]], np.float32))
            pto.TMRGSORT(dst, pto.MrgSortExecutedNumList(), tmp, a, b)
            got[target] = dst.numpy()[0, ::2].tolist()
    # cpu: 5 (a0); 4 (b0) over a1; a's head 1 now reads 4 -> 4 over a2; a's head 2 reads 4 -> 4; then b1 = 2
    assert got["cpu"] == [5, 4, 4, 4, 2]
    assert got["a5"] == [5, 4, 3, 2, 1]


def _rows_sorted(vals, idx):
    """32-value blocks of (value bits, index) pairs, each sorted descending, ties by position."""
    return [p for b in range(0, len(vals), 32) for p in sorted_block(vals[b:b + 32], idx[b:b + 32], "position")]


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_a5_tsort32_large_tmp_path_pads_only_the_tail_block_in_tmp(backend):
    # a5/TSort32.hpp:59-115 (LargeTmpBufferImpl): a row of more than 8160 bytes (2085 floats: 66
    # blocks, a tail of 5) is sorted without copying it to tmp: the blocks as they are, then the
    # tail's 32-byte blocks (5 floats: one block of 8) copied to tmp's start, lanes 5..31 set to
    # the NaN pad, sorted alone into the last block; tmp past its first 32 elements is untouched
    from ptogpu.backend import native_backend
    if backend == "native" and not native_backend.available()[0]:
        pytest.skip("no native backend")
    C, A = 2085, 2088
    rng = np.random.default_rng(7)
    vals = rng.permutation(C).astype(np.float32) - 1000
    ids = rng.permutation(A).astype(np.uint32)
    with pto.Core("a5", backend) as core:
        src, idx = tile("float32", 1, A, 0x0, vc=C), tile("uint32", 1, A, 0x2100)
        dst, tmp = tile("float32", 1, 2 * 66 * 32, 0x4200), tile("float32", 1, 64, 0x8400)
        core.write("ub", 0x8400, np.full(256, 0xEE, np.uint8))
        src.set(vals[None, :])
        idx.set(ids[None, :])
        pto.TSORT32(dst, src, idx, tmp)
        got = core.read("ub", 0x4200, 66 * 32 * 8).view(np.uint32).reshape(-1, 2)
        t = core.read("ub", 0x8400, 256).view(np.uint32)
    want = _rows_sorted(list(vals[:C - 5]), list(ids[:C - 5]))
    tail = sorted_block(list(vals[C - 5:]), list(ids[C - 5:C]), "position") + [(NAN, int(i)) for i in ids[C:A]]
    assert [tuple(p) for p in got[:C - 5]] == want
    assert [tuple(p) for p in got[C - 5:C + 3]] == tail                  # (the pads keep idx memory's values)
    assert t[:5].tolist() == [f32(v) for v in vals[C - 5:]] and (t[5:32] == NAN).all()
    assert (t[32:] == 0xEEEEEEEE).all()


@pytest.mark.filterwarnings("ignore::ptogpu.PtoPortabilityWarning")     # (the tiles reach UB's top 40 KiB)
def test_a5_tsort32_large_tmp_path_with_a_multiple_of_255_blocks():
    # nb = ceil(C / 32) a multiple of 255: the last vbitsort's repeat, (nb % 255) - 1, is 255 as a
    # uint8_t: the tail block is sorted as 32 lanes of memory; the tail copy reads block
    # (j * 255 - 1) * 32 for the last call j -- block nb - 256 -- whose first C % 32 values, padded,
    # are sorted over that block's records. With one call (j = 0), the offset wraps in 32 bits:
    # a read outside UB
    C, A = 2 * 255 * 32 - 5, 2 * 255 * 32                              # 510 blocks, a tail of 27
    rng = np.random.default_rng(3)
    mem = rng.permutation(A).astype(np.float16)
    ids = np.arange(A, dtype=np.uint32)[::-1].copy()
    with pto.Core("a5", "numpy") as core:
        src, idx = tile("half", 1, A, 0x0, vc=C), tile("uint32", 1, A, 0x8000)
        dst, tmp = tile("half", 1, 4 * A, 0x18000), tile("half", 1, 64, 0x3FE00)
        core.write("ub", 0x0, mem.tobytes())                           # (the pad columns too)
        idx.set(ids[None, :])
        pto.TSORT32(dst, src, idx, tmp)
        rec = core.read("ub", 0x18000, A * 8).view(np.uint16).reshape(-1, 4)
    h = mem.view(np.uint16)

    def block(b, n=32):
        order = sorted(range(32), key=lambda k: (-float(mem[b * 32 + k]) if k < n else np.inf, k))
        return [(int(h[b * 32 + k]) if k < n else 0x7E00, int(ids[b * 32 + k])) for k in order]
    got = lambda b: [(int(r[0]), int(r[2]) | int(r[3]) << 16) for r in rec[b * 32:b * 32 + 32]]  # noqa: E731
    assert got(0) == block(0) and got(300) == block(300)
    assert got(509) == block(509)                                      # 32 lanes of memory, no pad
    assert got(254) == block(254, C % 32)                              # re-sorted from tmp
    with pto.Core("a5", "numpy") as core:
        C = 255 * 32 - 10                                              # 255 blocks: one call
        src, idx = tile("float32", 1, 255 * 32, 0x0, vc=C), tile("uint32", 1, 255 * 32, 0x8000)
        dst, tmp = tile("float32", 1, 2 * 255 * 32, 0x10000), tile("float32", 1, 64, 0x20000)
        with pytest.raises(pto.PtoFault, match="outside"):
            pto.TSORT32(dst, src, idx, tmp)


def test_a2a3_tsort32_large_tmp_path_counts_elements_and_pads_32_more():
    # a2a3/TSort32.hpp:24-72: the large path past 8160 *elements* (A5: bytes), its tail pad in
    # tmp 32 lanes longer (the small path's vector_dup, here at tmp's start): 8165 floats, 256
    # blocks (not a multiple of 255), a tail of 5
    C, A = 8165, 8168
    rng = np.random.default_rng(5)
    vals = rng.permutation(C).astype(np.float32) - 4000
    ids = rng.permutation(A).astype(np.uint32)
    with pto.Core("a2a3", "numpy") as core:
        src, idx = tile("float32", 1, A, 0x0, vc=C), tile("uint32", 1, A, 0x8000)
        dst, tmp = tile("float32", 1, 2 * A + 16, 0x10000), tile("float32", 1, 96, 0x20000)
        core.write("ub", 0x20000, np.full(384, 0xEE, np.uint8))
        src.set(vals[None, :])
        idx.set(ids[None, :])
        pto.TSORT32(dst, src, idx, tmp)
        got = core.read("ub", 0x10000, 256 * 32 * 8).view(np.uint32).reshape(-1, 2)
        t = core.read("ub", 0x20000, 384).view(np.uint32)
    assert [tuple(p) for p in got[:C - 5]] == _rows_sorted(list(vals[:C - 5]), list(ids[:C - 5]))
    tail = sorted_block(list(vals[C - 5:]), list(ids[C - 5:C]), "position") + [(NAN, int(i)) for i in ids[C:A]]
    assert [tuple(p) for p in got[C - 5:C + 3]] == tail
    assert t[:5].tolist() == [f32(v) for v in vals[C - 5:]] and (t[5:64] == NAN).all()
    assert (t[64:] == 0xEEEEEEEE).all()
