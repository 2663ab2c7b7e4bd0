"""TCMP, TCMPS (its tile form), TSEL and TSELS as fuzz configurations (``ptogpu fuzz --instr tcmp
--op lt`` ...): the generated values are the operands' bits -- every bit pattern of the element
type (NaN payloads, signed zeros, the integer edges) and, for TSEL and TSELS, the mask bytes --
in the order of the call's operands, TSELS's scalar (and TCMPS's with ``--op MODE.scalar``) last, a value per instance as
``GetValue`` reads it; the output is the destination tile's storage (TCMP: the packed mask
tile). A campaign across two targets shows each call's divergences, each explained by a rule
field of the compare table (or a static check that rejects a side)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import CmpMode
from ...execution.instrs.base import DataOperands, pad_to
from ...instance_values import InstanceValues

MODES = ("eq", "ne", "lt", "gt", "ge", "le")
U8 = np.dtype(np.uint8)


def mask_pitch(cols: int) -> int:
    """Bytes of a mask row: ceil(cols / 8) bits' bytes, padded to 32 (the vendor tests' tiles)."""
    return pad_to(-(-cols // 8), 32)


def bits_as(part: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Raw generator bits (uint64) as ``dt``'s values, the low bytes kept."""
    st = dtypes.storage(dt)
    return part.astype(np.dtype(f"u{st.itemsize}")).view(st)


class CompareInstr(DataOperands):
    """One call. Its operand parts, in generator order: ``src0``/``src1`` (rows x cols of the
    element type), ``mask`` (rows x pitch bytes), ``scalar`` (one value)."""
    PARTS = {"TCMP": ("src0", "src1"), "TCMPS": ("src0", "src1"), "TSEL": ("mask", "src0", "src1"),
             "TSELS": ("mask", "src0", "scalar")}

    def __init__(self, call: str) -> None:
        self.call = call
        self.name = call.lower()
        self.parts = self.PARTS[call]
        self.ops = MODES + (tuple(f"{m}.scalar" for m in MODES) if call == "TCMPS" else ()) \
            if call in ("TCMP", "TCMPS") else ("",)
        self.defaults = {"rows": 4, "cols": 32, "oob": "undefined", "dtype": "float32",
                         **({"op": "lt"} if call in ("TCMP", "TCMPS") else {})}

    def _sizes(self, cfg) -> list[int]:
        return [cfg.rows * mask_pitch(cfg.cols) if p == "mask" else 1 if p == "scalar" else cfg.rows * cfg.cols
                for p in self._parts(cfg)]

    def _parts(self, cfg) -> tuple[str, ...]:
        """The operand parts of this configuration (TCMPS ``--op MODE.scalar``: src0 and the scalar)."""
        return ("src0", "scalar") if cfg.op.endswith(".scalar") else self.parts

    def _split(self, cfg, vals: np.ndarray) -> dict:
        out, at = {}, 0
        for p, n in zip(self._parts(cfg), self._sizes(cfg)):
            out[p] = vals[..., at:at + n]
            at += n
        return out

    def n_idx(self, cfg) -> int:
        return sum(self._sizes(cfg))

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        """The generator's values as raw bits; ``program`` gives each part its type."""
        return np.asarray(values, np.int64).view(np.uint64)

    def label(self, cfg) -> str:
        op = f" {cfg.op.replace('.', ' ').upper()}" if cfg.op else ""
        return f"{self.call}{op} {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        T = cfg.esize
        shape = (cfg.rows, pad_to(cfg.cols, 32 // T))
        size = pad_to(shape[0] * shape[1] * T, 32)
        mshape = (cfg.rows, mask_pitch(cfg.cols))
        msize = pad_to(mshape[0] * mshape[1], 32)
        cmp = self.call in ("TCMP", "TCMPS")
        L = {"src_shape": shape, "mask_shape": mshape, "src0_addr": 0, "src1_addr": size, "mask_addr": 2 * size,
             "tmp_addr": 2 * size + msize, "dst_addr": 2 * size + msize + 32}
        L["dst_shape"] = mshape if cmp else shape
        L["out_bytes"] = msize if cmp else size
        return L

    def footprint(self, cfg, L: dict):
        """dst, and tmp (A2/A3's TSEL stores the mask row's address there)."""
        return {"ub": [(L["dst_addr"], L["dst_addr"] + L["out_bytes"]), (L["tmp_addr"], L["tmp_addr"] + 32)]}

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        R, C = cfg.rows, cfg.cols
        V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
        Data = pto.Tile[V, T, *L["src_shape"], RM, R, C]
        mr, mc = L["mask_shape"]
        sel = self.call in ("TSEL", "TSELS")
        Mask = pto.Tile[V, U8, mr, mc] if sel else pto.Tile[V, U8, mr, mc, RM, R, -(-C // 8)]
        s0, s1 = Data(), Data()
        mask = Mask()
        tmp = pto.Tile[V, U8, 1, 32]()
        dst = Mask() if self.call in ("TCMP", "TCMPS") else Data()
        for t, a in ((s0, "src0_addr"), (s1, "src1_addr"), (mask, "mask_addr"), (tmp, "tmp_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        if cfg.dst_fill:
            core.write("ub", L["dst_addr"], bytes([cfg.dst_fill]) * L["out_bytes"])
        parts = self._split(cfg, vals)
        s0.set(each(bits_as(parts["src0"], T), R, C))
        if "src1" in parts:
            s1.set(each(bits_as(parts["src1"], T), R, C))
        if "mask" in parts:
            mask.set(each(bits_as(parts["mask"], U8), mr, mc))
        if "scalar" in parts:            # C++: T s = src1.GetValue(0), a value per instance
            sv = bits_as(parts["scalar"], T)[..., 0]
            sv = InstanceValues(core, sv) if np.ndim(sv) else sv[()]
        before()
        if self.call == "TSELS":
            pto.TSELS(dst, mask, s0, tmp, sv)
        elif self.call == "TSEL":
            pto.TSEL(dst, mask, s0, s1, tmp)
        else:
            mode = CmpMode[cfg.op.split(".")[0].upper()]
            getattr(pto, self.call)(dst, s0, sv if "scalar" in parts else s1, mode)

    def positions(self, cfg, L: dict):
        """Output element k (of T bytes) as (row, first column its bytes cover, valid)."""
        if self.call in ("TSEL", "TSELS"):
            return super().positions(cfg, L)
        T, pitch = L["T"], L["mask_shape"][1]
        b = np.arange(L["out_bytes"] // T) * T
        r, byte = b // pitch, b % pitch
        return r, np.minimum(byte * 8, cfg.cols - 1), (r < cfg.rows) & (byte < -(-cfg.cols // 8))

    def candidates(self, cfg, vals: np.ndarray, r: int, c: int):
        """Row r alone (of every part), then rows 0..r."""
        split = self._split(cfg, np.asarray(vals))
        parts = [p.reshape(cfg.rows, -1) for k, p in split.items() if k != "scalar"]
        s = np.asarray(split.get("scalar", ()), np.int64)     # (an array: an empty list would make the rows float64)
        yield dict(rows=1), np.concatenate([p[r:r + 1].reshape(-1) for p in parts] + [s])
        yield dict(rows=r + 1), np.concatenate([p[:r + 1].reshape(-1) for p in parts] + [s])


TCMP, TCMPS, TSEL, TSELS = (CompareInstr(c) for c in ("TCMP", "TCMPS", "TSEL", "TSELS"))
