"""MSCATTER per target: every rule as bytes. Expected tables are computed here from the rules
(index cast, OOB remap, capacity, row pitch, write order, atomic arithmetic), never from
ptogpu; each test runs on numpy and native (byte-identical)."""
import itertools

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto

V, RM, CM = pto.TileType.Vec, pto.BLayout.RowMajor, pto.BLayout.ColMajor
Row, Elem = pto.Coalesce.Row, pto.Coalesce.Elem
NoneA, Add, Max, Min = pto.ScatterAtomicOp.None_, pto.ScatterAtomicOp.Add, pto.ScatterAtomicOp.Max, pto.ScatterAtomicOp.Min
Und, Skip, Clamp, Wrap = pto.ScatterOOB.Undefined, pto.ScatterOOB.Skip, pto.ScatterOOB.Clamp, pto.ScatterOOB.Wrap
Last, Default = pto.ScatterConflict.Last, pto.ScatterConflict.Default
BACKENDS = ["numpy", "native"]
GUARD = 256                      # elements of GM before and after the table


class World:
    """A table of ``n`` elements between guard bands of GUARD elements (so stray writes show),
    a src tile at UB 0 and an index tile at UB 0x8000."""

    def __init__(self, target, backend, dtype=pto.float32, n=64, shape=None, stride=None,
                 layout=pto.Layout.ND, fill=None):
        self.core = pto.Core(target, backend)
        self.dtype = np.dtype(dtype)
        self.n = n
        fill = np.zeros(n + 2 * GUARD, dtype) if fill is None else fill
        self.ptr0 = self.core.gm_put(np.asarray(fill, dtype))
        self.ptr = self.ptr0 + GUARD
        shape = shape or (1, 1, 1, 1, n)
        stride = stride or (n, n, n, shape[4], 1)
        self.T = pto.GlobalTensor[dtype, pto.Shape[tuple(shape)], pto.Stride[tuple(stride)], layout]

    def run(self, form, src_vals, idx_vals, src_t=None, idx_t=None, table=None):
        with self.core:
            table = table if table is not None else self.T(self.ptr)
            s = src_t() if src_t else padded(self.dtype, *src_vals.shape)
            i = idx_t() if idx_t else padded(np.asarray(idx_vals).dtype, *np.shape(idx_vals))
            pto.TASSIGN(s, 0)
            pto.TASSIGN(i, 0x8000)
            s.set(src_vals)
            i.set(np.asarray(idx_vals))
            out = form(table, s, i)
            return out

    def gm(self):
        return self.ptr0.numpy(self.n + 2 * GUARD)

    def table(self):
        return self.gm()[GUARD:GUARD + self.n]


