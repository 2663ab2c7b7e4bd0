"""TGATHER: UB -> UB gather by an index tile, by a mask pattern, or of the columns that pass a
compare (docs/tgather.md; the vendor's include/pto/{cpu,npu/a2a3,npu/a5}/TGather.hpp). Every
module of this package is named for its role: ``rules`` (the per-target table), ``semantics``
(NumPy), ``kernels`` (the launch plan), ``api`` (the public call and its checks), ``config``
(the fuzz configuration), ``repro`` (reproducer lines)."""
from ..declare import Declined, Form, Instruction, Rule

TGATHER = Instruction(
    name="tgather", calls=("TGATHER",), doc="docs/tgather.md", spec="include/pto/*/TGather.hpp",
    forms=(Form("TGATHER(dst, src0, indices, tmp)", "dst[r, c] = src0_flat[indices[r, c]] over dst's valid region"),
           Form("TGATHER<Dst, Src, MaskPattern, GatherAxis>(dst, src)",
                "every 2nd/4th element (ROW, packed) or row (COL) of src; P1111: all"),
           Form("TGATHER<D, S, S1, C, Tmp, CmpMode>(dst, src0, k_value, cdst, tmp, offset)",
                "per row, the indices of the columns where src0 cmp k (GT, EQ), left-packed; their count")),
    rules=(
           Rule('tgather.oob', 'TGATHER out-of-src0 index rule',
                "docs/tgather.md: the simulator's 0 vs the NPUs' raw UB read", with_=("tgather.offset_math",)),
           Rule('tgather.offset_math', 'TGATHER index-to-address rule',
                'docs/tgather.md: logical (cpu), int32 byte offsets (A2/A3), unsigned lanes (A5)'),
           Rule('tgather.addressing', 'TGATHER element addressing',
                'docs/tgather.md: layout vs r*Cols + c'),
           Rule('tgather.wide_cols', 'TGATHER 8-byte column cap',
                'docs/tgather.md: A5 gathers <= 64 columns'),
           Rule('tgather.col_rows', 'TGATHER COL rows written',
                "docs/tgather.md: the selected rows (cpu) vs src's valid rows (the NPUs' over-run)"),
           Rule('tgather.b64_row_stride', 'TGATHER 8-byte mask rows',
                "docs/tgather.md: A5's 8-byte ROW rows Cols/times apart, floor(VC/times) each"),
           Rule('tgather.loop', 'TGATHER element loop',
                "docs/tgather.md: the simulator's loop under aliasing")),
    tables="ptogpu.isa.tgather.rules:TABLES",
    hooks={"api": "ptogpu.isa.tgather.api", "fuzz": "ptogpu.isa.tgather.config:TGATHER",
           "repro": "ptogpu.isa.tgather.repro:lines", "native": "tgather.cu", "cupy": "tgather.cu",
           "simt": Declined("a vector instruction (vgather / vgather2) on every target: no SIMT lanes")},
    coverage="TGATHER (every form)")
