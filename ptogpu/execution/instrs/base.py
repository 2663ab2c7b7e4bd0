"""What every instruction of a fuzz configuration tells the layers that run it (the registry
of ``ptogpu.execution.instrs``): its configuration facts, the canonical single-instance set-up
(its program through the public API), and the facts a campaign needs to shrink a divergence.

An instruction is one :class:`Instr` subclass in a module of its own and one entry of
:data:`ptogpu.execution.instrs.REGISTRY`; ``FuzzConfig``, ``execution.single``,
``execution.batch`` and ``fuzz.shrink`` ask it, they do not switch on instruction names."""
from __future__ import annotations

import numpy as np

from ... import dtypes


LAYOUTS = {"nd": ("RowMajor", "NoneBox"), "dn": ("ColMajor", "NoneBox"),
           "nz": ("ColMajor", "RowMajor"), "zz": ("RowMajor", "RowMajor")}
"""``FuzzConfig.layout``: tile layouts of MGATHER-into-UB destination and Elem index tiles,
as (BLayout, SLayout) names."""


def pad_to(n: int, m: int) -> int:
    return max(m, -(-n // m) * m)


class Instr:
    """The per-instruction facts. ``cfg`` is a ``FuzzConfig`` (duck-typed: this module sits
    below it)."""

    name: str = ""
    family: str = "mgather"
    """The campaign family whose report runs its campaigns (``fuzz.spec.families()``)."""
    oobs: tuple[str, ...] = ("undefined", "clamp", "wrap", "zero")
    execs: tuple[str, ...] = ("auto", "simt", "scalar")
    atomics: tuple[str, ...] = ("none",)
    """The OOB policies, executors (``exec``) and atomic operations its configurations take."""
    ops: tuple[str, ...] = ("",)
    """Its operation variants (``FuzzConfig.op``, ``ptogpu fuzz --op``): "" where it has none."""
    op_form: str = ""
    """How its variants are written, where listing them would be too long (TCVT's)."""
    mask_forms: bool = False
    """Its configurations take ``mask`` (a MaskPattern form instead of the index form)."""
    writes_by_index: bool = False
    """Its writes land where the generated values say, so an out-of-range value may write
    outside the footprint on the target too (TSCATTER): a campaign then calls a side's write
    outside the footprint a bug only where the side's reference does not make it."""
    defaults: dict = {}
    """``FuzzConfig`` fields the command line sets for it unless told (``ptogpu fuzz``)."""
    spaces: tuple[str, ...] = ("ub",)
    """The destination memories its configurations take (``space``)."""

    def formula_fields(self, cfg) -> tuple[str, ...] | None:
        """The target-table fields (``table.field`` paths) this configuration's bytes depend
        on -- what its per-element formula (the fused screening engines') and its semantics
        read -- or None when no formula covers it: sides whose values of these fields are
        equal give the same bytes by construction."""
        return None

    # -- the configuration ----------------------------------------------------------------
    def layouts(self, cfg) -> tuple[str, ...]:
        """The ``cfg.layout`` values this instruction takes in ``cfg.space`` (LAYOUTS' names)."""
        return ("nd",)

    def validate(self, cfg) -> None:
        """ValueError for fields this instruction does not take."""
        if cfg.space not in self.spaces:
            raise ValueError(f"{self.name.upper()} campaigns take space {' or '.join(self.spaces)}, not {cfg.space!r}")
        if cfg.layout not in self.layouts(cfg):
            raise ValueError("tile layouts other than nd apply to MGATHER into UB only (and TMOV --space l1: nz)")
        if cfg.storage is not None:
            raise ValueError("dynamic valid dims (storage) apply to MGATHER into UB only")
        if cfg.mask and not self.mask_forms:
            raise ValueError(f"{self.name.upper()} has no mask form (--mask: TGATHER and TSCATTER)")

    def table_elems(self, cfg) -> int:
        """Elements the table occupies in GM (its extent under the strides)."""
        ext = 1 + sum((s - 1) * st for s, st in zip(cfg.shape5, cfg.stride5) if s > 0)
        return max(ext, cfg.table_size if cfg.table_shape is None else 0, 1)

    def shape5(self, cfg) -> tuple[int, ...]:
        """The table's 5-D shape when ``cfg.table_shape`` does not give it."""
        return (1, 1, 1, 1, cfg.table_size)

    def n_idx(self, cfg) -> int:
        """Generator values one instance consumes."""
        raise NotImplementedError

    def cap(self, cfg) -> int:
        """The capacity the index generators aim at."""
        raise NotImplementedError

    def label(self, cfg) -> str:
        raise NotImplementedError

    def tile_shape(self, cfg) -> tuple[int, int]:
        """The valid shape the tiles are laid out for."""
        return (cfg.rows, cfg.cols)

    # -- the canonical instance -----------------------------------------------------------
    def layout(self, cfg) -> dict:
        """Addresses and tile geometry (``T``, ``isz`` and ``table_bytes`` are filled in)."""
        raise NotImplementedError

    def needs(self, cfg, L: dict) -> dict[str, int]:
        """Bytes of each on-chip memory the instance needs."""
        r, c = L["dst_shape"]
        return {"ub": L["dst_addr"] + r * c * L["T"]}

    def footprint(self, cfg, L: dict) -> dict[str, list[tuple[int, int]]]:
        """The byte ranges the instruction writes, by space (what a stray-write watch keeps)."""
        r, c = L["dst_shape"]
        return {"ub": [(L["dst_addr"], L["dst_addr"] + r * c * L["T"])]}

    def out_bytes(self, cfg, L: dict) -> int:
        r, c = L["dst_shape"]
        return r * c * L["T"]

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        """Generator values (int64) as the instance's index (or data) array, wrapping."""
        return np.asarray(values, np.int64).astype(dtypes.storage(dtypes.as_dtype(cfg.index_dtype)))

    def lo32_cast(self, cfg) -> bool:
        """:meth:`cast` keeps the generator values' low 32 bits as they are (a 32-bit index
        type), so the generator's 32-bit lanes (``Generator.lo32``) can feed it directly."""
        return False

    def program(self, pto, core, cfg, L: dict, T, idx: np.ndarray, each, before) -> None:
        """The instance's program through the public API on ``core`` (a core of N when
        ``idx`` has a row per instance: ``each(a, *shape)`` shapes per-instance inputs);
        ``before()`` just before the instruction."""
        raise NotImplementedError

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        """The output bytes (one row per instance on a core of N)."""
        r, c = L["dst_shape"]
        return core.read("ub", L["dst_addr"], r * c * L["T"])

    # -- campaigns -------------------------------------------------------------------------
    def runs_lanes(self, cfg) -> bool:
        """The configuration's kernel executes SIMT warp lanes on its target (else a loop)."""
        return False

    def inert_rules(self, cfg) -> tuple[str, ...]:
        """Target-table fields (``rule paths``) that cannot change this configuration's bytes,
        so no divergence is explained by them."""
        return ()

    # -- shrinking ------------------------------------------------------------------------
    def positions(self, cfg, L: dict):
        """For every output element: (row, col, valid) in logical coordinates."""
        Rr, Cc = L["dst_shape"]
        e = np.arange(Rr * Cc)
        r, c = e // Cc, e % Cc
        return r, c, (r < cfg.rows) & (c < cfg.cols)

    def candidates(self, cfg, vals: np.ndarray, r: int, c: int):
        """Smaller (config changes, values) around element (r, c), smallest first."""
        g = vals.reshape(cfg.rows, -1)
        yield dict(rows=1), g[r:r + 1].reshape(-1)
        yield dict(rows=r + 1), g[: r + 1].reshape(-1)

    def culprits(self, cfg, vals: np.ndarray, one: dict):
        """More candidates, for a fault whose culprit need not be the first difference."""
        return []


class DataOperands(Instr):
    """A vector instruction whose generated values are its operands' data (every bit pattern,
    cap 2^32-1): no index policy, no executor choice, a valid shape of at least 1x1. Where its
    layout names ``dst_addr`` and ``out_bytes``, the output is those UB bytes."""
    oobs = ("undefined",)
    execs = ("auto",)

    def validate(self, cfg) -> None:
        super().validate(cfg)
        if cfg.rows < 1 or cfg.cols < 1:
            raise ValueError(f"{self.name.upper()} campaigns need a valid shape of at least 1x1")

    def cap(self, cfg) -> int:
        return (1 << 32) - 1

    def needs(self, cfg, L: dict) -> dict[str, int]:
        return {"ub": L["dst_addr"] + L["out_bytes"]} if "out_bytes" in L else super().needs(cfg, L)

    def footprint(self, cfg, L: dict):
        if "out_bytes" not in L:
            return super().footprint(cfg, L)
        return {"ub": [(L["dst_addr"], L["dst_addr"] + L["out_bytes"])]}

    def out_bytes(self, cfg, L: dict) -> int:
        return L["out_bytes"] if "out_bytes" in L else super().out_bytes(cfg, L)

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        return core.read("ub", L["dst_addr"], L["out_bytes"]) if "out_bytes" in L else super().read_out(core, cfg, L)

    def place(self, pto, core, cfg, L: dict, src, dst, vals, each) -> None:
        """The one-source set-up: src at ``src_addr``, dst at ``dst_addr`` (in its own memory)
        holding ``dst_fill`` (``out_bytes`` of it), src's valid region set to the values."""
        pto.TASSIGN(src, L["src_addr"])
        pto.TASSIGN(dst, L["dst_addr"])
        if cfg.dst_fill:
            core.write(dst.space, L["dst_addr"], bytes([cfg.dst_fill]) * L["out_bytes"])
        src.set(each(vals, cfg.rows, cfg.cols))


def prefill(core, cfg, tile) -> None:
    """The destination's bytes before the instruction (cfg.dst_fill)."""
    if cfg.dst_fill:
        core.write(tile.space, tile.addr, bytes([cfg.dst_fill]) * tile.nbytes)
