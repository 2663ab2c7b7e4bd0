"""MGATHER: GM -> UB/L1 gather by an index tile (mgather.md). Its code still lives in the
layer modules its hooks name; they move into this package as they are next touched."""
from ..declare import Form, Instruction

MGATHER = Instruction(
    name="mgather", calls=("MGATHER",), doc="docs/mgather.md", spec="mgather.md",
    forms=(Form("MGATHER<Coalesce, GatherOOB>(dst, table, idx)", "dst[r, c] = table[idx[r, c]] (Elem) or "
                "table row idx[r] (Row), per target's index cast, capacity and OOB rule"),),
    spaces=("ub", "l1"),
    rule_fields={"ub": ("mgather.index_bits", "mgather.row_capacity", "mgather.row_source",
                        "mgather.row_tail_fill", "mgather.tile_offsets"),
                 "l1": ("mgather.index_bits", "mgather.checks", "dma.nd2nz_tail")},
    hooks={"api": "ptogpu.ops.mgather", "fuzz": "ptogpu.execution.instrs.mgather:MGATHER",
           "repro": "ptogpu.fuzz.repro:mgather_lines", "native": "mgather.cu", "cupy": "mgather.cu",
           "simt": "ptogpu.simt.trace:numpy_trace"},
    coverage="MGATHER (UB and GM->L1, all targets)")
