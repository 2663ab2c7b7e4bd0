"""A tile's PadVal and TLOAD, per target; goldens from the rules written out here.

* the simulator (cpu/TLoad.hpp:21-50, 135-143): the whole tile first gets ``getPadValue``:
  0 for Null, Zero and any custom value; Min/Max are -/+inf where ``numeric_limits`` has an
  infinity, else its min()/max(); ``_Float16`` (half, and bfloat16 while it is ``_Float16``)
  is unspecialised below C++23: 0; the float4 pairs fill both nibbles with raw 0x1 / 0x7.
* A2/A3 and A5 (common/arch/{memory,register}/tload_common.hpp, constants.hpp PadValueMap):
  a PadVal other than Null puts ``GetPadValue`` in the pad register and makes each ND row's
  (DN column's) filler to the 32-byte boundary that pad element; without one the filler is the
  burst's first element. 8-byte elements pad as two 32-bit units; custom bits are cut to the
  element's size.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto
from conftest import SENT, NPU, TARGETS, assert_bytes, new_core

V, RM, CM, NB = pto.TileType.Vec, pto.BLayout.RowMajor, pto.BLayout.ColMajor, pto.SLayout.NoneBox
PV = pto.PadValue

# PadValueMap<T, Min / Max> (constants.hpp), little-endian register bits
NPU_BITS = {"float32": (0xFF800000, 0x7F800000), "int32": (0x80000000, 0x7FFFFFFF), "uint32": (0, 0xFFFFFFFF),
            "half": (0xFC00, 0x7C00), "bfloat16": (0xFF80, 0x7F80), "int16": (0x8000, 0x7FFF),
            "uint16": (0, 0xFFFF), "int8": (0x80, 0x7F), "uint8": (0, 0xFF), "int64": (0, 0), "uint64": (0, 0)}
SIZE = {"float32": 4, "int32": 4, "uint32": 4, "half": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "int8": 1,
        "uint8": 1, "int64": 8, "uint64": 8}


def npu_pad_bytes(name: str, pad) -> bytes:
    size = SIZE[name]
    if isinstance(pad, pto.CustomPad):
        bits = pad.bits if size >= 4 else pad.bits & ((1 << 8 * size) - 1)
    elif pad is PV.Zero:
        bits = 0
    else:
        bits = NPU_BITS[name][0 if pad is PV.Min else 1]
    unit = min(size, 4)
    return (bits & ((1 << 8 * unit) - 1)).to_bytes(unit, "little") * (size // unit)


def cpu_pad_bytes(name: str, pad, half_is_float16: bool = True) -> bytes:
    size = SIZE[name]
    if isinstance(pad, pto.CustomPad) or pad in (PV.Null, PV.Zero):
        return bytes(size)
    lo = pad is PV.Min
    if name == "float32":
        return np.float32(-np.inf if lo else np.inf).tobytes()
    if name in ("half", "bfloat16"):
        if half_is_float16:
            return bytes(2)
        return np.array(-np.inf if lo else np.inf, np.float16 if name == "half" else ml_dtypes.bfloat16).tobytes()
    info = np.iinfo(name)
    return np.array(info.min if lo else info.max, name).tobytes()


def gm_tensor(core, data, dtype, rows, cols, layout=pto.Layout.ND):
    ptr = core.gm_put(data)
    if layout == pto.Layout.ND:
        G = pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, rows, cols], pto.Stride[1, 1, 1, cols, 1]]
    else:
        G = pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, rows, cols], pto.Stride[1, 1, 1, 1, rows], layout]
    return G(ptr)


PADS = [PV.Null, PV.Zero, PV.Max, PV.Min, pto.PadCustom(-1.0), pto.PadValueCustom(np.int16(-3))]
TYPES = ["float32", "int32", "uint32", "half", "bfloat16", "int16", "uint16", "int8", "uint8", "int64", "uint64"]


def test_tile_takes_padval_and_compact_as_its_tenth_and_eleventh_parameters():
    T = pto.Tile[V, pto.float32, 4, 16, RM, 4, 16, NB, 512, PV.Max, pto.CompactMode.Normal]
    assert T.PadVal is PV.Max and T.Compact is pto.CompactMode.Normal
    assert T.__name__.endswith(", Max, Normal]")
    D = pto.Tile[V, pto.float32, 4, 16]
    assert D.PadVal is PV.Null and D.Compact is pto.CompactMode.Null and "Null" not in D.__name__
    assert pto.Tile[V, pto.float32, 4, 16, RM, 4, 16, NB, 512, 2].PadVal is PV.Max       # the enum's value
    C = pto.Tile[V, pto.float32, 4, 16, RM, 4, 16, NB, 512, (1 << 32) | 0x3F800000]
    assert C.PadVal == pto.PadCustom(1.0)
    with pytest.raises(TypeError, match="PadVal"):
        pto.Tile[V, pto.float32, 4, 16, RM, 4, 16, NB, 512, 9]
    with pytest.raises(TypeError, match="PadVal"):
        pto.Tile[V, pto.float32, 4, 16, RM, 4, 16, NB, 512, "Max"]


def test_custom_pad_values_encode_as_the_vendor_static_asserts_say():
    """constants.hpp:216-240: the static_asserts on PadValueCustom / getCustomPadBits."""
    assert pto.PadValueCustom(np.float32(-1.0)).value == 0x1BF800000
    assert pto.PadValueCustom(-1.0).bits == 0xBF800000
    assert pto.PadValueCustom(np.int32(-1)).bits == 0xFFFFFFFF == pto.PadValueCustom(-1).bits
    assert pto.PadValueCustom(np.uint8(255)).value == 0x1000000FF
    assert pto.PadValueCustom(np.uint8(0x42)).value == 0x100000042
    assert pto.PadValueCustom(np.float16(-1.0)).bits == 0xBC00
    assert pto.PadValueCustom(ml_dtypes.bfloat16(-1.0)).bits == 0xBF80
    assert pto.PadValueCustom(np.int16(-3)).bits == 0xFFFD
    assert pto.PadValueCustom16(0x7E00).bits == 0x7E00
    assert pto.PadCustom(0.5).bits == 0x3F000000 and pto.PadCustom(42).bits == 42
    assert pto.PadCustom(-1).bits == 0xFFFFFFFF
    with pytest.raises(TypeError):
        pto.PadValueCustom(np.float64(1.0))
    with pytest.raises(TypeError):
        pto.PadValueCustom(2 ** 31)


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("pad", PADS, ids=lambda p: getattr(p, "name", repr(p)))
def test_cpu_tload_fills_the_whole_tile_with_the_pad_value(name, pad):
    dt = getattr(pto, name)
    size = SIZE[name]
    cols = 64 // size
    data = np.arange(1, 1 + 2 * 3).astype(pto.dtypes.as_dtype(dt))
    with new_core("cpu") as core:
        t = pto.Tile[V, dt, 4, cols, RM, 2, 3, NB, 512, pad]()
        pto.TASSIGN(t, 0x100)
        pto.TLOAD(t, gm_tensor(core, data, dt, 2, 3))
        want = np.frombuffer(cpu_pad_bytes(name, pad) * (4 * cols), np.uint8).reshape(4, cols * size).copy()
        want[:2, :3 * size] = data.view(np.uint8).reshape(2, 3 * size)
        assert_bytes(core.read("ub", 0x100, 4 * cols * size), want.reshape(-1))


@pytest.mark.parametrize("name", ["half", "bfloat16"])
def test_cpu_half_limits_are_infinite_from_cpp23(name):
    """Quirk cpu_bfloat16_is_half off (std::bfloat16_t, C++23): numeric_limits<_Float16> and
    <std::bfloat16_t> are specialised, so Max/Min fill with +-inf."""
    dt = getattr(pto, name)
    for pad in (PV.Max, PV.Min):
        with new_core("cpu", quirks={"cpu_bfloat16_is_half": False}) as core:
            t = pto.Tile[V, dt, 1, 16, RM, 1, 1, NB, 512, pad]()
            pto.TASSIGN(t, 0)
            pto.TLOAD(t, gm_tensor(core, np.zeros(1, pto.dtypes.as_dtype(dt)), dt, 1, 1))
            assert core.read("ub", 2, 30).tobytes() == cpu_pad_bytes(name, pad, half_is_float16=False) * 15


@pytest.mark.parametrize("pad,byte", [(PV.Min, 0x11), (PV.Max, 0x77), (pto.PadCustom(7), 0), (PV.Zero, 0)])
def test_cpu_float4_pads_both_nibbles_with_numeric_limits(pad, byte):
    """cpu/MXTypes.hpp numeric_limits<float4_e2m1x2_t>: min() raw 0x1, max() raw 0x7, no
    infinity; TLOAD fills GetSizeInBytes with (pad << 4) | pad."""
    with new_core("cpu") as core:
        t = pto.Tile[V, pto.float4_e2m1x2, 2, 64, RM, 1, 1, NB, 512, pad]()
        pto.TASSIGN(t, 0)
        src = core.gm_put(np.zeros(1, np.uint8)).cast(pto.float4_e2m1x2)
        G = pto.GlobalTensor[pto.float4_e2m1x2, pto.Shape[1, 1, 1, 1, 1], pto.Stride[1, 1, 1, 1, 1]]
        pto.TLOAD(t, G(src))
        ub = core.read("ub", 0, 64)
        assert ub[0] & 0xF == 0 and ub[0] >> 4 == byte & 0xF and (ub[1:] == byte).all()


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("pad", PADS, ids=lambda p: getattr(p, "name", repr(p)))
def test_npu_tload_row_filler_is_the_pad_element(target, name, pad):
    dt = getattr(pto, name)
    size = SIZE[name]
    cols, vc = 64 // size, 1                      # one element a row: filler to 32 bytes
    data = (np.arange(1, 1 + 2 * vc) * 3).astype(pto.dtypes.as_dtype(dt))
    with new_core(target) as core:
        t = pto.Tile[V, dt, 2, cols, RM, 2, vc, NB, 512, pad]()
        pto.TASSIGN(t, 0x100)
        pto.TLOAD(t, gm_tensor(core, data, dt, 2, vc))
        want = np.full((2, cols * size), SENT, np.uint8)
        rows = data.view(np.uint8).reshape(2, vc * size)
        want[:, :vc * size] = rows
        fill = (32 - vc * size) // size
        for r in range(2):
            one = rows[r, :size].tobytes() if pad is PV.Null else npu_pad_bytes(name, pad)
            want[r, vc * size: 32] = np.frombuffer(one * fill, np.uint8)
        assert_bytes(core.read("ub", 0x100, 2 * cols * size), want.reshape(-1))
        reg = core.regs.out_to_ub
        if pad is not PV.Null:                    # set_mov_pad_val(GetPadValue): the register keeps it
            assert reg.pad_set and reg.pad_bytes(min(size, 4)) == npu_pad_bytes(name, pad)[:min(size, 4)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pad", [PV.Null, PV.Min])
def test_dn_columns_take_the_same_filler(target, pad):
    """DN -> ColMajor: one burst per column (lenBurst = VR*sizeof), its filler past VR."""
    data = np.arange(1, 1 + 3 * 2, dtype=np.int16)            # (r, c) at c*3 + r
    with new_core(target) as core:
        t = pto.Tile[V, pto.int16, 32, 2, CM, 3, 2, NB, 512, pad]()
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, gm_tensor(core, data, pto.int16, 3, 2, pto.Layout.DN))
        got = core.read("ub", 0, 128).view(np.int16).reshape(2, 32)     # [column, row]
        for c in range(2):
            assert (got[c, :3] == data[3 * c: 3 * c + 3]).all()
            if target == "cpu":
                rest = 0 if pad is PV.Null else -32768
                assert (got[c, 3:] == rest).all()
            else:
                fill = data[3 * c] if pad is PV.Null else -32768
                assert (got[c, 3:16] == fill).all()
                assert (got[c, 16:].view(np.uint16) == SENT * 0x101).all()


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_pad_values_on_a_core_of_n_equal_single_cores(backend):
    """Instances with their own data: each instance's filler is its own first element or the pad."""
    from ptogpu.backend import native_backend
    ok, _ = native_backend.available() if backend == "native" else (True, "")
    if not ok:
        pytest.skip("native backend not built here")
    rng = np.random.default_rng(3)
    data = rng.integers(-100, 100, (5, 2 * 3)).astype(np.int32)
    for target in TARGETS:
        for pad in (PV.Null, PV.Max, pto.PadCustom(9)):
            T = pto.Tile[V, pto.int32, 2, 8, RM, 2, 3, NB, 512, pad]
            G = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 2, 3], pto.Stride[1, 1, 1, 3, 1]]
            with pto.Core(target, backend, batch=5) as core:
                ptr = core.gm_put(data, per_instance=True)
                t = T()
                pto.TASSIGN(t, 0)
                pto.TLOAD(t, G(ptr))
                many = core.read("ub", 0, 64)
            for k in range(5):
                with pto.Core(target, backend) as one:
                    t = T()
                    pto.TASSIGN(t, 0)
                    pto.TLOAD(t, G(one.gm_put(data[k])))
                    assert_bytes(many[k], one.read("ub", 0, 64))


