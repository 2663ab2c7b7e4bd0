"""The whole-table verdict of the MSCATTER fuzz engine (``ms_table_clean``, cuda_src/mscatter_fuzz.cuh):
on an Elem tile of one round it may only ever say "clean" when each side's table is, byte for
byte, the table the rule leaves (every slot its last writer's source value, or every write
combined in order for an atomic; every other byte the image) and the two tables are equal; its
race flags are the rule's (a source-centric slot written by two positions). Goldens from the
rule in NumPy; every single corrupted byte of either table must make it refuse (the list path
then keys the tile); and on whole campaigns it gives the records the write lists give."""
import ctypes

import numpy as np
import pytest

from ptogpu.backend import native_backend
from ptogpu.fuzz import scatter as S

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no C++ compiler")


def _fn():
    f = native_backend.load("mscatter").pto_mscatter_table_clean
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p, ctypes.c_longlong,
                  ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    f.restype = ctypes.c_int
    return f


def _verdict(p, words, gm, ub, ga, gb):
    race = np.zeros(2, np.int32)
    r = _fn()(p.ctypes.data, words.ctypes.data, words.size, gm.ctypes.data, gm.size, ub.ctypes.data, ub.size,
              ga.ctypes.data, gb.ctypes.data, race.ctypes.data)
    return r, tuple(bool(x) for x in race)


def _expected(words, src, gm, cap, oob, itemsize, atomic="none", dtype="float32"):
    """The rule: positions in order, index (signed int32) -> slot by the policy, the last writer
    of each slot stays (an atomic: each write combines with the slot's value, in order); (table,
    source-centric race = a slot written twice)."""
    tab = gm.copy()
    slots = words.view(np.int32).astype(np.int64)
    if oob == "clamp":
        slots = np.where((slots < 0) | (slots >= cap), cap - 1, slots)
        on = np.ones(slots.size, bool)
    elif oob == "wrap":                             # (non-negative indices: both cast widths agree)
        slots, on = slots % cap, np.ones(slots.size, bool)
    else:                                           # skip
        on = (slots >= 0) & (slots < cap)
    last = {}
    for p in np.flatnonzero(on):
        last[int(slots[p])] = int(p)
        if atomic != "none":                        # int32 wraps; float32 adds round to nearest, in order
            el = slice(int(slots[p]) * itemsize, (int(slots[p]) + 1) * itemsize)
            old, v = tab[el].view(dtype)[0], src[p * itemsize:(p + 1) * itemsize].view(dtype)[0]
            with np.errstate(over="ignore"):
                new = {"add": old + v, "max": max(old, v), "min": min(old, v)}[atomic]
            tab[el] = np.array([new], dtype).view(np.uint8)
    if atomic == "none":
        for s, p in last.items():
            tab[s * itemsize:(s + 1) * itemsize] = src[p * itemsize:(p + 1) * itemsize]
    return tab, int(on.sum()) != len(last)


CASES = [
    (S.ScatterConfig(), "a5.default", "cpu"),
    (S.ScatterConfig(oob="clamp", dtype="half", rows=8, cols=24, slots=40), "a5.last", "cpu"),
    (S.ScatterConfig(dtype="int8", rows=16, cols=32, slots=128), "cpu", "a5.default"),
    (S.ScatterConfig(dtype="uint16", rows=4, cols=8, slots=16), "a5.default", "a5.last"),
    (S.ScatterConfig(rows=32, cols=32, slots=256), "a2a3", "cpu"),
    (S.ScatterConfig(oob="wrap", rows=4, cols=8, slots=7), "cpu", "a5.last"),     # two rules: two tables
    (S.ScatterConfig(atomic="add", dtype="int32", rows=16, cols=16, slots=64), "a5", "cpu"),
    (S.ScatterConfig(atomic="max", dtype="int32", rows=8, cols=16, slots=32), "cpu", "a5"),
    (S.ScatterConfig(atomic="add", rows=16, cols=16, slots=64), "a5", "cpu"),          # float32, in order
]


