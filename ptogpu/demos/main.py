"""The main demo: an embedding lookup and a 2-D element gather on every target, and a
scatter whose colliding indices A5 may resolve in more than one way."""
from __future__ import annotations

import numpy as np

import ptogpu as pto

ROWS, DIM = 100, 8                      # a 100-row embedding table of 8 float32 features
TOKENS = np.array([3, 1, 4, 1, 5, 9, 2, -1], np.int32)


def embedding_lookup(target: str, backend: str = "auto") -> np.ndarray:
    """MGATHER<Row, Wrap>: dst[r, :] = table[idx[r] mod capacity, :]."""
    with pto.Core(target, backend) as core:
        table = np.arange(ROWS, dtype=np.float32)[:, None] + np.arange(DIM, dtype=np.float32) / 100
        TableT = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, ROWS, DIM],
                                  pto.Stride[1, 1, 1, DIM, 1], pto.Layout.ND]
        emb = TableT(core.gm_put(table))
        IdxT = pto.Tile[pto.TileType.Vec, pto.int32, 1, 8]
        DstT = pto.Tile[pto.TileType.Vec, pto.float32, len(TOKENS), DIM]
        idx, dst = IdxT(), DstT()
        pto.TASSIGN(idx, 0x0000)
        pto.TASSIGN(dst, 0x0100)
        idx.set(TOKENS[None, :])
        pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Wrap](dst, emb, idx)
        return dst.numpy()


def elem_gather(target: str, backend: str = "auto") -> np.ndarray:
    """MGATHER<Elem, Clamp>: dst[r, c] = table[clamp(idx[r, c])] over a flat 64-element table."""
    with pto.Core(target, backend) as core:
        TableT = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 8, 8], pto.Stride[1, 1, 1, 8, 1]]
        table = TableT(core.gm_put(np.arange(64, dtype=np.float32) * 0.5))
        T = pto.Tile[pto.TileType.Vec, pto.int32, 4, 8]
        D = pto.Tile[pto.TileType.Vec, pto.float32, 4, 8]
        idx, dst = T(), D()
        pto.TASSIGN(idx, 0x0000)
        pto.TASSIGN(dst, 0x0100)
        ii = (np.arange(32, dtype=np.int32).reshape(4, 8) * 9) % 80   # some land past 63
        idx.set(ii)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        return ii, dst.numpy()


SCATTER_IDX = np.array([[5, 2, 5, 7, 5, 2, 0, 7]], np.int32)   # slots 5, 2 and 7 collide


def gradient_scatter(target: str, conflict: str | None, backend: str = "auto"):
    """MSCATTER<Elem, None, Skip[, Conflict]> of 10, 20, ..., 80 into an 8-slot table: the
    table afterwards, and per slot every value the target may leave."""
    with pto.Core(target, backend) as core:
        ptr = core.gm_alloc(8, pto.float32)
        table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]](ptr)
        src = pto.Tile[pto.TileType.Vec, pto.float32, 1, 8]()
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 1, 8]()
        pto.TASSIGN(src, 0x0000)
        pto.TASSIGN(idx, 0x0100)
        src.set(np.arange(10, 90, 10, dtype=np.float32)[None, :])
        idx.set(SCATTER_IDX)
        args = [pto.Coalesce.Elem, pto.ScatterAtomicOp.None_, pto.ScatterOOB.Skip]
        if conflict:
            args.append(pto.ScatterConflict[conflict])
        form = pto.MSCATTER[tuple(args)]
        out = form.outcomes(table, src, idx)
        form(table, src, idx)
        may = {int(out.addr[k] - ptr.addr) // 4: [int(v) for v in out.choices(k)] for k in range(len(out))}
        return ptr.numpy(8).astype(int).tolist(), may


def run(backend: str = "auto") -> None:
    probe = pto.Core("a5", backend)
    print("ptogpu demo: the same MGATHER and MSCATTER calls on every target")
    print(f"backend: {probe.backend} ({probe.backend_reason})\n")
    print(f"1) Embedding lookup, MGATHER<Row, Wrap>: {ROWS}x{DIM} float32 table, "
          f"tokens {TOKENS.tolist()}")
    rows = {}
    for target in pto.TARGETS:
        out = embedding_lookup(target, backend)
        rows[target] = np.floor(out[:, 0]).astype(int)
        print(f"   {target:5s} rows gathered: {rows[target].tolist()}   dst[0] = [{', '.join(f'{v:.2f}' for v in out[0])}]")
    print("\n2) 2-D element gather, MGATHER<Elem, Clamp>: 4x8 index tile into a 64-element table")
    for target in pto.TARGETS:
        ii, out = elem_gather(target, backend)
        print(f"   {target:5s} dst row 1 = {out[1].tolist()}")
    print(f"      (index row 1 = {ii[1].tolist()}: 72 >= 64 clamps to 63 -> 31.5)")
    print("\n3) Cross-target divergence found above:")
    last = {t: int(r[-1]) for t, r in rows.items()}
    u32, u64 = (1 << 32) - 1, (1 << 64) - 1
    print(f"   token -1 under Wrap gives row {last['cpu']} on cpu but row {last['a2a3']} on a2a3 "
          f"and {last['a5']} on a5.")
    print(f"   why: the NPUs cast the index with static_cast<uint32_t>: -1 -> {u32:#x}, "
          f"{u32} % {ROWS} = {u32 % ROWS};")
    print(f"        the CPU simulator casts to size_t (sign-extends): -1 -> {u64:#x}, "
          f"{u64} % {ROWS} = {u64 % ROWS}.")
    print("   (they agree only when the capacity divides 2^32; the rule: docs/mgather.md)")
    print(f"\n4) Scatter with colliding indices, MSCATTER<Elem, None, Skip>: 10, 20, ..., 80 into "
          f"slots {SCATTER_IDX[0].tolist()}")
    for target, conflict in (("cpu", None), ("a2a3", None), ("a5", "Last"), ("a5", "Default")):
        tab, may = gradient_scatter(target, conflict, backend)
        label = f"{target}{'.' + conflict if conflict else ''}"
        racy = {k: v for k, v in may.items() if len(v) > 1}
        print(f"   {label:10s} table = {tab}" + (f"   may also leave: {racy}" if racy else ""))
    print("   A5's Conflict::Default kernel orders only each thread's own stores: any colliding "
          "writer can win,\n   and MSCATTER[...].outcomes lists them (docs/mscatter.md).")