def test_ptoir_tile_buf_pad_is_the_tiles_padval():
    from ptogpu.errors import PtoIRError
    from ptogpu.ptoir import types as T
    cls, pad = T.tile_class("!pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=2, v_col=3, "
                            "blayout=row_major, slayout=none_box, fractal=512, pad=3>", "here")
    assert cls.PadVal is PV.Min and pad == 3
    assert T.tile_text(cls).endswith("pad=3>")
    with pytest.raises(PtoIRError, match="custom pad value"):
        T.tile_text(pto.Tile[V, pto.float32, 2, 8, RM, 2, 3, NB, 512, pto.PadCustom(1.0)])


@pytest.mark.parametrize("pad", [PV.Null, PV.Zero, PV.Max])
def test_a5_mat_loads_move_the_tensor_shape_and_right_pad_from_the_l1_register(pad):
    """a5/TLoad.hpp TLoadCubeND2ND: Shape0*1*2*3 bursts of VC elements whatever the tile's valid
    rows, each right-padded by (Cols - VC) % (32/sizeof) elements from the L1 pad register (data
    select on): the register as it stands for Null / Zero, GetPadValue for the others (set for the
    load, 0 after)."""
    data = np.arange(1, 1 + 4 * 5, dtype=np.int16)              # 4 rows of 5
    with new_core("a5") as core:
        core.regs.out_to_l1.pad, core.regs.out_to_l1.pad_set = 0x1234, True
        t = pto.Tile[pto.TileType.Mat, pto.int16, 8, 32, RM, 2, 5, NB, 512, pad]()   # valid 2 rows only
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, gm_tensor(core, data, pto.int16, 4, 5))
        got = core.read("l1", 0, 8 * 64).view(np.int16).reshape(8, 32)
        fill = 0x1234 if pad is not PV.Max else 0x7FFF
        for r in range(4):
            assert (got[r, :5] == data[5 * r: 5 * r + 5]).all()
            assert (got[r, 5:16] == fill).all()                  # 5 + 11 = 16 elements: 32 bytes
            assert (got[r, 16:].view(np.uint16) == SENT * 0x101).all()
        assert (got[4:].view(np.uint16) == SENT * 0x101).all()
        assert core.regs.out_to_l1.pad == (0 if pad is PV.Max else 0x1234)


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_other_targets_mat_loads_write_the_valid_region(target):
    data = np.arange(1, 1 + 4 * 5, dtype=np.int16)
    with new_core(target) as core:
        t = pto.Tile[pto.TileType.Mat, pto.int16, 8, 32, RM, 2, 5]()
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, gm_tensor(core, data, pto.int16, 4, 5))
        got = core.read("l1", 0, 8 * 64).view(np.int16).reshape(8, 32)
        assert (got[:2, :5] == data[:10].reshape(2, 5)).all()
        rest = 0 if target == "cpu" else np.int16(np.uint16(SENT * 0x101).view(np.int16))
        assert (got[2:] == rest).all() and (got[:2, 5:] == rest).all()