def padded(dtype, rows, cols):
    """A RowMajor Vec tile whose valid region is rows x cols (Cols padded to 32 bytes)."""
    e = 32 // np.dtype(dtype).itemsize
    return pto.Tile[V, dtype, rows, -(-cols // e) * e, RM, rows, cols]()


def bytes_of(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def src_of(rows, cols, dtype=np.float32, start=1):
    return (np.arange(rows * cols) + start).astype(dtype).reshape(rows, cols)


# ---- plain-call defaults ----------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_plain_call_is_elem_on_cpu_and_row_on_npus(backend):
    """cpu: Elem, None, Undefined; A2/A3 and A5: Row (a 2x8 Elem index tile then fails the Row
    index-shape check there)."""
    src = src_of(2, 8)
    idx = np.arange(16, dtype=np.int32).reshape(2, 8)[::-1].copy()
    w = World("cpu", backend)
    w.run(pto.MSCATTER, src, idx)
    want = np.zeros(64, np.float32)
    want[idx.reshape(-1)] = src.reshape(-1)
    assert bytes_of(w.table()) == bytes_of(want)
    for t in ("a2a3", "a5"):
        with pytest.raises(pto.PtoCheckError, match="index tile is"):
            World(t, backend).run(pto.MSCATTER, src, idx)


# ---- Row addressing per target ---------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_row_pitch_of_a_padded_table(target, backend):
    """Table 8 rows x 8 cols with a row stride of 12: cpu writes u*St3 + j*St4, A2/A3 u*St3 + j,
    A5 hard-wires the pitch to VC: u32(u*VC) + j (the wrong rows of a padded table)."""
    w = World(target, backend, n=96, shape=(1, 1, 1, 8, 8), stride=(96, 96, 96, 12, 1))
    src = src_of(2, 8)
    idx = np.array([[2, 5]], np.int32)
    w.run(pto.MSCATTER[Row], src, idx)
    want = np.zeros(96, np.float32)
    pitch = 8 if target == "a5" else 12
    for r, u in enumerate(idx[0]):
        want[u * pitch + np.arange(8)] = src[r]
    assert bytes_of(w.gm()) == bytes_of(np.r_[np.zeros(GUARD, np.float32), want, np.zeros(GUARD, np.float32)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_cpu_row_honours_the_column_stride(backend):
    w = World("cpu", backend, n=64, shape=(1, 1, 1, 8, 4), stride=(64, 64, 64, 8, 2))
    src = src_of(1, 4)
    w.run(pto.MSCATTER[Row], src, np.array([[3]], np.int32))
    want = np.zeros(64, np.float32)
    want[24 + 2 * np.arange(4)] = src[0]
    assert bytes_of(w.table()) == bytes_of(want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target,cap", [("cpu", 4), ("a2a3", 8), ("a5", 4)])
def test_row_capacity(target, cap, backend):
    """Row capacity: Shape[3] on cpu and A5, Shape[0..3] product on A2/A3 (here 2*4). Index 5
    under Skip is written only where it is below the capacity."""
    w = World(target, backend, n=64, shape=(1, 1, 2, 4, 8), stride=(64, 64, 32, 8, 1))
    w.run(pto.MSCATTER[Row, NoneA, Skip], src_of(1, 8), np.array([[5]], np.int32))
    written = w.table()[40:48].any()
    assert written == (5 < cap)


# ---- index cast and OOB remap ------------------------------------------------------------------
def _npu_slot(raw, cap, oob):
    u = raw & 0xFFFFFFFF
    if oob == Skip:
        return u if u < cap else None
    if oob == Clamp:
        return (cap - 1) & 0xFFFFFFFF if u >= cap else u
    if oob == Wrap:
        return u % cap
    return u


def _cpu_slot(raw, cap, oob):
    u = raw & (2**64 - 1)
    if oob == Skip:
        return u if u < cap else None
    if oob == Clamp:
        return min(u, (cap - 1) & (2**64 - 1))
    if oob == Wrap:
        return u % cap
    return u


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("oob", [Skip, Clamp, Wrap])
@pytest.mark.parametrize("cap", [7, 10, 16])
def test_elem_negative_and_huge_indices(target, oob, cap, backend):
    """-1, INT32_MIN, 2^31-1 as int32 and 2^32-1 as uint32: cpu sign-extends to 64 bits, the
    NPUs cast to uint32 (Wrap of -1: (2^64-1) % cap on cpu, (2^32-1) % cap on the NPUs)."""
    for raw, dt in ((-1, np.int32), (-2**31, np.int32), (2**31 - 1, np.int32), (2**32 - 1, np.uint32), (3, np.int32)):
        w = World(target, backend, n=cap, shape=(1, 1, 1, 1, cap), stride=(cap, cap, cap, cap, 1))
        idx = np.array([[raw]], dt)
        form = pto.MSCATTER[Elem, NoneA, oob] if target == "a2a3" else pto.MSCATTER[Elem, NoneA, oob, Default]
        w.run(form, np.array([[7.5]], np.float32), idx)
        slot = (_cpu_slot if target == "cpu" else _npu_slot)(int(np.int64(raw)) if dt == np.int32 else raw, cap, oob)
        want = np.zeros(cap, np.float32)
        if slot is not None:
            want[slot] = 7.5
        assert bytes_of(w.table()) == bytes_of(want), (raw, slot)
        assert not w.gm()[:GUARD].any() and not w.gm()[GUARD + cap:].any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_undefined_writes_outside_the_table_or_faults(backend):
    """Undefined: cpu -1 writes base[-1] (into the guard band); NPUs' -1 is slot 2^32-1, whose
    address lies outside GM: a PtoFault, nothing written."""
    w = World("cpu", backend)
    w.run(pto.MSCATTER[Elem, NoneA, Und], np.array([[2.0, 3.0]], np.float32), np.array([[-1, 70]], np.int32))
    g = w.gm()
    assert g[GUARD - 1] == 2.0 and g[GUARD + 70] == 3.0
    for t in ("a2a3", "a5"):
        w = World(t, backend)
        form = pto.MSCATTER[Elem, NoneA, Und] if t == "a2a3" else pto.MSCATTER[Elem, NoneA, Und, Default]
        with pytest.raises(pto.PtoFault, match="table write"):
            w.run(form, np.array([[2.0, 3.0]], np.float32), np.array([[1, -1]], np.int32))
        assert not w.gm().any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a5_last_drops_undefined_oob_and_static_1x1_writes_it(backend):
    """A5 Last is slot-centric: only slots below cap are ever written, so an Undefined index of
    cap+3 is dropped. A static 1x1 source takes the scalar path, which ignores Conflict and
    writes it."""
    w = World("a5", backend, n=16, shape=(1, 1, 1, 1, 8), stride=(8, 8, 8, 8, 1))
    w.run(pto.MSCATTER[Elem, NoneA, Und], np.array([[1.0, 2.0]], np.float32), np.array([[11, 2]], np.int32))
    t = w.table()
    assert t[2] == 2.0 and not t[11] and t.sum() == 2.0
    w.run(pto.MSCATTER[Elem, NoneA, Und], np.array([[5.0]], np.float32), np.array([[11]], np.int32))
    assert w.table()[11] == 5.0
    # the same call with a runtime 1x1 tile goes through the Last kernel: dropped
    w = World("a5", backend, n=16, shape=(1, 1, 1, 1, 8), stride=(8, 8, 8, 8, 1))
    S = pto.Tile[V, pto.float32, 1, 8, RM, -1, -1]
    I = pto.Tile[V, pto.int32, 1, 8, RM, -1, -1]
    w.run(pto.MSCATTER[Elem, NoneA, Und], np.array([[5.0]], np.float32), np.array([[11]], np.int32),
          src_t=lambda: S(1, 1), idx_t=lambda: I(1, 1))
    assert not w.table().any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_capacity_zero(backend):
    """cap 0: Skip writes nothing; Wrap divides by zero (PtoFault) except on A5 Last, whose slot
    loop never runs; cpu Clamp does not clamp (cap-1 = SIZE_MAX), NPU Clamp gives 0xFFFFFFFF."""
    def world(t):
        return World(t, backend, n=8, shape=(1, 1, 1, 0, 8), stride=(8, 8, 8, 8, 1))
    src, idx = np.array([[1.0]], np.float32), np.array([[3]], np.int32)
    for t in ("cpu", "a2a3", "a5"):
        w = world(t)
        w.run(pto.MSCATTER[Elem, NoneA, Skip], src_of(1, 2), np.array([[3, 4]], np.int32))
        assert not w.gm().any()
        w = world(t)
        if t == "a5":
            w.run(pto.MSCATTER[Elem, NoneA, Wrap], src_of(1, 2), np.array([[3, 4]], np.int32))
            assert not w.gm().any()
            with pytest.raises(pto.PtoFault, match="capacity 0"):
                w.run(pto.MSCATTER[Elem, NoneA, Wrap, Default], src_of(1, 2), np.array([[3, 4]], np.int32))
        else:
            with pytest.raises(pto.PtoFault, match="capacity 0"):
                w.run(pto.MSCATTER[Elem, NoneA, Wrap], src_of(1, 2), np.array([[3, 4]], np.int32))
        assert not w.gm().any()
    w = world("cpu")
    w.run(pto.MSCATTER[Elem, NoneA, Clamp], src, idx)
    assert w.table()[3] == 1.0
    w = world("a2a3")
    with pytest.raises(pto.PtoFault):
        w.run(pto.MSCATTER[Elem, NoneA, Clamp], src, idx)


# ---- conflicts ---------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_duplicates_last_writer_in_row_major_order(target, backend):
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 6, (4, 8)).astype(np.int32)
    src = src_of(4, 8)
    w = World(target, backend)
    form = pto.MSCATTER[Elem] if target == "a2a3" else pto.MSCATTER[Elem, NoneA, Und, Last]
    w.run(form, src, idx)
    want = np.zeros(64, np.float32)
    for p in range(32):
        want[idx.reshape(-1)[p]] = src.reshape(-1)[p]
    assert bytes_of(w.table()) == bytes_of(want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a2a3_elem_nz_walks_column_blocks_first(backend):
    """A2/A3 Elem into an NZ table walks (column block, row, column): float, C0 = 8, VC = 16:
    src (1, 0) and (0, 8) both target slot 0; row-major order keeps (1, 0), the NZ walk (0, 8)."""
    core = pto.Core("a2a3", backend)
    with core:
        ptr = core.gm_put(np.zeros(2 * 16 * 8, np.float32))
        T = pto.GlobalTensor[pto.float32, pto.Shape[1, 2, 1, 16, 8], pto.Stride[256, 128, 128, 8, 1], pto.Layout.NZ]
        S = pto.Tile[V, pto.float32, 16, 16, CM, 2, 16, pto.SLayout.RowMajor]
        I = pto.Tile[V, pto.int32, 2, 16]
        s, i = S(), I()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        vals = src_of(2, 16)
        s.set(vals)
        idx = np.full((2, 16), 5, np.int32)
        idx[1, 0] = idx[0, 8] = 0
        i.set(idx)
        pto.MSCATTER[Elem](T(ptr), s, i)
        assert ptr.numpy(1)[0] == vals[0, 8]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a2a3_row_nz_writes_the_whole_table_row(backend):
    """Row into an NZ table: gShape0*gShape1*C0 columns of the destination row come from the
    tile, past ValidCol too (its padding)."""
    core = pto.Core("a2a3", backend)
    with core:
        ptr = core.gm_put(np.zeros(2 * 16 * 8, np.float32))
        T = pto.GlobalTensor[pto.float32, pto.Shape[1, 2, 1, 16, 8], pto.Stride[256, 128, 128, 8, 1], pto.Layout.NZ]
        S = pto.Tile[V, pto.float32, 16, 16, CM, 1, 4, pto.SLayout.RowMajor]
        I = pto.Tile[V, pto.int32, 1, 8, RM, 1, 1]
        s, i = S(), I()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        core.write("ub", 0, np.arange(256, dtype=np.float32) + 1)      # every tile element
        i.set(np.array([[3]], np.int32))
        pto.MSCATTER[Row](T(ptr), s, i)
        g = ptr.numpy(256)
        for b in range(2):               # column block b of logical row 3, all 8 columns
            assert bytes_of(g[b * 128 + 3 * 8: b * 128 + 3 * 8 + 8]) == bytes_of(
                np.arange(b * 16 * 8, b * 16 * 8 + 8, dtype=np.float32) + 1)
        assert np.count_nonzero(g) == 16


# ---- A5 Default: outcome sets against brute-force schedules -----------------------------------
def _a5_row_thread(r, c, VR, VC):
    rw = 1 if VR == 0 else min(VR, 32)
    wpr = max(1, min(32 // rw, -(-VC // 32)))
    q = c // 32
    return (r % rw + rw * (q % wpr)) * 32 + c % 32, (r // rw, q // wpr)


def _brute(writes, init):
    """Every GM image over every interleaving of the threads' write sequences."""
    threads = {}
    for th, seq, a, v in sorted(writes):
        threads.setdefault(th, []).append((a, v))
    names = list(threads)
    seqs = [threads[n] for n in names]
    slots = [th for th, s in zip(names, seqs) for _ in s]
    per_addr = {}
    for perm in set(itertools.permutations(slots)):
        pos = {n: 0 for n in names}
        mem = dict(init)
        for th in perm:
            a, v = threads[th][pos[th]]
            pos[th] += 1
            mem[a] = v
        for a, v in mem.items():
            per_addr.setdefault(a, set()).add(v)
    return per_addr


@pytest.mark.parametrize("case", ["elem5", "row_same_thread", "row_cols"])
def test_default_outcome_sets_match_every_schedule(case):
    VR, VC, skip = {"elem5": (1, 5, None), "row_same_thread": (34, 1, {0, 1, 32, 33}),
                    "row_cols": (3, 2, None)}[case]
    mode = Elem if case == "elem5" else Row
    n = 16
    w = World("a5", "numpy", n=n, shape=(1, 1, 1, 8, VC) if mode == Row else (1, 1, 1, 1, n),
              stride=(n, n, n, VC, 1) if mode == Row else (n, n, n, n, 1))
    src = src_of(VR, VC)
    if mode == Elem:
        idx = np.array([[4, 4, 2, 4, 2]], np.int32)
    elif case == "row_cols":
        idx = np.array([[1, 1, 1]], np.int32)
    else:
        idx = np.array([[3 if r in skip else 99 for r in range(VR)]], np.int32)
    form = pto.MSCATTER[mode, NoneA, Skip, Default]
    with w.core:
        s, i = padded(np.float32, VR, VC), padded(np.int32, 1, idx.shape[1])
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        s.set(src)
        i.set(idx)
        out = form.outcomes(w.T(w.ptr), s, i)
    base = w.ptr.addr
    wr = []
    if mode == Elem:
        for p in range(VC):
            wr.append((p, 0, base + 4 * int(idx[0, p]), float(src[0, p])))
    else:
        for r in range(VR):
            if idx[0, r] >= 8:
                continue
            for c in range(VC):
                th, seq = _a5_row_thread(r, c, VR, VC)
                wr.append((th, seq, base + 4 * (int(idx[0, r]) * VC + c), float(src[r, c])))
    want = _brute(wr, {})
    got = {int(out.addr[k]): set(out.choices(k).astype(float)) for k in range(len(out))}
    assert got == want
    assert case != "row_same_thread" or all(len(v) == 2 for v in got.values())


def test_strict_hazards_raise_when_more_than_one_value_can_survive():
    w = World("a5", "numpy")
    w.core.strict_hazards = True
    with pytest.raises(pto.PtoHazard, match="more than one"):
        w.run(pto.MSCATTER[Elem, NoneA, Skip, Default], src_of(1, 3), np.array([[1, 1, 2]], np.int32))
    assert not w.gm().any()
    w.run(pto.MSCATTER[Elem, NoneA, Skip, Default], src_of(1, 3), np.array([[1, 3, 2]], np.int32))
    w.run(pto.MSCATTER[Elem, NoneA, Skip, Last], src_of(1, 3), np.array([[1, 1, 2]], np.int32))


def test_outcomes_scale_linearly_with_collisions():
    """All 1024 writers on one slot: one element, 1024 possible values, no schedule walk."""
    w = World("a5", "numpy")
    with w.core:
        s, i = pto.Tile[V, pto.float32, 32, 32](), pto.Tile[V, pto.int32, 32, 32]()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        s.set(src_of(32, 32))
        i.set(np.zeros((32, 32), np.int32))
        out = pto.MSCATTER[Elem, NoneA, Skip, Default].outcomes(w.T(w.ptr), s, i)
    assert len(out) == 1 and out.counts[0] == 1024 and out.joint_count() == 1024


# ---- atomics ----------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_float_add_order_dependence(backend):
    """2^24 + 1 + 1 in float32: the sequential order gives 2^24 (each +1 rounds to even); A5's
    unordered atomics may give 2^24 or 2^24 + 2; every order is enumerated."""
    vals = np.array([[2.0**24, 1.0, 1.0]], np.float32)
    idx = np.zeros((1, 3), np.int32)
    w = World("cpu", backend)
    w.run(pto.MSCATTER[Elem, Add], vals, idx)
    assert w.table()[0] == 2.0**24
    w = World("a5", backend)
    out = w.run(pto.MSCATTER[Elem, Add], vals, idx, ) and None
    with w.core:
        s, i = pto.Tile[V, pto.float32, 1, 8, RM, 1, 3](), pto.Tile[V, pto.int32, 1, 8, RM, 1, 3]()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        s.set(vals)
        i.set(idx)
        w.core.gm.data[w.ptr.addr:w.ptr.addr + 4] = 0
        out = pto.MSCATTER[Elem, Add].outcomes(w.T(w.ptr), s, i)
    assert sorted(out.choices(0).tolist()) == [2.0**24, 2.0**24 + 2]
    assert out.sequential[0] == 2.0**24


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target,dtype,bf16_is_half", [
    ("cpu", np.float16, True), ("a2a3", np.float16, False), ("a5", np.float16, False),
    ("cpu", ml_dtypes.bfloat16, True), ("cpu", ml_dtypes.bfloat16, False),
    ("a2a3", ml_dtypes.bfloat16, False), ("a5", ml_dtypes.bfloat16, False)])
def test_half_and_bf16_add_round_once_per_step(target, dtype, bf16_is_half, backend):
    """The sequential fold: float add, one RNE rounding per step. The simulator's bfloat16 is
    _Float16 under quirk cpu_bfloat16_is_half (on by default): its bits add as IEEE half."""
    rng = np.random.default_rng(3)
    vals = rng.normal(size=(1, 16)).astype(dtype)
    idx = (np.arange(16) % 3).astype(np.int32).reshape(1, 16)
    w = World(target, backend, dtype=dtype, n=16)
    if target == "cpu":
        w.core.quirks["cpu_bfloat16_is_half"] = bf16_is_half
    w.run(pto.MSCATTER[Elem, Add], vals, idx)
    arith = np.float16 if bf16_is_half and target == "cpu" else dtype
    want = np.zeros(16, dtype).view(arith)
    v = vals.view(arith)
    for p in range(16):
        want[idx[0, p]] = arith(np.float32(want[idx[0, p]]) + np.float32(v[0, p]))
    assert bytes_of(w.table()) == bytes_of(want)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_int8_add_wraps(target, backend):
    w = World(target, backend, dtype=np.int8, n=32)
    w.run(pto.MSCATTER[Elem, Add], np.full((1, 32), 100, np.int8), np.zeros((1, 32), np.int32))
    assert w.table()[0] == np.int8((100 * 32) % 256 - 256 if (100 * 32) % 256 > 127 else (100 * 32) % 256)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", [Max, Min])
def test_a5_int_max_min(op, backend):
    rng = np.random.default_rng(5)
    vals = rng.integers(-1000, 1000, (4, 8)).astype(np.int32)
    idx = rng.integers(0, 5, (4, 8)).astype(np.int32)
    w = World("a5", backend, dtype=np.int32)
    w.run(pto.MSCATTER[Elem, op], vals, idx)
    want = np.zeros(64, np.int32)
    f = np.maximum if op == Max else np.minimum
    for p in range(32):
        want[idx.reshape(-1)[p]] = f(want[idx.reshape(-1)[p]], vals.reshape(-1)[p])
    assert bytes_of(w.table()) == bytes_of(want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cpu_row_max_compares_with_base_u(backend):
    """cpu Row Max reads base[u] (the element at flat offset u), not the destination: a zero 4x4
    table with base[2] = 100 and Row Max of [1, 2, 3, 4] into row 2 leaves 100 everywhere."""
    fill = np.zeros(16 + 2 * GUARD, np.float32)
    fill[GUARD + 2] = 100
    w = World("cpu", backend, n=16, shape=(1, 1, 1, 4, 4), stride=(16, 16, 16, 4, 1), fill=fill)
    w.run(pto.MSCATTER[Row, Max], np.array([[1, 2, 3, 4]], np.float32), np.array([[2]], np.int32))
    assert w.table()[8:12].tolist() == [100] * 4
    core_q = World("cpu", backend, n=16, shape=(1, 1, 1, 4, 4), stride=(16, 16, 16, 4, 1), fill=fill)
    core_q.core.quirks["cpu_mscatter_row_minmax_operand"] = False
    core_q.run(pto.MSCATTER[Row, Max], np.array([[1, 2, 3, 4]], np.float32), np.array([[2]], np.int32))
    assert core_q.table()[8:12].tolist() == [1, 2, 3, 4]


def test_cpu_max_keeps_nan_in_the_table_and_ignores_nan_sources():
    fill = np.zeros(16 + 2 * GUARD, np.float32)
    fill[GUARD] = np.nan
    w = World("cpu", "numpy", n=16, fill=fill)
    w.run(pto.MSCATTER[Elem, Max], np.array([[5.0, np.nan]], np.float32), np.array([[0, 1]], np.int32))
    assert np.isnan(w.table()[0]) and w.table()[1] == 0


# ---- static checks ----------------------------------------------------------------------------
def _check(target, form, dtype=np.float32, idx_dt=np.int32, src_t=None, idx_t=None, n=64, **kw):
    w = World(target, "numpy", dtype=dtype, n=n, **kw)
    with pytest.raises(pto.PtoCheckError) as e:
        w.run(form, np.zeros((1, 8), dtype), np.zeros((1, 8), idx_dt), src_t=src_t, idx_t=idx_t)
    return str(e.value)


@pytest.mark.parametrize("target,form,kw,match", [
    ("a2a3", pto.MSCATTER[Elem, Max], {}, "Max"),
    ("a2a3", pto.MSCATTER[Elem, Add], {"dtype": np.uint32}, "Add"),
    ("a5", pto.MSCATTER[Elem, Add], {"dtype": np.int16}, "Add"),
    ("a5", pto.MSCATTER[Elem, Max], {"dtype": np.float16}, "Max"),
    ("a5", pto.MSCATTER[Elem], {"idx_dt": np.int16}, "index type"),
    ("a2a3", pto.MSCATTER[Elem], {"dtype": ml_dtypes.float8_e4m3fn}, "element type"),
    ("cpu", pto.MSCATTER[Elem, Add, Skip, Last], {}, "Conflict::Last"),
    ("cpu", pto.MSCATTER[Elem], {"idx_dt": np.float32}, "integral"),
    ("a2a3", pto.MSCATTER[Elem, NoneA, Skip, Last], {}, "does not exist"),
])
def test_static_checks(target, form, kw, match):
    msg = _check(target, form, **kw)
    assert match in msg and f"[{target}]" in msg


def test_a5_accepts_rx1_colmajor_row_index_and_a2a3_rejects_it():
    I = pto.Tile[V, pto.int32, 8, 1, CM, 2, 1]
    for t, ok in (("a5", True), ("a2a3", False)):
        w = World(t, "numpy", n=64, shape=(1, 1, 1, 8, 8), stride=(64, 64, 64, 8, 1))
        f = lambda: w.run(pto.MSCATTER[Row], src_of(2, 8), np.array([[1], [4]], np.int32), idx_t=I)  # noqa
        if ok:
            f()
            assert w.table()[8] == 1 and w.table()[32] == 9
        else:
            with pytest.raises(pto.PtoCheckError):
                f()


def test_a5_dynamic_dim_quirk_rejects_a_mixed_row_index():
    """A5 casts valid dims to uint32 before its "> 0" gates: a dynamic src ValidRow with a
    static [1, 2] index tile compares 0xFFFFFFFF with 2 and fails."""
    S = pto.Tile[V, pto.float32, 2, 8, RM, -1, 8]
    w = World("a5", "numpy", n=64, shape=(1, 1, 1, 8, 8), stride=(64, 64, 64, 8, 1))
    with pytest.raises(pto.PtoCheckError, match=r"\[1, R\]"):
        w.run(pto.MSCATTER[Row], src_of(2, 8), np.array([[1, 2]], np.int32), src_t=lambda: S(2))
    w2 = World("a5", "numpy", n=64, shape=(1, 1, 1, 8, 8), stride=(64, 64, 64, 8, 1))
    w2.core.quirks["a5_dynamic_dim_cast"] = False
    w2.run(pto.MSCATTER[Row], src_of(2, 8), np.array([[1, 2]], np.int32), src_t=lambda: S(2))


# ---- more per-target cases --------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_cpu_add_of_a_float_source_into_an_int_table_adds_in_float(backend):
    """``int += float``: the old value goes to float, the sum is truncated back: 5 + -0.5 is 4,
    where converting the source first (0) would keep 5."""
    fill = np.zeros(8 + 2 * GUARD, np.int32)
    fill[GUARD] = 5
    w = World("cpu", backend, dtype=np.int32, n=8, fill=fill)
    core = w.core
    with core:
        s = pto.Tile[V, pto.float32, 1, 8, RM, 1, 2]()
        i = pto.Tile[V, pto.int32, 1, 8, RM, 1, 2]()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        s.set(np.array([[-0.5, 0.75]], np.float32))
        i.set(np.array([[0, 0]], np.int32))
        pto.MSCATTER[Elem, Add](w.T(w.ptr), s, i)
    assert w.table()[0] == 4


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_row_add_folds_rows_in_order(target, backend):
    w = World(target, backend, dtype=np.int32, n=32, shape=(1, 1, 1, 4, 8), stride=(32, 32, 32, 8, 1))
    src = np.arange(24, dtype=np.int32).reshape(3, 8)
    w.run(pto.MSCATTER[Row, Add], src, np.array([[1, 3, 1]], np.int32))
    want = np.zeros(32, np.int32)
    for r, u in enumerate([1, 3, 1]):
        want[u * 8: u * 8 + 8] += src[r]
    assert bytes_of(w.table()) == bytes_of(want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cpu_accepts_int64_indices_at_the_extremes(backend):
    w = World("cpu", backend, n=16)
    idx = np.array([[2**63 - 1, -2**63, 3, -1]], np.int64)
    w.run(pto.MSCATTER[Elem, NoneA, Skip], np.array([[1, 2, 3, 4]], np.float32), idx)
    want = np.zeros(16, np.float32)
    want[3] = 3
    assert bytes_of(w.table()) == bytes_of(want)
    w.run(pto.MSCATTER[Elem, NoneA, Wrap], np.array([[1, 2, 3, 4]], np.float32), idx)
    want[(2**63 - 1) % 16], want[(2**63) % 16], want[(2**64 - 1) % 16] = 1, 2, 4
    assert bytes_of(w.table()) == bytes_of(want)


def test_float_add_outcomes_keep_each_threads_program_order():
    """Row, VR = 34: rows 0 and 32 are one thread (row 0 first), rows 1 and 33 another. The set
    of float sums equals the brute force over the interleavings that keep both orders."""
    vals = [2.0**24, 1.0, 1.0, 2.0]           # rows 0, 1, 32, 33 write slot 2, column 0
    idx = np.full((1, 34), 99, np.int32)
    src = np.zeros((34, 1), np.float32)
    for r, v in zip((0, 1, 32, 33), vals):
        idx[0, r] = 2
        src[r, 0] = v
    w = World("a5", "numpy", n=8, shape=(1, 1, 1, 8, 1), stride=(8, 8, 8, 1, 1))
    with w.core:
        s, i = padded(np.float32, 34, 1), padded(np.int32, 1, 34)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        s.set(src)
        i.set(idx)
        out = pto.MSCATTER[Row, Add, Skip].outcomes(w.T(w.ptr), s, i)
    seqs = {"t0": [vals[0], vals[2]], "t1": [vals[1], vals[3]]}
    want = set()
    for perm in set(itertools.permutations(["t0", "t0", "t1", "t1"])):
        pos, acc = {"t0": 0, "t1": 0}, np.float32(0)
        for t in perm:
            acc = np.float32(acc + np.float32(seqs[t][pos[t]]))
            pos[t] += 1
        want.add(float(acc))
    assert set(out.choices(0).astype(float).tolist()) == want and len(want) > 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_dynamic_valid_shapes(target, backend):
    """Runtime valid dims (-1 in the Tile type): the loops and launches use the runtime values."""
    S = pto.Tile[V, pto.float32, 4, 8, RM, -1, -1]
    I = pto.Tile[V, pto.int32, 4, 8, RM, -1, -1]
    idx = np.array([[3, 9, 1, 3, 0], [2, 2, 7, 8, 4], [1, 0, 0, 5, 6]], np.int32)
    src = src_of(3, 5)
    w = World(target, backend, n=16)
    form = pto.MSCATTER[Elem, NoneA, Skip] if target == "a2a3" else pto.MSCATTER[Elem, NoneA, Skip, Last]
    w.run(form, src, idx, src_t=lambda: S(3, 5), idx_t=lambda: I(3, 5))
    want = np.zeros(16, np.float32)
    for p in range(15):
        want[idx.reshape(-1)[p]] = src.reshape(-1)[p]
    assert bytes_of(w.table()) == bytes_of(want)


def test_help_names_every_form_and_the_per_target_defaults():
    doc = pto.MSCATTER.__doc__ or type(pto.MSCATTER).__doc__
    for form in ("MSCATTER[CMode, Atomic, Oob, Conflict](table, src, idx)", "MSCATTER(table, src, idx)"):
        assert form in doc
    by_mode = {}
    for name, t in pto.TARGETS.items():
        by_mode.setdefault(t.mscatter.default_mode.name, []).append(name)
    assert f"``Elem`` on ``{by_mode['Elem'][0]}``" in doc
    assert "``Row`` on " + " and ".join(f"``{n}``" for n in by_mode["Row"]) in doc
    last = [n for n, t in pto.TARGETS.items() if t.mscatter.default_conflict == "Last"]
    assert f"Conflict ``Last`` on ``{last[0]}``" in doc


def test_rejected_names_every_element_no_schedule_leaves():
    w = World("a5", "numpy")
    with w.core:
        s, i = padded(np.float32, 1, 4), padded(np.int32, 1, 4)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        s.set(np.array([[10, 20, 30, 40]], np.float32))
        i.set(np.array([[5, 2, 5, 5]], np.int32))
        form = pto.MSCATTER[Elem, NoneA, Skip, Default]
        out = form.outcomes(w.T(w.ptr), s, i)
        form(w.T(w.ptr), s, i)
    assert out.admits(w.core) and not out.rejected(w.core).size
    for v, ok in ((10.0, True), (30.0, True), (20.0, False), (0.0, False)):
        w.core.gm.data[w.ptr.addr + 20: w.ptr.addr + 24] = np.array([v], np.float32).view(np.uint8)
        assert out.admits(w.core) == ok
        assert out.rejected(w.core).tolist() == ([] if ok else [w.ptr.addr + 20])


def _outcomes_and_call(w, form, vals, idx):
    """The call's outcome sets (taken before it runs), then the call itself: its GM must be one
    the sets admit, and the emulated values must be GM's."""
    with w.core:
        s, i = padded(w.dtype, *vals.shape), padded(np.int32, *idx.shape)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(i, 0x8000)
        s.set(vals)
        i.set(idx)
        out = form.outcomes(w.T(w.ptr), s, i)
        form(w.T(w.ptr), s, i)
    gm = w.core.gm.data
    size = w.dtype.itemsize
    got = np.stack([gm[int(a):int(a) + size] for a in out.addr])
    return out, got


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", [Max, Min])
def test_cpu_row_minmax_outcomes_fold_against_base_u_as_the_call_does(op, backend):
    """The quirk (compare with base[u], store to the row's element) in outcomes() too: base[2]
    = 100 (Max) or -100 (Min) makes every stored element that, where the destination fold
    would keep the source values."""
    fill = np.zeros(16 + 2 * GUARD, np.float32)
    fill[GUARD + 2] = 100 if op == Max else -100
    w = World("cpu", backend, n=16, shape=(1, 1, 1, 4, 4), stride=(16, 16, 16, 4, 1), fill=fill)
    vals = np.array([[1, 2, 3, 4], [5, -6, 7, -8]], np.float32)
    out, got = _outcomes_and_call(w, pto.MSCATTER[Row, op], vals, np.array([[2, 2]], np.int32))
    assert out.admits(w.core) and bytes_of(out.emulated) == got.tobytes()
    assert w.table()[8:12].tolist() == [fill[GUARD + 2]] * 4


@pytest.mark.parametrize("backend", BACKENDS)
def test_a5_float_add_with_many_writers_and_a_nan_sum_is_admitted(backend):
    """More than ENUM_MAX writers of one element (a bound, not a set) whose sum is NaN (a NaN
    payload among the operands, or inf + -inf): the call's own bytes are admitted, payload kept."""
    nan = np.array([0x7FC01234], np.uint32).view(np.float32)[0]
    for vals in (np.r_[np.ones(15, np.float32), nan], np.r_[np.full(8, np.inf), np.full(8, -np.inf)]):
        vals = vals.astype(np.float32).reshape(1, 16)
        w = World("a5", backend, n=16)
        out, got = _outcomes_and_call(w, pto.MSCATTER[Elem, Add], vals, np.zeros((1, 16), np.int32))
        assert not out.exact[0] and np.isnan(w.table()[0])
        assert out.admits(w.core) and bytes_of(out.emulated) == got.tobytes()
    from ptogpu.isa.mscatter.semantics_outcomes import _unique_bits
    two = np.array([0x7FC00001, 0x7FC00002], np.uint32).view(np.float32)
    assert _unique_bits(two).view(np.uint32).tolist() == [0x7FC00001, 0x7FC00002]
