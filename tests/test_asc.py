"""``ptogpu.asc``: the vendor page's example (seed 001), the GM→UB forms, and every error case.

Goldens are hand-written from the vendor page's MakeGolden, or come from ``dma_ref`` (the
§D.3 write rule as a plain Python loop); the implementation is never asked for them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto
from ptogpu import asc
from conftest import SENT, new_core
from dma_ref import strided_copy

U8 = pto.uint8
BURSTS, LEN, NSTRIDE = 3, 48, 64
SEED_IN = np.array([(0x10 * (b + 1) + i) & 0xFF for b in range(BURSTS) for i in range(LEN)], np.uint8)


def seed_golden(mode: str) -> np.ndarray:
    """The page's MakeGolden: a buffer of 0xA5, with each mode's data laid in."""
    g = np.full(160 if mode == "compact" else 192, 0xA5, np.uint8)
    for b in range(BURSTS):
        s = SEED_IN[b * LEN:(b + 1) * LEN]
        if mode == "normal":
            g[b * 64: b * 64 + 48] = s
            g[b * 64 + 48: b * 64 + 64] = s[0]          # memset with the burst's first byte
        elif mode == "compact":
            g[b * 48: b * 48 + 48] = s
        else:
            g[b * 64 + 4: b * 64 + 52] = s
    return g


def run_seed(mode: str) -> np.ndarray:
    core = new_core("a5")
    with core:
        src = core.gm_put(SEED_IN)
        l1 = core.l1_ptr(0, U8)
        asc.asc_set_gm2l1_pad(0xA5A5A5A5)
        if mode == "normal":
            asc.asc_copy_gm2l1_align(l1, src, BURSTS, LEN, 0, 0, False, 4, LEN, NSTRIDE)
        elif mode == "compact":
            asc.asc_copy_gm2l1_align(l1, src, BURSTS, LEN, 0, 0, True, 4, LEN, LEN)
        else:
            asc.asc_copy_gm2l1_align(l1, src, BURSTS, LEN, 4, 12, False, 4, LEN, NSTRIDE)
        n = 160 if mode == "compact" else 192
        out = core.read("l1", 0, n)
        assert (core.read("l1", n, 64) == SENT).all()            # nothing past the image
    return out


@pytest.mark.parametrize("mode", ["normal", "compact", "left_right"])
def test_seed_example_matches_page_golden(mode):
    np.testing.assert_array_equal(run_seed(mode), seed_golden(mode))


def test_seed_normal_first_byte_explicit():
    out = run_seed("normal")
    assert out[48:64].tolist() == [0x10] * 16 and out[112:128].tolist() == [0x20] * 16
    assert out[176:192].tolist() == [0x30] * 16


def test_seed_sync_variant_is_identical():
    core = new_core("a5")
    with core:
        src = core.gm_put(SEED_IN)
        asc.asc_set_gm2l1_pad(0xA5A5A5A5)
        asc.asc_copy_gm2l1_align_sync(core.l1_ptr(0, U8), src, 3, 48, 4, 12, False, 4, 48, 64)
        np.testing.assert_array_equal(core.read("l1", 0, 192), seed_golden("left_right"))


def test_demo_runs(capsys):
    from ptogpu.demos import dma as demo
    demo.run()
    out = capsys.readouterr().out
    assert "normal" in out.lower() and "compact" in out.lower() and "a5" in out.lower()


# -- element sizes and pad values -------------------------------------------------------------
def _l1_copy(target, data, dtype, *args, pad=None, pre=None, nbytes=256):
    core = new_core(target)
    with core:
        src = core.gm_put(np.asarray(data, dtype))
        if pad is not None:
            asc.asc_set_gm2l1_pad(pad)
        if pre:
            pre()
        asc.asc_copy_gm2l1_align(core.l1_ptr(0, dtype), src, *args)
        return core.read("l1", 0, nbytes), bytes(core.read("gm", src.addr, np.asarray(data, dtype).nbytes))


def test_b16_first_element_filler():
    data = np.arange(1, 31, dtype=np.uint16) * 0x0101 + 0x1000           # 30 halves
    got, gm = _l1_copy("a5", data, pto.uint16, 3, 20, 0, 0, False, 0, 20, 32, nbytes=128)
    want = bytearray([SENT] * 128)
    strided_copy(want, gm, src=0, dst=0, n=3, length=20, elem=2, ss=20, ds=32)
    np.testing.assert_array_equal(got, np.frombuffer(bytes(want), np.uint8))
    # hand check: burst 1 starts with element 10 (0x1B0A + ...); its filler repeats it
    first1 = data[10].tobytes()
    assert bytes(got[52:64]) == first1 * 6


def test_b16_pad_register_uses_low_16_bits():
    data = np.arange(10, dtype=np.uint16)
    got, _ = _l1_copy("a5", data, pto.uint16, 1, 20, 0, 0, True, 0, 20, 32, pad=0xDEADBEEF, nbytes=64)
    assert bytes(got[20:32]) == b"\xef\xbe" * 6 and (got[32:] == SENT).all()


def test_b32_constant_pad_byte_order():
    data = np.arange(5, dtype=np.float32)
    got, _ = _l1_copy("a5", data, pto.float32, 1, 20, 0, 0, True, 0, 20, 32, pad=0x11223344, nbytes=32)
    assert bytes(got[20:32]) == b"\x44\x33\x22\x11" * 3


def test_b16_left_right_padding_and_filler():
    data = np.arange(100, 130, dtype=np.int16)
    got, gm = _l1_copy("a5", data, pto.int16, 2, 20, 3, 5, False, 0, 40, 64, pad=0x7F01, nbytes=192)
    want = bytearray([SENT] * 192)
    strided_copy(want, gm, src=0, dst=0, n=2, length=20, elem=2, left=3, right=5,
                 const_pad=b"\x01\x7f", ss=40, ds=64)
    np.testing.assert_array_equal(got, np.frombuffer(bytes(want), np.uint8))
    # hand check of burst 0: 6 pad bytes, 20 data bytes, 10 + 28 pad bytes up to 64
    assert bytes(got[:6]) == b"\x01\x7f" * 3
    assert bytes(got[6:26]) == data[:10].tobytes()
    assert bytes(got[26:64]) == b"\x01\x7f" * 19


def test_scenario4_compact_two_40_byte_bursts():
    data = np.arange(80, dtype=np.uint8)
    got, _ = _l1_copy("a5", data, U8, 2, 40, 0, 0, True, 0, 40, 40, pad=0xEE, nbytes=128)
    assert bytes(got[:80]) == data.tobytes() and bytes(got[80:96]) == b"\xee" * 16
    assert (got[96:] == SENT).all()


def test_scenario5_constant_filler_is_minus_one():
    data = np.arange(10, dtype=np.int32) + 7
    got, _ = _l1_copy("a5", data, pto.int32, 1, 40, 0, 0, True, 0, 40, 64, pad=-1, nbytes=96)
    assert bytes(got[:40]) == data.tobytes() and bytes(got[40:64]) == b"\xff" * 24
    assert (got[64:] == SENT).all()


def test_bytes_between_filler_and_next_burst_untouched():
    data = np.arange(120, dtype=np.uint8)
    got, _ = _l1_copy("a5", data, U8, 2, 40, 0, 0, False, 0, 40, 96, nbytes=192)
    assert (got[64:96] == SENT).all() and (got[160:] == SENT).all()
    assert bytes(got[96:136]) == data[40:80].tobytes() and (got[136:160] == 40).all()


def test_pad_value_accepts_typed_numpy_scalar():
    data = np.ones(4, np.float16)
    got, _ = _l1_copy("a5", data, pto.half, 1, 8, 0, 0, True, 0, 8, 32, pad=np.float16(-2.0), nbytes=32)
    assert bytes(got[8:32]) == np.full(12, -2.0, np.float16).tobytes()


def test_hifloat8_and_bfloat16_are_accepted():
    for dt in (pto.hifloat8, pto.bfloat16):
        core = new_core("a5")
        with core:
            src = core.gm_put(np.arange(16, dtype=np.uint8), dtype=pto.hifloat8) if dt == pto.hifloat8 \
                else core.gm_put(np.arange(8, dtype=np.float32).astype(pto.bfloat16))
            asc.asc_copy_gm2l1_align(core.l1_ptr(0, dt), src, 1, 16, 0, 0, False, 0, 16, 32)
            assert bytes(core.read("l1", 0, 16)) == bytes(core.read("gm", src.addr, 16))


# -- GM → UB (950) --------------------------------------------------------------------------------
def test_gm2ub_uses_its_own_pad_register():
    core = new_core("a5")
    with core:
        src = core.gm_put(np.arange(40, dtype=np.uint8))
        asc.asc_set_gm2l1_pad(0xA5)
        asc.asc_set_copy_pad_val(0x5A)
        asc.asc_copy_gm2ub_align(core.ub_ptr(64, U8), src, 1, 40, 0, 0, True, 0, 40, 64)
        asc.asc_copy_gm2l1_align(core.l1_ptr(64, U8), src, 1, 40, 0, 0, True, 0, 40, 64)
        assert bytes(core.read("ub", 104, 24)) == b"\x5a" * 24
        assert bytes(core.read("l1", 104, 24)) == b"\xa5" * 24
        assert (core.read("ub", 0, 64) == SENT).all()


def test_gm2ub_sync_and_loops_use_ub_registers():
    core = new_core("a5")
    with core:
        src = core.gm_put(np.arange(200, dtype=np.uint8))
        asc.asc_set_gm2l1_loop_size(5, 5)                 # must not affect the UB path
        asc.asc_set_gm2ub_loop_size(2, 1)
        asc.asc_set_gm2ub_loop1_stride(100, 128)
        asc.asc_set_copy_pad_val(0x77)
        asc.asc_copy_gm2ub_align_sync(core.ub_ptr(0, U8), src, 1, 10, 0, 0, True, 0, 10, 32)
        gm = bytes(core.read("gm", src.addr, 200))
        want = bytearray([SENT] * 256)
        strided_copy(want, gm, src=0, dst=0, n=1, length=10, elem=1, const_pad=b"\x77", ss=10,
                     ds=32, loop1=(2, 100, 128))
        np.testing.assert_array_equal(core.read("ub", 0, 256), np.frombuffer(bytes(want), np.uint8))


def test_set_mov_pad_val_alias():
    assert asc.set_mov_pad_val is asc.asc_set_copy_pad_val


# -- A2/A3 gap form -------------------------------------------------------------------------------
def test_gap_form_b16_first_element_filler():
    core = new_core("a2a3")
    with core:
        data = np.arange(1000, 1040, dtype=np.int16)
        src = core.gm_put(data)
        asc.copy_gm_to_ubuf_align_b16(core.ub_ptr(32, pto.int16), src, 0, 3, 20, 0, 0, 4, 1)
        gm = bytes(core.read("gm", src.addr, data.nbytes))
        want = bytearray([SENT] * 256)
        # src stride = len + srcGap = 24; dst stride = AlignUp(20, 32) + 32*1 = 64
        strided_copy(want, gm, src=0, dst=32, n=3, length=20, elem=2, ss=24, ds=64)
        np.testing.assert_array_equal(core.read("ub", 0, 256), np.frombuffer(bytes(want), np.uint8))
        assert bytes(core.read("ub", 32 + 64 + 20, 12)) == data[12].tobytes() * 6


def test_gap_form_b32_pads_take_mov_pad_val():
    core = new_core("a2a3")
    with core:
        data = np.arange(12, dtype=np.uint32) + 0x01020300
        src = core.gm_put(data)
        asc.asc_set_copy_pad_val(0xCAFEBABE)
        asc.copy_gm_to_ubuf_align_b32(core.ub_ptr(0, pto.uint32), src, 0, 2, 16, 1, 2, 8, 0)
        gm = bytes(core.read("gm", src.addr, data.nbytes))
        want = bytearray([SENT] * 128)
        # body 4 + 16 + 8 = 28 -> stride AlignUp(28, 32) = 32; src stride 16 + 8 = 24
        strided_copy(want, gm, src=0, dst=0, n=2, length=16, elem=4, left=1, right=2,
                     const_pad=b"\xbe\xba\xfe\xca", ss=24, ds=32)
        np.testing.assert_array_equal(core.read("ub", 0, 128), np.frombuffer(bytes(want), np.uint8))


def test_gap_form_b8():
    core = new_core("a2a3")
    with core:
        src = core.gm_put(np.arange(64, dtype=np.uint8))
        asc.copy_gm_to_ubuf_align_b8(core.ub_ptr(0, U8), src, 0, 2, 5, 0, 0, 0, 0)
        assert bytes(core.read("ub", 0, 64)) == bytes([0, 1, 2, 3, 4] + [0] * 27 + [5, 6, 7, 8, 9] + [5] * 27)


# -- errors ---------------------------------------------------------------------------------------

@pytest.fixture
def a5():
    core = new_core("a5")
    with core:
        yield core


def _copy(core, *args, dst=0, dtype=U8, n=64):
    src = core.gm_put(np.zeros(n, dtype))
    asc.asc_copy_gm2l1_align(core.l1_ptr(dst, dtype), src, *args)


@pytest.mark.parametrize("args, dst", [
    ((1, 32, 0, 0, False, 0, 32, 32), 16),            # L1 destination not 32-byte aligned
    ((1, 40, 0, 0, False, 0, 40, 48), 0),             # dst stride != len and not aligned (n = 1)
    ((2, 40, 0, 0, False, 0, 40, 40 + 8), 0),
    ((2, 40, 1, 0, False, 0, 40, 40), 0),             # compact stride with pads: must be aligned
    ((1, 32, 33, 0, False, 0, 32, 96), 0),            # pad over 32 bytes (b8)
    ((1, 32, 0, 64, False, 0, 32, 128), 0),           # pad field width
    ((1 << 21, 1, 0, 0, False, 0, 1, 1), 0),          # n_burst field
    ((1, 1 << 21, 0, 0, False, 0, 1, 32), 0),         # len_burst field
    ((1, 32, 0, 0, False, 0, 1 << 40, 32), 0),        # src stride field
    ((1, 32, 0, 0, False, 0, 32, 1 << 21), 0),        # dst stride field
    ((1, 32, 0, 0, False, 16, 32, 32), 0),            # l2_cache_ctl field
    ((-1, 32, 0, 0, False, 0, 32, 32), 0),            # negative
    ((1, 64, 0, 0, False, 0, 64, 64), 512 * 1024 - 32),   # 512 KiB L1 bound
    ((4, 32, 0, 0, False, 0, 0, 192 * 1024), 0),      # L1 bound reached by the last burst
])
def test_run_time_faults(a5, args, dst):
    before = bytes(a5.read("l1", 0, a5.l1.size))
    with pytest.raises(pto.PtoFault):
        _copy(a5, *args, dst=dst)
    assert bytes(a5.read("l1", 0, a5.l1.size)) == before          # nothing written


@pytest.mark.parametrize("dtype, count", [(pto.int16, 17), (pto.float32, 9)])
def test_pad_over_32_bytes_per_element_size(a5, dtype, count):
    asc.asc_set_gm2l1_pad(0)
    with pytest.raises(pto.PtoFault):
        _copy(a5, 1, 32, count, 0, False, 0, 32, 128, dtype=dtype)
    with pytest.raises(pto.PtoFault):
        _copy(a5, 1, 32, 0, count, False, 0, 32, 128, dtype=dtype)
    _copy(a5, 1, 32, count - 1, count - 1, False, 0, 32, 128, dtype=dtype)   # the limit is fine


def test_len_not_multiple_of_element(a5):
    with pytest.raises(pto.PtoFault):
        _copy(a5, 1, 6, 0, 0, False, 0, 6, 32, dtype=pto.float32)


def test_source_outside_gm(a5):
    src = a5.gm_put(np.zeros(64, np.uint8))
    with pytest.raises(pto.PtoFault):
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, U8), src + (a5.gm.size + 64), 1, 32, 0, 0, False, 0, 32, 32)


def test_loop_mode_with_left_right_padding_faults(a5):
    asc.asc_set_gm2l1_pad(0)
    asc.asc_set_gm2l1_loop_size(2, 1)
    asc.asc_set_gm2l1_loop1_stride(32, 64)
    with pytest.raises(pto.PtoFault):
        _copy(a5, 1, 32, 1, 0, False, 0, 32, 64)
    asc.asc_set_gm2l1_loop_size(1, 1)                 # reset: now legal
    _copy(a5, 1, 32, 1, 0, False, 0, 32, 64)


def test_loop_dst_stride_must_be_aligned_even_with_loop_size_one(a5):
    asc.asc_set_gm2l1_loop2_stride(0, 48)
    with pytest.raises(pto.PtoFault):
        _copy(a5, 1, 32, 0, 0, False, 0, 32, 32)


@pytest.mark.parametrize("call", [
    lambda: asc.asc_set_gm2l1_loop_size(1 << 21, 1),
    lambda: asc.asc_set_gm2l1_loop_size(1, -1),
    lambda: asc.asc_set_gm2l1_loop1_stride(1 << 40, 0),
    lambda: asc.asc_set_gm2l1_loop2_stride(0, (1 << 21) + 32),
    lambda: asc.asc_set_gm2ub_loop_size(1 << 21, 1),
    lambda: asc.asc_set_gm2l1_pad(1 << 32),
])
def test_setter_field_widths(a5, call):
    with pytest.raises(pto.PtoFault):
        call()


def test_burst_count_over_4095_warns(a5):
    src = a5.gm_put(np.zeros(32, np.uint8))
    with pytest.warns(UserWarning, match="4095"):
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, U8), src, 4096, 32, 0, 0, False, 0, 0, 0)


def test_zero_bursts_or_length_is_a_no_op(a5):
    before = bytes(a5.read("l1", 0, 1024))
    with a5.trace() as tr:
        _copy(a5, 0, 32, 0, 0, False, 0, 32, 32)
        _copy(a5, 3, 0, 0, 0, False, 0, 32, 32)
        _copy(a5, 0, 32, 0, 0, False, 0, 32, 32, dst=16)       # no-op before the alignment rule
    assert bytes(a5.read("l1", 0, 1024)) == before and tr.totals()["bursts"] == 0


@pytest.mark.parametrize("dtype", [pto.float8_e4m3, pto.float8_e5m2, pto.int64, pto.uint64])
def test_dtype_outside_the_list_is_a_check_error(a5, dtype):
    src = a5.gm_put(np.zeros(8, dtype))
    with pytest.raises(pto.PtoCheckError):
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, dtype), src, 1, 32, 0, 0, False, 0, 32, 32)


def test_type_problems_are_check_errors(a5):
    src = a5.gm_put(np.zeros(64, np.uint8))
    l1 = a5.l1_ptr(0, U8)
    bad = [
        (a5.ub_ptr(0, U8), src),                      # dst in UB
        (l1, a5.l1_ptr(64, U8)),                      # src not GM
        (a5.l1_ptr(0, pto.int16), src),               # dtypes differ
        (0, src),                                     # not a pointer
        (l1, pto.Core("a5", "numpy").gm_put(np.zeros(64, np.uint8))),   # another core's pointer
    ]
    before = bytes(a5.read("l1", 0, 256))
    for d, s in bad:
        with pytest.raises(pto.PtoCheckError):
            asc.asc_copy_gm2l1_align(d, s, 1, 32, 0, 0, False, 0, 32, 32)
    assert bytes(a5.read("l1", 0, 256)) == before
    with pytest.raises(pto.PtoCheckError):
        asc.asc_copy_gm2ub_align(l1, src, 1, 32, 0, 0, False, 0, 32, 32)
    with pytest.raises(pto.PtoCheckError):
        asc.asc_copy_gm2ub_align(a5.ub_ptr(0, U8), a5.ub_ptr(64, U8), 1, 32, 0, 0, False, 0, 32, 32)


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_950_instructions_missing_on_other_targets(target):
    core = new_core(target)
    with core:
        src = core.gm_put(np.zeros(64, np.uint8))
        calls = [
            lambda: asc.asc_copy_gm2l1_align(core.l1_ptr(0, U8), src, 1, 32, 0, 0, False, 0, 32, 32),
            lambda: asc.asc_copy_gm2l1_align_sync(core.l1_ptr(0, U8), src, 1, 32, 0, 0, False, 0, 32, 32),
            lambda: asc.asc_copy_gm2ub_align(core.ub_ptr(0, U8), src, 1, 32, 0, 0, False, 0, 32, 32),
            lambda: asc.asc_set_gm2l1_pad(1),
            lambda: asc.asc_set_gm2l1_loop_size(1, 1),
            lambda: asc.asc_set_gm2l1_loop1_stride(0, 0),
            lambda: asc.asc_set_gm2l1_loop2_stride(0, 0),
            lambda: asc.asc_set_gm2ub_loop_size(1, 1),
            lambda: asc.asc_set_gm2ub_loop1_stride(0, 0),
            lambda: asc.asc_set_gm2ub_loop2_stride(0, 0),
        ]
        for call in calls:
            with pytest.raises(pto.PtoCheckError):
                call()


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_gap_form_missing_off_a2a3(target):
    core = new_core(target)
    with core:
        src = core.gm_put(np.zeros(64, np.uint8))
        for fn in (asc.copy_gm_to_ubuf_align_b8, asc.copy_gm_to_ubuf_align_b16, asc.copy_gm_to_ubuf_align_b32):
            with pytest.raises(pto.PtoCheckError):
                fn(core.ub_ptr(0, U8), src, 0, 1, 32, 0, 0, 0, 0)


def test_copy_pad_val_missing_on_cpu():
    with new_core("cpu"):
        with pytest.raises(pto.PtoCheckError):
            asc.asc_set_copy_pad_val(0)


def test_gap_form_faults():
    core = new_core("a2a3")
    with core:
        src = core.gm_put(np.zeros(256, np.uint8))
        ub = core.ub_ptr(0, U8)
        for args in [(0, 4096, 32, 0, 0, 0, 0),       # nBurst over 4095
                     (0, 1, 32, 33, 0, 0, 0),          # pad over 32 bytes
                     (0, 1, 32, 0, 0, -1, 0),          # negative gap
                     (16, 1, 32, 0, 0, 0, 0)]:         # sid field
            with pytest.raises(pto.PtoFault):
                asc.copy_gm_to_ubuf_align_b8(ub, src, *args)
        with pytest.raises(pto.PtoFault):             # unaligned UB destination
            asc.copy_gm_to_ubuf_align_b8(core.ub_ptr(8, U8), src, 0, 1, 32, 0, 0, 0, 0)
        with pytest.raises(pto.PtoFault):             # UB bound (192 KiB)
            asc.copy_gm_to_ubuf_align_b8(core.ub_ptr(192 * 1024 - 32, U8), src, 0, 2, 32, 0, 0, 0, 0)
        with pytest.raises(pto.PtoCheckError):
            asc.copy_gm_to_ubuf_align_b8(core.l1_ptr(0, U8), src, 0, 1, 32, 0, 0, 0, 0)


def test_constant_pad_never_set_warns():
    core = new_core("a5")
    with core:
        src = core.gm_put(np.arange(32, dtype=np.uint8))
        with pytest.warns(UserWarning, match="never set"):
            asc.asc_copy_gm2l1_align(core.l1_ptr(0, U8), src, 1, 8, 0, 0, True, 0, 8, 32)
        assert bytes(core.read("l1", 8, 24)) == bytes(24)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            asc.asc_copy_gm2l1_align(core.l1_ptr(0, U8), src, 1, 8, 0, 0, False, 0, 8, 32)
