"""MSCATTER: UB -> GM scatter by an index tile, with atomics and conflict rules (mscatter.md).
Its code still lives in the layer modules its hooks name."""
from ..declare import Form, Instruction

MSCATTER = Instruction(
    name="mscatter", calls=("MSCATTER",), doc="docs/mscatter.md", spec="mscatter.md",
    forms=(Form("MSCATTER<Coalesce, ScatterAtomicOp, ScatterOOB[, ScatterConflict]>(table, src, idx)",
                "table[idx[r, c]] (op)= src[r, c]; rows for Row"),),
    rule_fields={"ub": ("mscatter.index_bits", "mscatter.row_capacity", "mscatter.row_dst", "conflict", "quirks")},
    hooks={"api": "ptogpu.ops.mscatter", "fuzz": "ptogpu.execution.instrs.mscatter:MSCATTER",
           "repro": "ptogpu.fuzz.repro:mscatter_lines", "native": "mscatter.cu", "cupy": "mscatter.cu",
           "simt": "ptogpu.simt.scatter_map:scatter_map"},
    coverage="MSCATTER (all targets; A2/A3 NZ tables on NumPy)")
