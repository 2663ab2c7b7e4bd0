"""TINTERLEAVE / TDEINTERLEAVE: UB -> UB element interleaving of two tiles (docs/instructions.md). Its
modules are named for their roles (``api``, ``semantics``, ``kernels``, ``config``, ``repro``);
its per-target rules are ``targets.InterleaveRules`` (``target.interleave``)."""
from ..declare import Declined, Form, Instruction

TINTERLEAVE = Instruction(
    name="tinterleave", calls=("TINTERLEAVE", "TDEINTERLEAVE"), doc="docs/instructions.md", spec="other-ops.md §B",
    forms=(Form("TINTERLEAVE(dst1, dst0, src1, src0)", "dst0|dst1 = src0[0], src1[0], src0[1], ..."),
           Form("TDEINTERLEAVE(dst1, dst0, src1, src0)", "the inverse of TINTERLEAVE"),
           Form("TDEINTERLEAVE(dst1, dst0, src)", "dst0 = src's even elements, dst1 its odd ones")),
    writes=2,
    rule_fields={"ub": ("interleave.odd_vc", "interleave.single_src_count", "interleave.engine", "quirks")},
    hooks={"api": "ptogpu.isa.tinterleave.api", "fuzz": "ptogpu.isa.tinterleave.config:TINTERLEAVE",
           "repro": "ptogpu.isa.tinterleave.repro:lines", "native": "interleave.cu", "cupy": "interleave.cu",
           "simt": Declined("a vector (SIMD) instruction on every target: no lanes to map")},
    coverage="TINTERLEAVE/TDEINTERLEAVE")
