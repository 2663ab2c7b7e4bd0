"""MGATHER: GM -> UB/L1 gather by an index tile (docs/mgather.md). Its modules are named for
their roles: ``api`` (and ``api_l1``: GM->L1), ``semantics`` (``semantics_l1``, ``semantics_nz``:
A2/A3's NZ tables), ``kernels`` (``kernels_l1``), ``config``, ``repro``; its per-target rules are
``targets.MGatherRules`` (``target.mgather``); its campaign engines are ``ptogpu.fuzz``'s."""
from ..declare import Form, Instruction

MGATHER = Instruction(
    name="mgather", calls=("MGATHER",), doc="docs/mgather.md", spec="mgather.md",
    forms=(Form("MGATHER<Coalesce, GatherOOB>(dst, table, idx)", "dst[r, c] = table[idx[r, c]] (Elem) or "
                "table row idx[r] (Row), per target's index cast, capacity and OOB rule"),),
    spaces=("ub", "l1"),
    rule_fields={"ub": ("mgather.index_bits", "mgather.row_capacity", "mgather.row_source",
                        "mgather.row_tail_fill", "mgather.tile_offsets"),
                 "l1": ("mgather.index_bits", "mgather.checks", "dma.nd2nz_tail")},
    hooks={"api": "ptogpu.isa.mgather.api", "fuzz": "ptogpu.isa.mgather.config:MGATHER",
           "repro": "ptogpu.isa.mgather.repro:lines", "native": "mgather.cu", "cupy": "mgather.cu",
           "simt": "ptogpu.simt.trace:numpy_trace"},
    coverage="MGATHER (UB and GM->L1, all targets)")