@pytest.mark.parametrize("cfg,a,b", CASES, ids=[f"{c.dtype}-{a}-{b}" for c, a, b in CASES])
def test_clean_only_when_both_tables_are_the_rules_and_every_corrupt_byte_refuses(cfg, a, b):
    p, gm, ub, _ = S.fused_plan(cfg, S.side(a, "native"), S.side(b, "native"), "mixed", 1)
    mw = S.K.MS_WORDS
    src_at = int(p[S.K.MS_SRC + S.K.TD_ADDR])
    T = int(p[S.K.MS_T])
    n, cap, tb = int(p[S.K.FZ_NIDX]), int(p[S.K.MS_CAP]), int(p[S.K.FZ_TBYTES])
    assert p[mw + S.K.MS_T] == T and tb == cap * T
    VC, SC = int(p[S.K.MS_VC]), int(p[S.K.MS_SRC + S.K.TD_COLS])
    rng = np.random.default_rng(7)
    ub = ub.copy()
    if cfg.atomic != "none" and cfg.dtype == "float32":         # whole numbers: no NaN, exact sums
        ub[src_at:src_at + n // VC * SC * T] = rng.integers(-50, 50, n // VC * SC).astype(np.float32).view(np.uint8)
    else:
        ub[src_at:src_at + n // VC * SC * T] = rng.integers(0, 256, n // VC * SC * T, dtype=np.uint8)
    at = np.arange(n) // VC * SC + np.arange(n) % VC          # position -> element of the (padded) source tile
    src = ub[src_at:].view(np.uint8)[(at[:, None] * T + np.arange(T)).ravel()]
    kinds = (p[S.K.FZ_KIND_A], p[S.K.FZ_KIND_B])
    source = [k == S.K.FK_SOURCE for k in kinds]
    seen_race = set()
    for trial in range(12):
        hi = cap + 8 if trial % 3 else cap // 4                    # few slots: races; past cap: skips
        words = rng.integers(0 if cfg.oob == "wrap" else -3, hi, n).astype(np.int32).view(np.uint32)
        if trial % 4 == 0:                                      # distinct indices: under Skip, no race
            words = rng.permutation(n).astype(np.uint32)
        exp, race = _expected(words, src, gm[:tb], cap, cfg.oob, T, cfg.atomic, cfg.dtype)
        seen_race.add(race)
        r, flags = _verdict(p, words, gm, ub, exp.copy(), exp.copy())
        assert r == 1, trial
        assert flags == (source[0] and race, source[1] and race), trial
        for side in (0, 1):                                     # every byte of either table
            for byte in range(tb):
                t = [exp.copy(), exp.copy()]
                t[side][byte] ^= 1 << (byte % 8)
                assert _verdict(p, words, gm, ub, *t)[0] == 0, (trial, side, byte)
    assert seen_race == ({True, False} if cfg.oob == "skip" else {True})


def test_a_write_past_gm_is_not_its_to_decide():
    cfg = S.ScatterConfig(oob="undefined", rows=4, cols=8, slots=64)
    p, gm, ub, _ = S.fused_plan(cfg, S.side("cpu", "native"), S.side("a5.default", "native"), "mixed", 1)
    tb = int(p[S.K.FZ_TBYTES])
    words = np.zeros(32, np.uint32)
    src_at = int(p[S.K.MS_SRC + S.K.TD_ADDR])
    t = gm[:tb].copy()
    t[0:4] = ub[src_at + 31 * 4:src_at + 32 * 4]             # slot 0: its last writer, position 31
    # (tables as the rule leaves them but for position 5's write, which would leave GM: the
    # first element past it, and further)
    assert tb == 64 * 4
    for past in (64, 65, 2**31 - 1):
        words[5] = past
        assert _verdict(p, words, gm, ub, t, t.copy())[0] == 0
    words[5] = 3
    t[12:16] = ub[src_at + 5 * 4:src_at + 6 * 4]
    assert _verdict(p, words, gm, ub, t, t.copy()) == (1, (False, True))     # (B: A5 source threads race)


def test_sizes_the_engine_refuses_are_refused():
    p, gm, ub, _ = S.fused_plan(S.ScatterConfig(), S.side("a5.default", "native"), S.side("cpu", "native"), "mixed", 1)
    words = np.zeros(256, np.uint32)
    tb = int(p[S.K.FZ_TBYTES])
    t = gm[:tb].copy()
    assert _verdict(p, words[:10], gm, ub, t, t.copy())[0] == -1          # fewer words than positions
    assert _verdict(p, words, gm[:8], ub, t, t.copy())[0] == -1           # an image smaller than the table
    q = p.copy()
    q[S.K.FZ_TBYTES] = 1 << 40
    assert _verdict(q, words, gm, ub, t, t.copy())[0] == -1


@pytest.mark.parametrize("word,value", [
    ("FZ_NIDX", -1), ("FZ_NIDX", 1 << 40), ("FZ_NIDX", 255),       # words that do not fill the tile
    ("FZ_IDX_ADDR", -4), ("FZ_IDX_ADDR", 1 << 62), ("FZ_UBYTES", 1 << 20),
    ("MS_VR", 1 << 33), ("MS_VC", 1 << 20),                          # (VR*VC wraps; columns past the tile's)
])
def test_a_block_the_host_never_builds_is_refused_tile_by_tile(word, value):
    """The engine's own parameter block (index words, UB, the index tile): a bad one refuses
    each tile (record word ~1) instead of sizing its scratch from it or copying past UB; the
    next good launch runs as before."""
    from ptogpu.backend.launch import launch_batch
    plan = S.fused_plan(S.ScatterConfig(), S.side("a5.default", "native"), S.side("cpu", "native"), "mixed", 1)
    want = _records(plan, 50, 0)
    p, gm, ub, _ = plan
    q = p.copy()
    q[S.K[word]] = value
    rec = launch_batch("mscatter_fuzz", 50, {"gm": (gm, gm.size, 0), "ub": (ub, ub.size, 0)}, q, backend="native")
    _flush(gm, ub, rec)
    assert (rec[:, 0] == np.uint64(2**64 - 2)).all()
    np.testing.assert_array_equal(_records(plan, 50, 0), want)


def test_sides_whose_rules_differ_are_each_checked_and_then_compared():
    """CPU sim vs A5 Last, Wrap into 7 slots: a 64-bit and a 32-bit index cast, so index -1 lands
    in slot (2^64 - 1) % 7 = 1 on one side and (2^32 - 1) % 7 = 3 on the other. Each table its
    own rule's: each side is right, and the tiles differ -- not clean (the lists classify it)."""
    cfg = S.ScatterConfig(oob="wrap", rows=4, cols=8, slots=7)
    p, gm, ub, _ = S.fused_plan(cfg, S.side("cpu", "native"), S.side("a5.last", "native"), "mixed", 1)
    assert (p[S.K.MS_BITS], p[S.K.MS_WORDS + S.K.MS_BITS]) == (64, 32)
    tb, src_at = int(p[S.K.FZ_TBYTES]), int(p[S.K.MS_SRC + S.K.TD_ADDR])
    ub = ub.copy()
    ub[src_at:src_at + 32 * 4] = np.arange(1, 129, dtype=np.uint8)
    el = lambda pos: ub[src_at + 4 * pos:src_at + 4 * pos + 4]        # noqa: E731
    words = np.zeros(32, np.uint32)
    words[0] = 0xFFFFFFFF
    t64, t32 = gm[:tb].copy(), gm[:tb].copy()
    t64[0:4], t64[4:8] = el(31), el(0)
    t32[0:4], t32[12:16] = el(31), el(0)
    assert _verdict(p, words, gm, ub, t64, t32)[0] == 0
    assert _verdict(p, words, gm, ub, t64, t64.copy())[0] == 0
    words[0] = 9                                                   # both casts: slot 2
    t = gm[:tb].copy()
    t[0:4], t[8:12] = el(31), el(0)
    assert _verdict(p, words, gm, ub, t, t.copy()) == (1, (False, False))


def _flush(gm, ub, rec):
    """Every thread's full check of its copies against the images, as run_fused does after each
    launch (the engine keeps the records of the tiles since its last check until then)."""
    f = native_backend.load("mscatter").pto_mscatter_fuzz_flush
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong]
    f.restype = None
    f(gm.ctypes.data, ub.ctypes.data, rec.ctypes.data, rec.shape[0])


def _records(plan, n, paranoid):
    from ptogpu.backend.launch import launch_batch
    p, gm, ub, _ = plan
    q = p.copy()
    q[S.K.FZ_PARANOID] = paranoid
    q[S.K.FZ_IMAGE] = -(2 * p[S.K.FZ_IMAGE] + paranoid + 1)      # (fresh image copies: an id of its own)
    arenas = {"gm": (gm, gm.size, 0), "ub": (ub, ub.size, 0)}
    rec = launch_batch("mscatter_fuzz", n, arenas, q, backend="native")
    _flush(gm, ub, rec)
    return rec[:, :3]


@pytest.mark.parametrize("cfg,a,b,gen", [
    (S.ScatterConfig(rows=16, cols=32, slots=256), "a5.default", "cpu", "cycle"),
    (S.ScatterConfig(rows=16, cols=16, slots=128), "a5.default", "cpu", "cycle"),
    (S.ScatterConfig(rows=32, cols=32, slots=64), "cpu", "a5.default", "mixed"),
    (S.ScatterConfig(rows=16, cols=32, slots=256, atomic="add", dtype="int32"), "a5", "cpu", "cycle"),
    (S.ScatterConfig(rows=16, cols=16, slots=64, atomic="add"), "a5", "a2a3", "dup"),
    (S.ScatterConfig(rows=16, cols=16, slots=64), "a5.last", "cpu", "mixed"),
    (S.ScatterConfig(oob="wrap", rows=4, cols=8, slots=7), "cpu", "a5.last", "mixed"),
    (S.ScatterConfig(oob="undefined", rows=4, cols=8, slots=64), "cpu", "a5.default", "mixed"),
])
def test_whole_tables_and_write_lists_give_the_same_records(cfg, a, b, gen):
    """Every tile once through the whole-table verdict and once with every byte compared (the
    write lists and their threads decide every tile then): the same record, races included."""
    plan = S.fused_plan(cfg, S.side(a, "native"), S.side(b, "native"), gen, 3)
    fast, lists = _records(plan, 400, 0), _records(plan, 400, 1)
    np.testing.assert_array_equal(fast, lists)
    races = S.K.FZ_RACE_A | S.K.FZ_RACE_B
    if gen == "cycle":
        assert (fast[:, 0] & races).all()


def test_an_image_id_reused_with_other_sizes_takes_fresh_images():
    """The engine keeps each thread's copies of a campaign's images by the block's image id; a
    block of other sizes under an id already seen (a caller's mistake) gets fresh copies, not
    writes past the old ones."""
    from ptogpu.backend.launch import launch_batch
    small = S.fused_plan(S.ScatterConfig(rows=16, cols=16, slots=128), S.side("a5.default", "native"),
                         S.side("cpu", "native"), "cycle", 3)
    big = S.fused_plan(S.ScatterConfig(rows=32, cols=32, slots=64), S.side("cpu", "native"),
                       S.side("a5.default", "native"), "mixed", 3)
    want = _records(big, 300, 0)
    for plan in (small, big):
        p, gm, ub, _ = plan
        q = p.copy()
        q[S.K.FZ_IMAGE] = -1
        rec = launch_batch("mscatter_fuzz", 300, {"gm": (gm, gm.size, 0), "ub": (ub, ub.size, 0)}, q,
                           backend="native")
        _flush(gm, ub, rec)                                     # (every thread's copies against the images)
    assert not (rec[:, 0] & np.uint64(S.K.FZ_SUSPECT)).any()   # its copies were this block's images
    np.testing.assert_array_equal(rec[:, :3], want)


def test_an_unflushed_launch_is_left_alone_by_later_ones():
    """A launch whose caller never flushed: its records stay as they were returned (the engine
    drops its pointers to them at the next launch or flush instead of marking them later: that
    array may be gone), and the next campaign's tiles are not disturbed."""
    from ptogpu.backend.launch import launch_batch
    small = S.fused_plan(S.ScatterConfig(rows=16, cols=16, slots=128), S.side("a5.default", "native"),
                         S.side("cpu", "native"), "cycle", 3)
    big = S.fused_plan(S.ScatterConfig(rows=32, cols=32, slots=64), S.side("cpu", "native"),
                       S.side("a5.default", "native"), "mixed", 3)
    want = _records(small, 300, 0)
    p, gm, ub, _ = big
    first = launch_batch("mscatter_fuzz", 300, {"gm": (gm, gm.size, 0), "ub": (ub, ub.size, 0)}, p,
                         backend="native")                      # (never flushed)
    kept = first.copy()
    # (one tile: one thread runs it, the others still hold records of `first` at the flush)
    assert _records(small, 1, 0).tolist() == want[:1].tolist()
    assert _records(small, 300, 0).tolist() == want.tolist()
    np.testing.assert_array_equal(first, kept)


def test_sides_of_other_capacities_are_each_judged_by_their_own_rule():
    """A block whose sides differ in a rule word other than the cast (here side B's capacity,
    48 slots of 64): neither the whole-table verdict nor the write lists may take side A's
    rule for B's. Every tile gets the same record both ways, no side disagrees with its
    reference, and the capacities do make the sides differ."""
    cfg = S.ScatterConfig(rows=16, cols=16, slots=64)
    plan = S.fused_plan(cfg, S.side("a5.default", "native"), S.side("cpu", "native"), "mixed", 3)
    p = plan[0].copy()
    p[S.K.MS_WORDS + S.K.MS_CAP] = 48
    plan = (p,) + tuple(plan[1:])
    fast, lists = _records(plan, 400, 0), _records(plan, 400, 1)
    np.testing.assert_array_equal(fast, lists)
    assert not (fast[:, 0] & np.uint64(S.K.FZ_REFBAD_A | S.K.FZ_REFBAD_B)).any()
    assert (fast[:, 0] & np.uint64(S.K.FZ_DIFF)).any()
