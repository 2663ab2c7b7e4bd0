"""TCMP / TCMPS / TSEL / TSELS per target (docs/compare.md): mask bytes against goldens packed here
from each target's rule (bit c of a row at byte c/8, bit c%8, and each target's row pitch,
padding lanes and untouched bytes)."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto

V = pto.TileType.Vec
EQ, NE, GT = pto.CmpMode.EQ, pto.CmpMode.NE, pto.CmpMode.GT
pytestmark = pytest.mark.usefixtures("fresh_stack")


def tile(dt, rows, cols, addr, vr=None, vc=None):
    t = pto.Tile[V, getattr(pto, dt), rows, cols, pto.BLayout.RowMajor, rows if vr is None else vr,
                 cols if vc is None else vc]()
    pto.TASSIGN(t, addr)
    return t


def packed(bits) -> list[int]:
    """LSB-first bytes of a bool sequence."""
    bits = list(bits) + [0] * (-len(bits) % 8)
    return [sum(int(b) << k for k, b in enumerate(bits[i:i + 8])) for i in range(0, len(bits), 8)]


def setup(core, fill=0xEE):
    core.write("ub", 0, np.full(0x8000, fill, np.uint8))


def test_cpu_tcmp_packs_words_into_a_zeroed_tile():
    with pto.Core("cpu", "numpy") as core:
        setup(core)
        a, b = tile("float32", 2, 16, 0x0, vc=11), tile("float32", 2, 16, 0x100, vc=11)
        m = tile("uint8", 4, 32, 0x200, vr=2, vc=32)
        x = np.arange(22, dtype=np.float32).reshape(2, 11)
        a.set(x), b.set(np.full((2, 11), 4.0, np.float32))
        pto.TCMP(m, a, b, GT)
        got = core.read("ub", 0x200, 128).reshape(4, 32)
    want = np.zeros((4, 32), np.uint8)
    for r in range(2):
        want[r, :2] = packed(x[r] > 4)
    assert got.tolist() == want.tolist()        # the whole tile zeroed, rows 2, 3 too


def test_cpu_tcmp_uint32_words():
    with pto.Core("cpu", "numpy") as core:
        a, b = tile("int16", 1, 64, 0x0, vc=40), tile("int16", 1, 64, 0x100)
        m = tile("uint32", 1, 8, 0x200)
        a.set(np.arange(40, dtype=np.int16).reshape(1, 40)), b.set(np.full((1, 64), 3, np.int16))
        pto.TCMP(m, a, b, EQ)
        got = core.read("ub", 0x200, 32).view("<u4").tolist()
    assert got == [1 << 3, 0, 0, 0, 0, 0, 0, 0]


def test_a2a3_tcmp_compares_whole_repeats_int32_is_eq_and_ne_inverts_the_rows():
    with pto.Core("a2a3", "numpy") as core:
        setup(core, 0x00)
        a, b = tile("int32", 2, 8, 0x0), tile("int32", 2, 8, 0x1000)     # E = 64 lanes: 56 padding lanes
        m = tile("uint8", 2, 32, 0x2000)
        core.write("ub", 0x2000, np.full(64, 0x5A, np.uint8))
        a.set(np.array([[1, 2, 3, 4, 5, 6, 7, 8], [8, 7, 6, 5, 4, 3, 2, 1]], np.int32))
        b.set(np.full((2, 8), 4, np.int32))
        pto.TCMP(m, a, b, GT)                   # int32: vcmpv_eq whatever the mode
        got = core.read("ub", 0x2000, 64).reshape(2, 32)
        # row r reads lanes r*8 .. r*8+63 of each source: past row 0 of a lies row 1, then zeros (both 0: equal)
        mem_a = np.zeros(128, np.int32)
        mem_a[:16] = [1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1]
        mem_b = np.zeros(128, np.int32)
        mem_b[:16] = 4
        for r in range(2):
            bits = mem_a[r * 8: r * 8 + 64] == mem_b[r * 8: r * 8 + 64]
            assert got[r, :8].tolist() == packed(bits)
            assert got[r, 8:].tolist() == [0x5A] * 24            # past the 8 bytes: untouched
        pto.TCMP(m, a, b, NE)                   # EQ, then vnot over VR * Cols bytes
        got = core.read("ub", 0x2000, 64).reshape(2, 32)
        for r in range(2):
            bits = mem_a[r * 8: r * 8 + 64] == mem_b[r * 8: r * 8 + 64]
            assert got[r, :8].tolist() == [255 - v for v in packed(bits)]
            assert got[r, 8:].tolist() == [0xA5] * 24            # NOT of what the bytes held


def test_a5_tcmp_zeroes_bits_past_the_valid_width_in_its_chunk_and_leaves_the_rest():
    with pto.Core("a5", "numpy") as core:
        setup(core)
        a, b = tile("half", 2, 16, 0x0, vc=10), tile("half", 2, 16, 0x100, vc=10)
        m = tile("uint8", 2, 32, 0x200)
        x = np.arange(20, dtype=np.float16).reshape(2, 10)
        a.set(x), b.set(np.full((2, 10), 12.0, np.float16))
        pto.TCMP(m, a, b, GT)
        got = core.read("ub", 0x200, 64).reshape(2, 32)
    for r in range(2):
        assert got[r, :16].tolist() == packed(list(x[r] > 12) + [0] * 118)     # 16 bytes per 128 columns
        assert got[r, 16:].tolist() == [0xEE] * 16


def test_a5_int64_compare_covers_64_columns_in_32_bytes():
    with pto.Core("a5", "numpy") as core:
        setup(core)
        a, b = tile("int64", 1, 96, 0x0), tile("int64", 1, 96, 0x400)
        m = tile("uint8", 1, 64, 0x800)
        a.set(np.arange(96, dtype=np.int64).reshape(1, 96)), b.set(np.zeros((1, 96), np.int64))
        pto.TCMP(m, a, b, GT)
        got = core.read("ub", 0x800, 64)
    assert got[:32].tolist() == packed([c > 0 for c in range(64)] + [0] * 192) and got[32:].tolist() == [0xEE] * 32


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_nan_compares_unequal_everywhere(target):
    with pto.Core(target, "numpy") as core:
        setup(core, 0)
        a, b = tile("float32", 1, 64, 0x0), tile("float32", 1, 64, 0x400)
        m = tile("uint8", 1, 32, 0x800)
        x = np.zeros((1, 64), np.float32)
        x[0, :4] = [np.nan, 1.0, -0.0, np.inf]
        y = np.zeros((1, 64), np.float32)
        y[0, :4] = [np.nan, 1.0, 0.0, np.inf]
        a.set(x), b.set(y)
        pto.TCMP(m, a, b, EQ)
        eq = core.read("ub", 0x800, 1)[0]
        pto.TCMP(m, a, b, NE)
        ne = core.read("ub", 0x800, 1)[0]
    assert eq & 0xF == 0b1110 and ne & 0xF == 0b0001


def test_cpu_tcmps_reflows_its_byte_stream_and_compares_with_a_tolerance():
    with pto.Core("cpu", "numpy") as core:
        a = tile("float32", 2, 16, 0x0, vc=16)
        m = tile("uint8", 2, 32, 0x200, vc=3)               # dst's valid width is the stream's row pitch
        x = np.zeros((2, 16), np.float32)
        x[0, :4] = [1e-10, 0.0, np.inf, 1.0]
        x[1, 0] = 1e-10
        a.set(x)
        pto.TCMPS(m, a, 0.0, EQ)
        got = core.read("ub", 0x200, 64).reshape(2, 32)
    eq = np.abs(x.astype(np.float64)) < 1e-9                # 1e-10 "equals" 0; inf - 0 is not < 1e-9
    stream = packed(eq[0]) + packed(eq[1])                  # Src::Cols/8 = 2 bytes a row, flat
    want = np.zeros((2, 32), np.uint8)
    for c, v in enumerate(stream[:6]):
        want[c // 3, c % 3] = v
    assert got.tolist() == want.tolist()


def test_a2a3_tcmps_on_int16_compares_half_bit_patterns():
    got = {}
    for target in ("a2a3", "a5"):
        with pto.Core(target, "numpy") as core:
            a = tile("int16", 1, 128, 0x0)
            m = tile("uint8", 1, 32, 0x400)
            x = np.zeros((1, 128), np.int16)
            x[0, :3] = [-32768, 0x7C01, 5]
            a.set(x)
            pto.TCMPS(m, a, 0, EQ)
            got[target] = int(core.read("ub", 0x400, 1)[0]) & 0b111
    assert got == {"a2a3": 0b001, "a5": 0b000}              # 0x8000 is -0.0 == +0.0 as half


def test_tcmps_tile_form_first_element_or_elementwise():
    got = {}
    for target in ("cpu", "a5"):
        with pto.Core(target, "numpy") as core:
            a, b = tile("int32", 1, 8, 0x0), tile("int32", 1, 8, 0x100)
            m = tile("uint8", 1, 32, 0x200, vc=1 if target == "cpu" else 32)
            a.set(np.arange(8, dtype=np.int32).reshape(1, 8))
            b.set(np.array([[3, 1, 2, 3, 0, 0, 0, 0]], np.int32))
            pto.TCMPS(m, a, b, EQ)
            got[target] = int(core.read("ub", 0x200, 1)[0])
    assert got == {"cpu": packed([0, 1, 1, 1, 0, 0, 0, 0])[0], "a5": packed([0, 0, 0, 1, 0, 0, 0, 0])[0]}


def test_tsel_mask_walks():
    """VC = 12: the simulator reads one bit stream across rows (row 1 starts at bit 12), the NPUs
    start each row at its own mask row."""
    mbytes = np.arange(64, dtype=np.uint8).reshape(2, 32) * 37 % 251
    out = {}
    for target in ("cpu", "a2a3", "a5"):
        with pto.Core(target, "numpy") as core:
            mask = tile("uint8", 2, 32, 0x0, vc=2)
            a, b, d = tile("half", 2, 16, 0x100, vc=12), tile("half", 2, 16, 0x200, vc=12), tile("half", 2, 16, 0x300, vc=12)
            tmp = tile("int32", 1, 8, 0x400)
            core.write("ub", 0, mbytes.tobytes())
            a.set(np.ones((2, 12), np.float16)), b.set(np.zeros((2, 12), np.float16))
            pto.TSEL(d, mask, a, b, tmp)
            out[target] = d.numpy().astype(int).tolist()
            if target == "a2a3":                 # the last mask row's UB address, 4 copies (b16)
                assert core.read("ub", 0x400, 16).view("<u4").tolist() == [32] * 4
    bits = np.unpackbits(mbytes, axis=1, bitorder="little")
    flat = np.unpackbits(mbytes[:, :2].reshape(-1), bitorder="little")   # mask valid width 2: rows of 2 bytes
    assert out["cpu"] == [flat[:12].tolist(), flat[12:24].tolist()]
    assert out["a2a3"] == out["a5"] == [bits[0, :12].tolist(), bits[1, :12].tolist()]


def test_a5_tsel_on_bytes_steps_its_mask_16_bytes_per_256_columns():
    with pto.Core("a5", "numpy") as core:
        mask = tile("uint8", 1, 64, 0x0)
        a, b, d = tile("int8", 1, 512, 0x100), tile("int8", 1, 512, 0x400), tile("int8", 1, 512, 0x700)
        tmp = tile("int32", 1, 8, 0xA00)
        mb = np.zeros(64, np.uint8)
        mb[16] = 0x01                            # read for column 256 (j=1: +16 bytes)
        mb[32] = 0x01                            # where column 256's bit would be: read for column 384
        core.write("ub", 0, mb.tobytes())
        a.set(np.ones((1, 512), np.int8)), b.set(np.zeros((1, 512), np.int8))
        pto.TSEL(d, mask, a, b, tmp)
        got = d.numpy()[0]
    assert got[256] == 1 and got[128] == 1       # byte 16 bit 0 is column 128 too (chunk 0 reads bytes 0..31)
    assert got[384] == 1 and got.sum() == 3


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_tsels(target):
    with pto.Core(target, "numpy") as core:
        mask = tile("uint8", 2, 32, 0x0)
        src, d, tmp = tile("int32", 2, 8, 0x100), tile("int32", 2, 8, 0x200), tile("int32", 1, 8, 0x300)
        core.write("ub", 0, np.array([0b10100101] + [0] * 31 + [0b00001111] + [0] * 31, np.uint8).tobytes())
        src.set(np.arange(16, dtype=np.int32).reshape(2, 8))
        pto.TSELS(d, mask, src, tmp, -7)
        got = d.numpy().tolist()
        if target == "a2a3":
            assert core.read("ub", 0x300, 4).view("<i4")[0] == -7
    assert got == [[0, -7, 2, -7, -7, 5, -7, 7], [8, 9, 10, 11, -7, -7, -7, -7]]


@pytest.mark.parametrize("target, call, dt, ok", [
    ("a2a3", "TCMP", "int16", False), ("a5", "TCMP", "int16", True), ("cpu", "TCMP", "int16", False),
    ("a2a3", "TSEL", "int8", False), ("a5", "TSEL", "int8", True), ("a5", "TSELS", "bfloat16", False)])
def test_element_types(target, call, dt, ok):
    with pto.Core(target, "numpy"):
        x, y, d = tile(dt, 1, 64, 0x0), tile(dt, 1, 64, 0x400), tile(dt, 1, 64, 0x800)
        m, tmp = tile("uint8", 1, 32, 0xC00), tile("int32", 1, 8, 0xD00)
        run = {"TCMP": lambda: pto.TCMP(m, x, y, EQ), "TSEL": lambda: pto.TSEL(d, m, x, y, tmp),
               "TSELS": lambda: pto.TSELS(d, m, x, tmp, 1)}[call]
        if ok:
            run()
        else:
            with pytest.raises(pto.PtoCheckError):
                run()
