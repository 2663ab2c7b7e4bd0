"""MSCATTER: UB -> GM scatter by an index tile, with atomics and conflict rules (docs/mscatter.md).
Its modules are named for their roles: ``api``, ``semantics`` (and ``semantics_outcomes``: the
values a racing launch may leave), ``kernels``, ``config``, ``repro``; its per-target rules are
``targets.MScatterRules`` (``target.mscatter``); its campaign family is ``fuzz/scatter.py``."""
from ..declare import Form, Instruction

MSCATTER = Instruction(
    name="mscatter", calls=("MSCATTER",), doc="docs/mscatter.md", spec="mscatter.md",
    forms=(Form("MSCATTER<Coalesce, ScatterAtomicOp, ScatterOOB[, ScatterConflict]>(table, src, idx)",
                "table[idx[r, c]] (op)= src[r, c]; rows for Row"),),
    rule_fields={"ub": ("mscatter.index_bits", "mscatter.row_capacity", "mscatter.row_dst", "conflict", "quirks")},
    hooks={"api": "ptogpu.isa.mscatter.api", "fuzz": "ptogpu.isa.mscatter.config:MSCATTER",
           "repro": "ptogpu.isa.mscatter.repro:lines", "native": "mscatter.cu", "cupy": "mscatter.cu",
           "simt": "ptogpu.simt.scatter_map:scatter_map"},
    coverage="MSCATTER (all targets; A2/A3 NZ tables on NumPy)")