def test_a5_mat_load_past_l1_faults_before_touching_memory():
    with new_core("a5") as core:
        t = pto.Tile[pto.TileType.Mat, pto.int16, 16, 32, RM, 16, 32]()
        pto.TASSIGN(t, 0)
        G = pto.GlobalTensor[pto.int16, pto.Shape[1, 1, 1, -1, 32], pto.Stride[1, 1, 1, 32, 1]]
        g = G(core.gm_put(np.zeros(64, np.int16)), pto.Shape[1, 1, 1, -1, 32](1 << 40))
        before = core.read("l1", 0, 1024).copy()
        with pytest.raises(pto.PtoFault, match="past its"):
            pto.TLOAD(t, g)
        assert (core.read("l1", 0, 1024) == before).all()


@pytest.mark.parametrize("target", TARGETS)
def test_tload_tstore_take_a_tile_and_a_tensor_whatever_is_passed(target):
    """Swapped, missing or foreign operands: the one-line PtoCheckError, before any of the
    4-bit, pad or cube paths looks at them (an int once reached tile.DType: AttributeError)."""
    with new_core(target) as core:
        t = pto.Tile[pto.TileType.Mat, pto.int16, 8, 32]()
        g = gm_tensor(core, np.zeros(256, np.int16), pto.int16, 8, 32)
        for f in (pto.TLOAD, pto.TSTORE):
            for args in ((t, 5), (5, g), (None, None), (g, g)):
                with pytest.raises(pto.PtoCheckError, match="takes a Tile and a GlobalTensor"):
                    f(*args)


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("form", ["nd2nz", "dn2zn"])
def test_npu_nz_mat_loads_zero_each_lines_last_c0_block(target, form):
    """TLOAD ND -> NZ (DN -> ZN) Mat tiles are nd2nz (dn2nz) bursts of whole C0 blocks: each valid
    row's (column's) last block past VC (VR) is written 0 (dma.nd2nz_tail), the rest of the tile
    untouched."""
    C0 = 8                                               # float32
    with new_core(target) as core:
        if form == "nd2nz":
            T = pto.Tile[pto.TileType.Mat, pto.float32, 16, 16, CM, 3, 5, pto.SLayout.RowMajor, 512]
            data = np.arange(1, 16, dtype=np.float32)
            g = gm_tensor(core, data, pto.float32, 3, 5)
        else:
            T = pto.Tile[pto.TileType.Mat, pto.float32, 16, 16, RM, 5, 3, pto.SLayout.ColMajor, 512]
            data = np.arange(1, 16, dtype=np.float32)
            g = gm_tensor(core, data, pto.float32, 5, 3, pto.Layout.DN)
        t = T()
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, g)
        got = core.read("l1", 0, 16 * 16 * 4).view(np.uint32)
        sent = np.uint32(SENT * 0x01010101)
        for r in range(16):
            for c in range(16):
                o = int(T.offsets(r, c))
                if r < T.ValidRow and c < T.ValidCol:
                    want = np.float32(data[r * 5 + c] if form == "nd2nz" else data[c * 5 + r]).view(np.uint32)
                elif (form == "nd2nz" and r < 3 and c < C0) or (form == "dn2zn" and c < 3 and r < C0):
                    want = 0                              # the last C0 block's tail
                else:
                    want = sent
                assert got[o] == want, (r, c, hex(int(got[o])))


