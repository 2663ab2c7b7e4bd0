"""TGATHERB: UB -> UB gather of 32-byte blocks by byte offsets (docs/instructions.md). Its modules
are named for their roles (``api``, ``semantics``, ``kernels``, ``config``, ``repro``); its
per-target rules are ``targets.TGatherBRules`` (``target.tgatherb``)."""
from ..declare import Declined, Form, Instruction

TGATHERB = Instruction(
    name="tgatherb", calls=("TGATHERB",), doc="docs/instructions.md", spec="other-ops.md §A",
    forms=(Form("TGATHERB(dst, src, offset)", "each 32-byte block of dst row r from src + offset[r, block]"),),
    rule_fields={"ub": ("tgatherb.engine", "tgatherb.offset_read", "tgatherb.misaligned", "quirks")},
    hooks={"api": "ptogpu.isa.tgatherb.api", "fuzz": "ptogpu.isa.tgatherb.config:TGATHERB",
           "repro": "ptogpu.isa.tgatherb.repro:lines", "native": "tgatherb.cu", "cupy": "tgatherb.cu",
           "simt": Declined("a vector (SIMD) instruction on every target: no lanes to map")},
    coverage="TGATHERB")
