"""MGATHER as a fuzz configuration: into UB (a Vec tile, any tile layout, dynamic valid
dims) or GM->L1 (a Mat NZ tile from a GM index tensor, with the Elem scratch)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...targets import get_target
from ...execution.instrs.base import LAYOUTS, Instr, pad_to, prefill



def tile_classes(cfg, L: dict):
    """(index tile class, destination tile class) of an MGATHER-into-UB configuration."""
    import ptogpu as pto
    bl, sl = (getattr(pto.BLayout, LAYOUTS[cfg.layout][0]), getattr(pto.SLayout, LAYOUTS[cfg.layout][1]))
    ir, ic, ivr, ivc = L["idx_shape"]
    vr, vc = cfg.rows, cfg.cols
    if cfg.storage is not None:                    # valid dims set per tile (make_tiles)
        D = pto.DYNAMIC
        if cfg.mode == "elem":
            ivr = ivc = vr = vc = D
        else:                                      # [1, R] index tile; ValidCol stays static
            ivc = vr = D
    if cfg.mode == "elem":
        IdxT = pto.Tile[pto.TileType.Vec, cfg.index_dtype, ir, ic, bl, ivr, ivc, sl, 512]
    else:
        IdxT = pto.Tile[pto.TileType.Vec, cfg.index_dtype, ir, ic, pto.BLayout.RowMajor, ivr, ivc]
    DstT = pto.Tile[pto.TileType.Vec, cfg.dtype, *L["dst_shape"], bl, vr, vc, sl, 512]
    return IdxT, DstT


def make_tiles(cfg, L: dict):
    """(index tile, destination tile) instances of an MGATHER-into-UB configuration, with
    their dynamic valid dims set when ``cfg.storage`` is."""
    IdxT, DstT = tile_classes(cfg, L)
    if cfg.storage is None:
        return IdxT(), DstT()
    if cfg.mode == "row":
        return IdxT(cfg.rows), DstT(cfg.rows)
    return IdxT(cfg.rows, cfg.cols), DstT(cfg.rows, cfg.cols)


class MGather(Instr):
    make_tiles = staticmethod(make_tiles)
    name = "mgather"
    spaces = ("ub", "l1")

    def lo32_cast(self, cfg) -> bool:
        return cfg.index_dtype in ("int32", "uint32")

    def formula_fields(self, cfg) -> tuple[str, ...] | None:
        # MGATHER into UB with 32-bit indices: the index cast, then Elem or Row's rules
        if cfg.space != "ub" or cfg.index_dtype not in ("int32", "uint32"):
            return None
        rows = ("mgather.row_capacity", "mgather.row_source", "mgather.row_tail_fill") if cfg.mode == "row" else ()
        offsets = ("mgather.tile_offsets",) if cfg.layout != "nd" else ()
        return ("mgather.index_bits",) + rows + offsets

    def validate(self, cfg) -> None:
        if cfg.space == "ub":
            if cfg.layout not in LAYOUTS:
                raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}")
            if cfg.storage is not None:
                R, C = cfg.storage
                if not (0 <= cfg.rows <= R and 0 <= cfg.cols <= C):
                    raise ValueError(f"valid {cfg.rows}x{cfg.cols} does not fit the {R}x{C} tile")
                if cfg.mode == "row" and cfg.cols != C:
                    # A5 checks staticShape[4] == TileDst::ValidCol at compile time
                    raise ValueError("Row mode: only the valid rows are dynamic (cols == storage cols)")
            return
        super().validate(cfg)

    def tile_shape(self, cfg) -> tuple[int, int]:
        return tuple(cfg.storage) if cfg.storage is not None and cfg.space == "ub" else (cfg.rows, cfg.cols)

    def shape5(self, cfg) -> tuple[int, ...]:
        if cfg.mode == "row":
            c = self.tile_shape(cfg)[1]
            return (1, 1, 1, max(cfg.table_size // max(c, 1), 1), c)
        return (1, 1, 1, 1, cfg.table_size)

    def n_idx(self, cfg) -> int:
        return cfg.rows if cfg.mode == "row" else cfg.rows * cfg.cols

    def cap(self, cfg) -> int:
        s = cfg.shape5
        if cfg.mode == "row":
            return max(s[3], 1)
        p = 1
        for v in s:
            p *= v
        return max(p, 1)

    def label(self, cfg) -> str:
        ex = f".{cfg.exec}" if cfg.exec != "auto" else ""
        sp = "" if cfg.space == "ub" else " GM->L1"
        lay = f" {cfg.layout}" if cfg.layout != "nd" else ""
        lay += f" fill {cfg.dst_fill:#04x}" if cfg.dst_fill else ""
        lay += f" in {cfg.storage[0]}x{cfg.storage[1]} (dynamic valid)" if cfg.storage else ""
        return (f"MGATHER{sp}<{cfg.mode.capitalize()}, {cfg.oob.capitalize()}> {cfg.target}{ex} "
                f"{cfg.dtype} {cfg.rows}x{cfg.cols}{lay} idx {cfg.index_dtype}")

    def layout(self, cfg) -> dict:
        T, isz = cfg.esize, dtypes.as_dtype(cfg.index_dtype).itemsize
        VR, VC = self.tile_shape(cfg)
        tbytes = cfg.table_elems * T
        d: dict = {}
        if cfg.space == "ub":
            def extent(size: int) -> tuple[int, int]:
                """(Rows, Cols) of a VR x VC tile of `size`-byte elements in cfg.layout: the
                32-byte rule on the contiguous dim (NoneBox), C0 columns and 16 rows per box."""
                e = 32 // size
                if cfg.layout == "nd":
                    return max(VR, 1), pad_to(VC, e)
                if cfg.layout == "dn":
                    return pad_to(VR, e), max(VC, 1)
                return pad_to(VR, 16), pad_to(VC, e)
            if cfg.mode == "elem":
                d["idx_shape"] = (*extent(isz), cfg.rows, cfg.cols)
            else:
                d["idx_shape"] = (1, pad_to(VR, 32 // isz), 1, cfg.rows)
            ir, ic = d["idx_shape"][:2]
            d["idx_addr"] = 0
            d["dst_shape"] = extent(T)
            d["dst_addr"] = pad_to(ir * ic * isz, 32)
            d["gm_size"] = pad_to(tbytes, 64)
            return d
        c0 = 32 // T
        d["dst_shape"] = (pad_to(VR, 16), pad_to(VC, c0))
        d["dst_addr"] = 0
        d["idx_addr"] = pad_to(tbytes, 64)
        n_i = VR * VC if cfg.mode == "elem" else VR
        d["idx_n"] = n_i
        d["scratch_addr"] = pad_to(d["idx_addr"] + n_i * isz, 64) if n_i * isz else d["idx_addr"]
        numel = d["dst_shape"][0] * d["dst_shape"][1]
        d["gm_size"] = pad_to(d["scratch_addr"] + (numel * T if cfg.mode == "elem" else 0), 64)
        return d

    def needs(self, cfg, L: dict) -> dict[str, int]:
        if cfg.space == "ub":
            return super().needs(cfg, L)
        r, c = L["dst_shape"]
        return {"l1": r * c * L["T"]}

    def footprint(self, cfg, L: dict):
        if cfg.space == "ub":
            return super().footprint(cfg, L)
        n = self.out_bytes(cfg, L)
        keep = {"l1": [(L["dst_addr"], L["dst_addr"] + n)]}
        if cfg.mode == "elem":
            keep["gm"] = [(L["scratch_addr"], L["scratch_addr"] + n)]
        return keep

    def program(self, pto, core, cfg, L, T, idx, each, before) -> None:
        VR, VC = cfg.rows, cfg.cols
        K = core.batch
        TableT = pto.GlobalTensor[T, pto.Shape[cfg.shape5], pto.Stride[cfg.stride5], pto.Layout.ND]
        table = TableT(core.gm_put(cfg.table, T))
        mode = pto.Coalesce.Row if cfg.mode == "row" else pto.Coalesce.Elem
        oob = getattr(pto.GatherOOB, cfg.oob.capitalize())
        if cfg.space == "ub":
            ir, ic, ivr, ivc = L["idx_shape"]
            it, dst = make_tiles(cfg, L)
            pto.TASSIGN(it, L["idx_addr"])
            pto.TASSIGN(dst, L["dst_addr"])
            prefill(core, cfg, dst)
            it.set(each(idx, ivr, ivc))
            before()
            pto.MGATHER[mode, oob](dst, table, it)
            return
        gi = core.gm_put(idx, cfg.index_dtype, per_instance=K > 1)
        n = idx.size // K
        IdxG = pto.GlobalTensor[cfg.index_dtype, pto.Shape[1, 1, 1, VR if cfg.mode == "elem" else 1,
                                                         VC if cfg.mode == "elem" else n],
                                pto.Stride[n, n, n, VC if cfg.mode == "elem" else n, 1], pto.Layout.ND]
        gidx = IdxG(gi)
        R, C = L["dst_shape"]
        DstT = pto.Tile[pto.TileType.Mat, T, R, C, pto.BLayout.ColMajor, VR, VC, pto.SLayout.RowMajor, 512]
        dst = DstT()
        pto.TASSIGN(dst, 0)
        prefill(core, cfg, dst)
        before()
        if cfg.mode == "row":
            pto.MGATHER[mode, oob](dst, table, gidx)
            return
        sp = core.gm_alloc(R * C, T)
        assert sp.addr == L["scratch_addr"], (sp.addr, L)
        scratch = pto.GlobalTensor[T, pto.Shape[1, 1, 1, 1, R * C],
                                   pto.Stride[R * C, R * C, R * C, R * C, 1], pto.Layout.ND](sp)
        if cfg.exec == "simt":
            pto.MGATHER[mode, oob, pto.GatherExec.Simt](dst, table, gidx, scratch)
        elif cfg.exec == "scalar" and core.target.mgather.simt:
            pto.MGATHER[mode, oob, pto.GatherExec.Scalar](dst, table, gidx, scratch)
        else:
            pto.MGATHER[mode, oob](dst, table, gidx, scratch)

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        return core.read(cfg.space, L["dst_addr"], self.out_bytes(cfg, L))

    def runs_lanes(self, cfg) -> bool:
        # A5 runs a 1x1 tile on its scalar path; GM->L1 runs lanes only for Elem with
        # GatherExec::Simt
        m = get_target(cfg.target).mgather
        if not m.simt:
            return False
        if cfg.space == "ub":
            return not (m.scalar_1x1 and cfg.rows == 1 and cfg.cols == 1)
        return cfg.exec == "simt" and cfg.mode == "elem"

    def inert_rules(self, cfg) -> tuple[str, ...]:
        return ("mgather.tile_offsets",) if cfg.space == "ub" and cfg.layout == "nd" else ()

    def positions(self, cfg, L: dict):
        if cfg.space == "ub" and cfg.layout != "nd":
            _, DstT = tile_classes(cfg, L)
            Rr, Cc = L["dst_shape"]
            rr, cc = np.meshgrid(np.arange(cfg.rows), np.arange(cfg.cols), indexing="ij")
            full = get_target(cfg.target).mgather.tile_offsets == "full"
            pos = (DstT.offsets(rr, cc) if full else DstT.plain_offsets(rr, cc)).reshape(-1)
            inv = np.full(Rr * Cc, -1, np.int64)
            inv[pos] = np.arange(pos.size)
            valid = inv >= 0
            vc = max(cfg.cols, 1)
            return np.where(valid, inv // vc, 0), np.where(valid, inv % vc, 0), valid
        if cfg.space == "l1":
            Rr, Cc = L["dst_shape"]
            e = np.arange(Rr * Cc)
            C0 = 32 // L["T"]
            blk, rem = e // (Rr * C0), e % (Rr * C0)
            r, c = rem // C0, blk * C0 + rem % C0
            return r, c, (r < cfg.rows) & (c < cfg.cols)
        return super().positions(cfg, L)

    def candidates(self, cfg, vals, r, c):
        if cfg.mode == "elem":
            g = vals.reshape(cfg.rows, cfg.cols)
            yield dict(rows=1, cols=1), g[r:r + 1, c:c + 1].reshape(-1)
            yield dict(rows=1), g[r:r + 1].reshape(-1)
            yield dict(rows=r + 1), g[: r + 1].reshape(-1)
        else:
            pin = dict(table_shape=cfg.shape5, table_stride=cfg.stride5)
            yield dict(rows=1, **pin), vals[r:r + 1]
            yield dict(rows=r + 1, **pin), vals[: r + 1]

    def culprits(self, cfg, vals, one: dict):
        g = vals.reshape(cfg.rows, -1)
        return [(one, g[rr, cc: cc + 1] if cfg.mode == "elem" else g[rr])
                for rr in range(min(cfg.rows, 16))
                for cc in range(min(g.shape[1], 16) if cfg.mode == "elem" else 1)]


MGATHER = MGather()