@pytest.mark.parametrize("target", NPU)
def test_npu_vec_and_nd2nz_loads_are_traced_as_their_bursts(target):
    """A burst trace holds an NPU TLOAD's bursts (every backend: this file runs on native too,
    where the burst engine moves them): one a valid row, filled to its 32-byte end; an ND -> NZ
    Mat load one a C0 block of each valid row, the last one filled past the valid columns."""
    with new_core(target) as core:
        g = gm_tensor(core, np.arange(1, 16, dtype=np.float32), pto.float32, 3, 5)
        t = pto.Tile[V, pto.float32, 4, 16, RM, 3, 5, NB, 512, PV.Max]()
        m = pto.Tile[pto.TileType.Mat, pto.float32, 16, 16, CM, 3, 5, pto.SLayout.RowMajor, 512]()
        pto.TASSIGN(t, 0x200)
        pto.TASSIGN(m, 0x400)
        with core.trace() as tr:
            pto.TLOAD(t, g)
            pto.TLOAD(m, g)
        got = [(b.src_space, b.src - g.addr, b.dst_space, b.dst, b.nbytes, b.fill) for b in tr.bursts]
        assert got == [("gm", 20 * r, "ub", 0x200 + 64 * r, 20, 12) for r in range(3)] + \
            [("gm", 20 * r, "l1", 0x400 + 32 * r, 20, 12) for r in range(3)]


