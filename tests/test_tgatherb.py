"""TGATHERB per target (other-ops.md §A), byte-exact over the whole UB.

Expected bytes come from small scalar references written here from the spec (the core block
semantic, the CPU simulator loop, the A2/A3 ``vgatherb`` call sequence), never from ptogpu.
UB is filled with random bytes first, so every byte the instruction must not touch is checked.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto

V = pto.TileType.Vec
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
M32 = (1 << 32) - 1
NPU9 = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32"]
SRC, OFF, DST = 0x0000, 0x8000, 0xA000


def T(dt, rows, cols, vr=None, vc=None, layout=RM):
    return pto.Tile[V, getattr(pto, dt), rows, cols, layout,
                    rows if vr is None else vr, cols if vc is None else vc]


def setup(target, dT, sT, oT, offsets, *, quirks=None, seed=0, addrs=(SRC, OFF, DST)):
    """Core with random UB, three tiles assigned, offset tile's whole storage = ``offsets``."""
    core = pto.Core(target, "numpy", quirks=quirks)
    core.__enter__()
    rng = np.random.default_rng(seed)
    core.write("ub", 0, rng.integers(0, 256, core.ub.size, dtype=np.uint8))
    d, s, o = dT(), sT(), oT()
    for tile, a in zip((s, o, d), addrs):
        pto.TASSIGN(tile, a)
    raw = np.asarray(offsets).astype(o.Element).reshape(-1)
    assert raw.size == o.Rows * o.Cols
    core.write("ub", o.addr, raw)
    return core, d, s, o


def ub(core) -> np.ndarray:
    return core.read("ub", 0, core.ub.size)


def u32_at(mem, addr) -> int:
    return int(mem[addr: addr + 4].view(np.uint32)[0])


@pytest.fixture(autouse=True)
def _exit_cores():
    from ptogpu.core import CURRENT
    token = CURRENT.set([])
    yield
    CURRENT.reset(token)


# -- references --------------------------------------------------------------------------------
def ref_core(mem, d, s, o, *, round_down=True, rowwise_b32=False):
    """Core semantic (A.1) per element, A5 style: dst[r][c] = bytes at
    src + off[r*OffRowStride + c//B] + (c%B)*size; optional NORM_B32 continuation bytes."""
    out = mem.copy()
    size = d.Element.itemsize
    B = 32 // size
    for r in range(d.valid_row):
        row_end = d.valid_col * size
        if rowwise_b32 and row_end % 4:
            row_end += 4 - row_end % 4
        for byte in range(row_end):
            blk = byte // 32
            off = u32_at(mem, o.addr + (r * o.Cols + blk) * 4)
            if round_down:
                off &= ~31
            out[d.addr + r * d.Cols * size + byte] = mem[s.addr + off + byte % 32]
    assert B * size == 32
    return out


