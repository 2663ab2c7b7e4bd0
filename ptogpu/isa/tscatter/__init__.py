"""TSCATTER: UB -> UB scatter by an index tile, or into a mask pattern's slots (docs/tgather.md;
the vendor's include/pto/{cpu,npu/a2a3,npu/a5}/TScatter.hpp). Every module of this package is
named for its role: ``rules`` (the per-target table), ``semantics`` (NumPy), ``kernels`` (the
launch plan), ``api`` (the public call and its checks), ``config`` (the fuzz configuration),
``repro`` (reproducer lines)."""
from ..declare import Declined, Form, Instruction

TSCATTER = Instruction(
    name="tscatter", calls=("TSCATTER",), doc="docs/tgather.md", spec="include/pto/*/TScatter.hpp",
    forms=(Form("TSCATTER(dst, src, indexes)", "dst_flat[indexes[i, j]] = src[i, j] over indexes' valid region"),
           Form("TSCATTER<MaskPattern, ScatterAxis>(dst, src)",
                "src into every 2nd/4th dst column (ROW) or row (COL), the others zero; P1111: TMOV")),
    rule_fields={"ub": ("tscatter.clear", "tscatter.index_cast", "tscatter.lane_order", "tscatter.addressing",
                        "tscatter.wide_cols", "tscatter.mask_cursor", "tscatter.col_unit_b16",
                        "tscatter.col_offset_bits", "tscatter.loop")},
    tables="ptogpu.isa.tscatter.rules:TABLES",
    hooks={"api": "ptogpu.isa.tscatter.api", "fuzz": "ptogpu.isa.tscatter.config:TSCATTER",
           "repro": "ptogpu.isa.tscatter.repro:lines", "native": "tgather.cu", "cupy": "tgather.cu",
           "simt": Declined("a vector instruction (vscatter / a scalar loop) on every target: no SIMT lanes")},
    coverage="TSCATTER (every form)")