@pytest.mark.parametrize("target", NPU)
def test_npu_vec_stores_are_their_bursts_exact_bytes_and_traced(target):
    """An NPU TSTORE of an ND Vec tile is one copy_ubuf_to_gm burst a valid row of exactly its
    bytes (no filler in GM: TStoreUb2gmInstr): traced on every backend (this file runs on native
    too, where the burst engine moves them), and the GM bytes past each row's valid ones, and
    between the rows, keep what they held."""
    with new_core(target) as core:
        src = gm_tensor(core, np.arange(1, 16, dtype=np.float32), pto.float32, 3, 5)
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 3, 5], pto.Stride[1, 1, 1, 7, 1]]
        out = G(core.gm_put(np.full(3 * 7, -1, np.float32)))
        t = pto.Tile[V, pto.float32, 4, 16, RM, 3, 5, NB, 512, PV.Max]()
        pto.TASSIGN(t, 0x200)
        pto.TLOAD(t, src)
        with core.trace() as tr:
            pto.TSTORE(out, t)
        got = [(b.src_space, b.src, b.dst_space, b.dst - out.addr, b.nbytes, b.fill) for b in tr.bursts]
        assert got == [("ub", 0x200 + 64 * r, "gm", 28 * r, 20, 0) for r in range(3)]
        want = np.full((3, 7), -1, np.float32)
        want[:, :5] = np.arange(1, 16, dtype=np.float32).reshape(3, 5)
        assert core.read("gm", out.addr, 3 * 7 * 4).view(np.float32).tobytes() == want.tobytes()