def ref_cpu(mem, d, s, o):
    """CPU simulator loop (A.3): full blocks only, uint32 bound on the whole src tile."""
    out = mem.copy()
    size = d.Element.itemsize
    B = 32 // size
    osz = o.Element.itemsize
    for r in range(d.valid_row):
        for c in range(d.valid_col // B):
            a = o.addr + (r * o.Cols + c) * osz
            v = int(mem[a: a + osz].view(o.Element)[0]) & M32
            if (v + 32) & M32 <= s.Rows * s.Cols * s.Element.itemsize:
                dst = d.addr + (r * d.Cols + c * B) * size
                out[dst: dst + 32] = mem[s.addr + v: s.addr + v + 32]
    return out


def vgatherb(mem, out, dst, offp, src, rep, blk, repeat):
    """The A2/A3 primitive (A.2): offsets move 8 per repeat whatever the strides are."""
    for i in range(repeat):
        for j in range(8):
            off = u32_at(mem, offp + 4 * (i * 8 + j)) & ~31
            a = dst + 32 * (i * rep + j * blk)
            out[a: a + 32] = mem[src + off: src + off + 32]


def ref_a2a3(mem, d, s, o, *, stream=True):
    """The TGatherB.hpp call sequence (A.4): head per row in chunks of 255, then the tail."""
    out = mem.copy()
    size = d.Element.itemsize
    E, B = 256 // size, 32 // size
    VR, VC = d.valid_row, d.valid_col
    nrep, rem = VC // E, VC % E
    for i in range(VR):
        for ch in range(0, nrep, 255):
            vgatherb(mem, out, d.addr + (i * d.Cols + ch * E) * size,
                     o.addr + 4 * (i * o.Cols + ch * 8), s.addr, 8, 1, min(255, nrep - ch))
    if rem:
        dptr = d.addr + nrep * E * size
        optr = o.addr + 4 * nrep * 8
        if stream:
            for c0 in range(0, VR, 255):
                vgatherb(mem, out, dptr + c0 * d.Cols * size, optr + 4 * c0 * o.Cols, s.addr,
                         (d.Cols // B) & 0xFF, 1, min(255, VR - c0))
        else:
            for r in range(VR):
                vgatherb(mem, out, dptr + r * d.Cols * size, optr + 4 * r * o.Cols, s.addr,
                         d.Cols // B, 1, 1)
    return out


def block_offsets(rng, n, src_bytes):
    return rng.integers(0, src_bytes // 32, n) * 32


# -- the shared golden (gen_data.py): identity copy --------------------------------------------
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("dt", NPU9)
def test_identity_golden(target, dt):
    size = np.dtype(getattr(pto, dt)).itemsize
    B = 32 // size
    rows, cols = 4, 2 * 256 // size                     # two full repeats per row
    oc = cols // B
    offs = np.arange(rows * oc) * 32
    core, d, s, o = setup(target, T(dt, rows, cols), T(dt, rows, cols), T("uint32", rows, oc), offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert d.raw().tobytes() == s.raw().tobytes()
    exp = before.copy()
    exp[d.addr: d.addr + d.nbytes] = before[s.addr: s.addr + s.nbytes]
    assert ub(core).tobytes() == exp.tobytes()


@pytest.mark.parametrize("dt", ["float8_e4m3", "float8_e5m2", "hifloat8", "bfloat16", "int64"])
def test_cpu_accepts_any_dtype(dt):
    size = np.dtype(getattr(pto, dt)).itemsize
    cols = 64 // size
    rng = np.random.default_rng(1)
    offs = block_offsets(rng, 2 * 8, 2 * cols * size)
    core, d, s, o = setup("cpu", T(dt, 2, cols), T(dt, 2, cols), T("uint32", 2, 8), offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == ref_cpu(before, d, s, o).tobytes()


# -- random block permutations, every target -----------------------------------------------------
@pytest.mark.parametrize("dt", ["uint8", "half", "float32", "bfloat16"])
@pytest.mark.parametrize("target", ["cpu", "a5", "a2a3"])
def test_random_blocks_full_width(target, dt):
    size = np.dtype(getattr(pto, dt)).itemsize
    rows, cols = 3, 256 // size
    rng = np.random.default_rng(2)
    offs = block_offsets(rng, rows * 8, rows * cols * size)
    core, d, s, o = setup(target, T(dt, rows, cols), T(dt, rows, cols), T("uint32", rows, 8), offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == ref_core(before, d, s, o).tobytes()


def test_hand_golden_half_one_row():
    """Two blocks of a half row swapped: dst = src[16:32] ++ src[0:16] (hand-written)."""
    core, d, s, o = setup("a5", T("half", 1, 32), T("half", 1, 32), T("uint32", 1, 8),
                          [32, 0, 0, 0, 0, 0, 0, 0])
    vals = np.array([1.5, -0.0, np.inf, 65504] * 8, np.float16)
    vals.view(np.uint16)[3] = 0x7E01                  # a NaN with a payload
    s.set(vals[None, :])
    pto.TGATHERB(d, s, o)
    want = np.concatenate([vals[16:], vals[:16]])
    assert d.raw().tobytes() == want.tobytes()


def test_offsets_beyond_src_tile():
    """NPU: any UB address works; CPU: the block is skipped (left unchanged)."""
    offs = [0, 0x100, 0x4000, 0x8000 + 64, 224, 192, 32, 0x20000]  # src tile is 256 bytes
    for target in ("a5", "a2a3", "cpu"):
        core, d, s, o = setup(target, T("float32", 1, 64), T("float32", 1, 64),
                              T("uint32", 1, 8), offs)
        before = ub(core)
        pto.TGATHERB(d, s, o)
        exp = before.copy()
        for k, off in enumerate(offs):
            if target == "cpu" and off + 32 > 256:
                continue
            exp[DST + 32 * k: DST + 32 * k + 32] = before[SRC + off: SRC + off + 32]
        assert ub(core).tobytes() == exp.tobytes(), target
        pto.current_core().__exit__(None, None, None)


# -- CPU -----------------------------------------------------------------------------------------
def test_cpu_skips_partial_block_and_is_byte_exact():
    """45 columns: the simulator's assert (validCol * sizeof(T*) % 32, T* 8 bytes) traps; built
    with NDEBUG the loop runs full blocks only."""
    offs = [3, 70, 1, 5, 200, 255 - 32, 0, 0, 7, 9, 11, 13, 0, 0, 0, 0]  # byte offsets
    core, d, s, o = setup("cpu", T("uint8", 2, 64, 2, 45), T("uint8", 1, 256), T("uint32", 2, 8),
                          offs)
    before = ub(core)
    with pytest.raises(pto.PtoFault, match="multiple of 4"):
        pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == before.tobytes()
    core.__exit__()
    core, d, s, o = setup("cpu", T("uint8", 2, 64, 2, 45), T("uint8", 1, 256), T("uint32", 2, 8),
                          offs, quirks={"cpu_asserts": False})
    before = ub(core)
    with pytest.warns(pto.PtoAssertWarning):
        pto.TGATHERB(d, s, o)
    exp = before.copy()
    for r in range(2):
        off = offs[r * 8]                                       # only block 0 is full (45 < 64)
        exp[DST + r * 64: DST + r * 64 + 32] = before[SRC + off: SRC + off + 32]
    assert ub(core).tobytes() == exp.tobytes()


def test_cpu_bound_is_uint32_and_whole_src_tile():
    """off+32 <= SrcRows*SrcCols*size (not the valid region); 0xFFFFFFC0 fails the test and is
    skipped; 0xFFFFFFE0 wraps to 0, passes, and reads outside UB: PtoFault, nothing written."""
    sT = T("float32", 2, 16, 1, 8)                              # 128 bytes, valid 32
    core, d, s, o = setup("cpu", T("float32", 1, 32), sT, T("uint32", 1, 8),
                          [96, 97, 0xFFFFFFC0, 128, 0, 0, 0, 0])
    before = ub(core)
    pto.TGATHERB(d, s, o)
    exp = before.copy()
    exp[DST: DST + 32] = before[SRC + 96: SRC + 128]             # 96+32 = 128 fits exactly
    assert ub(core).tobytes() == exp.tobytes()
    for bad in (0xFFFFFFE0, 0xFFFFFFFF, 0xFFFFFFF0):
        core.write("ub", OFF, np.array([0, bad], np.uint32))
        snap = ub(core)
        with pytest.raises(pto.PtoFault):
            pto.TGATHERB(d, s, o)
        assert ub(core).tobytes() == snap.tobytes()


def test_cpu_signed_offsets_convert_to_uint32():
    core, d, s, o = setup("cpu", T("int32", 1, 8), T("int32", 1, 64), T("int32", 1, 8),
                          [64, 0, 0, 0, 0, 0, 0, 0])
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core)[DST: DST + 32].tobytes() == before[SRC + 64: SRC + 96].tobytes()
    core.write("ub", OFF, np.array([-32], np.int32))            # -> 0xFFFFFFE0: wraps, faults
    snap = ub(core)
    with pytest.raises(pto.PtoFault):
        pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == snap.tobytes()


def test_cpu_offset_row_stride_is_cols():
    """Offset tile valid shape is ignored; rows advance by its Cols."""
    offs = np.zeros((2, 16), np.uint32)
    offs[0, :2] = [32, 0]
    offs[1, :2] = [64, 96]
    core, d, s, o = setup("cpu", T("float32", 2, 16), T("float32", 4, 16),
                          pto.Tile[V, pto.uint32, 2, 16, RM, 1, 1], offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == ref_cpu(before, d, s, o).tobytes()
    got = ub(core)
    assert got[DST + 64: DST + 96].tobytes() == before[SRC + 64: SRC + 96].tobytes()


# -- A5 ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt,vc", [("half", 20), ("uint8", 37), ("float32", 13), ("int16", 1),
                                   ("bfloat16", 127), ("uint8", 255)])
def test_a5_partial_last_block_colwise(dt, vc):
    size = np.dtype(getattr(pto, dt)).itemsize
    cols = 256 // size                                           # one repeat per row: ColWise
    rng = np.random.default_rng(vc)
    offs = block_offsets(rng, 2 * 64, 2 * 256)
    core, d, s, o = setup("a5", T(dt, 2, cols, 2, vc), T(dt, 2, cols), T("uint32", 2, 64), offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == ref_core(before, d, s, o).tobytes()


@pytest.mark.parametrize("quirk", [True, False])
@pytest.mark.parametrize("dt,vc", [("uint8", 301), ("uint8", 258), ("half", 131), ("uint8", 300)])
def test_a5_rowwise_b32_overrun(dt, vc, quirk):
    """ceil(Cols/E) > Rows picks RowWise; its NORM_B32 store writes up to 3 bytes past VC."""
    size = np.dtype(getattr(pto, dt)).itemsize
    cols = 512 // size
    rng = np.random.default_rng(3)
    offs = block_offsets(rng, 64, 512)
    core, d, s, o = setup("a5", T(dt, 1, cols, 1, vc), T(dt, 1, cols), T("uint32", 1, 64), offs,
                          quirks={"a5_tgatherb_rowwise_b32_store": quirk})
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == ref_core(before, d, s, o, rowwise_b32=quirk).tobytes()


def test_a5_rowwise_overrun_hand():
    """uint8 1x512, VC=257: byte 256 is the valid one; bytes 257..259 continue its block."""
    offs = np.zeros(64, np.uint32)
    offs[8] = 96                                                 # block 0 of repeat 1
    core, d, s, o = setup("a5", T("uint8", 1, 512, 1, 257), T("uint8", 1, 512), T("uint32", 1, 64),
                          offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    after = ub(core)
    assert after[DST + 256: DST + 260].tobytes() == before[SRC + 96: SRC + 100].tobytes()
    assert after[DST + 260: DST + 512].tobytes() == before[DST + 260: DST + 512].tobytes()


def test_a5_unused_enabled_block_quirk():
    """half VC=20: blocks 0-1 stored, blocks 2-7 enabled by the predicate but unused."""
    offs = [0, 32] + [0xFFFFFFE0] * 6
    for quirk in (False, True):
        core, d, s, o = setup("a5", T("half", 1, 128, 1, 20), T("half", 1, 128), T("uint32", 1, 8),
                              offs, quirks={"a5_tgatherb_unused_block_fault": quirk})
        before = ub(core)
        if quirk:
            with pytest.raises(pto.PtoFault):
                pto.TGATHERB(d, s, o)
            assert ub(core).tobytes() == before.tobytes()
        else:
            pto.TGATHERB(d, s, o)
            assert ub(core).tobytes() == ref_core(before, d, s, o).tobytes()
        pto.current_core().__exit__(None, None, None)


def test_a5_multi_repeat_rows_and_offset_stride():
    """f32 3x80 (2 repeats, last partial), offset tile 3x24: repeat j reads entries 8j.."""
    rng = np.random.default_rng(4)
    offs = block_offsets(rng, 3 * 24, 0x8000)
    core, d, s, o = setup("a5", T("float32", 3, 80, 3, 77), T("float32", 8, 64),
                          T("uint32", 3, 24), offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == ref_core(before, d, s, o).tobytes()


# -- A2/A3 ---------------------------------------------------------------------------------------
def test_a2a3_head_only_is_exact():
    rng = np.random.default_rng(5)
    offs = block_offsets(rng, 3 * 16, 0x4000)
    core, d, s, o = setup("a2a3", T("float32", 3, 128), T("float32", 8, 64), T("uint32", 3, 16),
                          offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    got = ub(core)
    assert got.tobytes() == ref_core(before, d, s, o).tobytes()
    assert got.tobytes() == ref_a2a3(before, d, s, o).tobytes()


def test_a2a3_tail_only_offstride8_clobbers_padding_and_spills():
    """f32 2x16 VC=12, offsets 2x8: valid region right, padding clobbered, 6 blocks spill past
    the tile (hand-computed: tail row r writes 8 blocks from dst + r*64)."""
    offs = np.arange(16) * 32
    core, d, s, o = setup("a2a3", T("float32", 2, 16, 2, 12), T("float32", 16, 16),
                          T("uint32", 2, 8), offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    exp = before.copy()
    for r in range(2):
        for j in range(8):
            a = DST + r * 64 + 32 * j
            exp[a: a + 32] = before[SRC + 32 * (8 * r + j): SRC + 32 * (8 * r + j) + 32]
    got = ub(core)
    assert got.tobytes() == exp.tobytes()
    assert got[DST + 128: DST + 128 + 192].tobytes() != before[DST + 128: DST + 320].tobytes()
    assert got.tobytes() == ref_a2a3(before, d, s, o).tobytes()


@pytest.mark.parametrize("stream", [True, False])
def test_a2a3_head_plus_tail_multirow(stream):
    """f32 4x72 with an offset tile of 16 cols: the literal stream reads tail offsets 8 apart."""
    rng = np.random.default_rng(6)
    offs = block_offsets(rng, 4 * 16, 0x8000)
    core, d, s, o = setup("a2a3", T("float32", 4, 72), T("float32", 32, 64), T("uint32", 4, 16),
                          offs, quirks={"a2a3_tgatherb_tail_stream": stream})
    before = ub(core)
    pto.TGATHERB(d, s, o)
    got = ub(core)
    assert got.tobytes() == ref_a2a3(before, d, s, o, stream=stream).tobytes()
    if stream:
        assert got.tobytes() != ref_core(before, d, s, o).tobytes()


def test_a2a3_per_row_form_fixes_offsets_when_no_head():
    """nRep = 0, 3 rows, offsets 3x16: stream row r reads entries 8r (wrong rows), the per-row
    form reads r*16 (the valid region is right)."""
    offs = np.arange(48) * 32
    for stream in (True, False):
        core, d, s, o = setup("a2a3", T("half", 3, 128, 3, 40), T("half", 64, 64),
                              T("uint32", 3, 16), offs, quirks={"a2a3_tgatherb_tail_stream": stream})
        before = ub(core)
        pto.TGATHERB(d, s, o)
        got = ub(core)
        assert got.tobytes() == ref_a2a3(before, d, s, o, stream=stream).tobytes()
        row1 = got[DST + 256: DST + 256 + 80]
        right = before[SRC + 16 * 32: SRC + 16 * 32 + 80]          # entry 16 = row 1, block 0
        assert (row1.tobytes() == right.tobytes()) == (not stream)
        pto.current_core().__exit__(None, None, None)


def test_a2a3_spill_past_ub_faults_without_writing():
    top = 192 * 1024 - 64                                       # f32 1x16 tile at the top of UB
    core, d, s, o = setup("a2a3", T("float32", 1, 16, 1, 8), T("float32", 1, 64), T("uint32", 1, 8),
                          np.zeros(8), addrs=(SRC, OFF, top))
    before = ub(core)
    with pytest.raises(pto.PtoFault):
        pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == before.tobytes()


# -- alignment, faults, degenerate shapes ---------------------------------------------------------
@pytest.mark.parametrize("target", ["a5", "a2a3"])
def test_npu_misaligned_offsets_round_down_and_warn(target):
    offs = [33, 95, 64, 1, 31, 0x1001, 224 + 31, 7]
    core, d, s, o = setup(target, T("float32", 1, 64), T("float32", 1, 64), T("uint32", 1, 8), offs)
    before = ub(core)
    with pytest.warns(UserWarning, match="aligned"):
        pto.TGATHERB(d, s, o)
    exp = before.copy()
    for k, off in enumerate(offs):
        b = off & ~31
        exp[DST + 32 * k: DST + 32 * k + 32] = before[SRC + b: SRC + b + 32]
    assert ub(core).tobytes() == exp.tobytes()


@pytest.mark.parametrize("target", ["a5", "a2a3"])
@pytest.mark.parametrize("bad", [0xFFFFFFFF, 0xFFFFFFE0, 2**31, 256 * 1024, 192 * 1024])
def test_npu_offsets_outside_ub_fault(target, bad):
    core, d, s, o = setup(target, T("float32", 1, 32), T("float32", 1, 64), T("uint32", 1, 8),
                          [0, 32, bad, 0, 0, 0, 0, 0])
    before = ub(core)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if bad == 192 * 1024 and target == "a5":                 # inside A5's 256 KiB UB
            pto.TGATHERB(d, s, o)
            return
        with pytest.raises(pto.PtoFault):
            pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == before.tobytes()


def test_negative_int32_offsets_npu_fault():
    core, d, s, o = setup("a5", T("float32", 1, 8), T("float32", 1, 64), T("int32", 1, 8),
                          [-32, 0, 0, 0, 0, 0, 0, 0])
    before = ub(core)
    with pytest.raises(pto.PtoFault):
        pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == before.tobytes()


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("vr,vc", [(0, 8), (2, 0), (0, 0)])
def test_zero_valid_is_noop(target, vr, vc):
    dT = pto.Tile[V, pto.float32, 2, 64, RM, -1, -1]
    core = pto.Core(target, "numpy").__enter__()
    core.write("ub", 0, np.random.default_rng(0).integers(0, 256, core.ub.size, dtype=np.uint8))
    d, s, o = dT(vr, vc), T("float32", 2, 64)(), T("uint32", 2, 8)()
    for tile, a in zip((s, o, d), (SRC, OFF, DST)):
        pto.TASSIGN(tile, a)
    core.write("ub", OFF, np.full(16, 0xFFFFFFFF, np.uint32))   # would fault if read
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == before.tobytes()


# -- static checks --------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_colmajor_dst_rejected(target):
    core, d, s, o = setup(target, T("float32", 8, 8, layout=CM), T("float32", 1, 64),
                          T("uint32", 1, 8), np.zeros(8))
    before = ub(core)
    with pytest.raises(pto.PtoCheckError, match="isRowMajor"):
        pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == before.tobytes()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("dt", ["int64", "uint64"])
def test_npu_rejects_8_byte_dst(target, dt):
    """The code's only type check: sizeof(dst T) in {1, 2, 4} (its 9-type list is doc text)."""
    cols = 32 // np.dtype(getattr(pto, dt)).itemsize
    core, d, s, o = setup(target, T(dt, 1, cols), T(dt, 1, cols), T("uint32", 1, 8), np.zeros(8))
    with pytest.raises(pto.PtoCheckError, match="sizeof"):
        pto.TGATHERB(d, s, o)


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("dt,st", [("float8_e4m3", "float8_e4m3"), ("float8_e5m2", "int64"),
                                   ("hifloat8", "hifloat8"), ("float32", "int64"), ("int8", "uint64")])
def test_npu_accepts_every_type_the_code_accepts(target, dt, st):
    """1-byte fp8/hifloat8 dst, 64-bit sources: blocks move bytes, whatever the types."""
    cols = 256 // np.dtype(getattr(pto, dt)).itemsize
    scols = 2048 // np.dtype(getattr(pto, st)).itemsize
    offs = (np.arange(8) * 32 * 3) % 2048
    core, d, s, o = setup(target, T(dt, 1, cols), T(st, 1, scols), T("uint32", 1, 8), offs)
    before = ub(core)
    pto.TGATHERB(d, s, o)
    assert ub(core).tobytes() == ref_core(before, d, s, o).tobytes()


def test_mat_tile_rejected_on_the_npus():
    with pto.Core("a5", "numpy"):
        d = pto.Tile[pto.TileType.Mat, pto.float32, 1, 8]()
        s, o = T("float32", 1, 8)(), T("uint32", 1, 8)()
        pto.TASSIGN(d, 0)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(o, 64)
        with pytest.raises(pto.PtoCheckError, match="Vec"):
            pto.TGATHERB(d, s, o)


def test_an_unassigned_source_is_placed_automatically_and_zero_on_the_simulator():
    with pto.Core("cpu", "numpy") as core:
        core.write("ub", 0, np.full(core.ub.size, 0xAB, np.uint8))
        d, s, o = T("float32", 1, 8)(), T("float32", 1, 8)(), T("uint32", 1, 8)()
        pto.TASSIGN(d, 0)
        pto.TASSIGN(o, 64)
        o.set(np.zeros((1, 8), np.uint32))
        pto.TGATHERB(d, s, o)
        assert s.addr is not None and d.numpy().tobytes() == bytes(32)    # the simulator's fresh buffer


def test_quirks_are_declared_in_target_table():
    assert pto.TARGETS["a2a3"].quirks["a2a3_tgatherb_tail_stream"] is True
    assert pto.TARGETS["a5"].quirks["a5_tgatherb_rowwise_b32_store"] is True
    assert pto.TARGETS["a5"].quirks["a5_tgatherb_unused_block_fault"] is False
    with pytest.raises(ValueError):
        pto.Core("cpu", "numpy", quirks={"a2a3_tgatherb_tail_stream": False})


# -- seeded sweep: random shapes and offsets against the references ------------------------------
@pytest.mark.parametrize("target", ["cpu", "a5", "a2a3"])
def test_random_sweep(target):
    rng = np.random.default_rng({"cpu": 11, "a5": 12, "a2a3": 13}[target])
    for case in range(40):
        dt = NPU9[rng.integers(len(NPU9))]
        size = np.dtype(getattr(pto, dt)).itemsize
        B, E = 32 // size, 256 // size
        rows = int(rng.integers(1, 5))
        cols = B * int(rng.integers(1, 20))
        vr, vc = int(rng.integers(1, rows + 1)), int(rng.integers(1, cols + 1))   # static dims are > 0
        if target == "cpu":                      # the simulator asserts validCol % 4 == 0
            vc = max(4, vc - vc % 4)
        ocols = 8 * (-(-cols // E) + 1)
        src_bytes = 0x2000
        offs = rng.integers(0, src_bytes // 32, rows * ocols) * 32
        if target == "cpu":
            offs = offs + rng.integers(0, 32, offs.size) * (rng.random(offs.size) < 0.3)
        core, d, s, o = setup(target, T(dt, rows, cols, vr, vc), T(dt, src_bytes // size // 64, 64),
                              T("uint32", rows, ocols), offs, seed=case)
        before = ub(core)
        pto.TGATHERB(d, s, o)
        ref = {"cpu": ref_cpu, "a2a3": ref_a2a3}.get(target)
        rowwise = -(-cols // E) > rows
        exp = ref(before, d, s, o) if ref else ref_core(before, d, s, o, rowwise_b32=rowwise)
        assert ub(core).tobytes() == exp.tobytes(), (case, dt, rows, cols, vr, vc)
        core.__exit__()
