"""TSCATTER: UB -> UB scatter by an index tile, or into a mask pattern's slots (docs/tgather.md;
the vendor's include/pto/{cpu,npu/a2a3,npu/a5}/TScatter.hpp). Every module of this package is
named for its role: ``rules`` (the per-target table), ``semantics`` (NumPy), ``kernels`` (the
launch plan), ``api`` (the public call and its checks), ``config`` (the fuzz configuration),
``repro`` (reproducer lines)."""
from ..declare import Declined, Form, Instruction, Rule

TSCATTER = Instruction(
    name="tscatter", calls=("TSCATTER",), doc="docs/tgather.md", spec="include/pto/*/TScatter.hpp",
    forms=(Form("TSCATTER(dst, src, indexes)", "dst_flat[indexes[i, j]] = src[i, j] over indexes' valid region"),
           Form("TSCATTER<MaskPattern, ScatterAxis>(dst, src)",
                "src into every 2nd/4th dst column (ROW) or row (COL), the others zero; P1111: TMOV")),
    rules=(
           Rule('tscatter.clear', 'TSCATTER dst clear',
                'docs/tgather.md: the NPUs zero dst first'),
           Rule('tscatter.index_cast', 'TSCATTER index cast',
                'docs/tgather.md: static_cast<unsigned> (cpu), signed (A2/A3), unsigned lanes (A5)'),
           Rule('tscatter.lane_order', 'TSCATTER collision order',
                "docs/tgather.md: the later element (cpu, A2/A3), a vscatter's lowest lane (A5)"),
           Rule('tscatter.addressing', 'TSCATTER element addressing',
                'docs/tgather.md: layout vs r*Cols + c'),
           Rule('tscatter.wide_cols', 'TSCATTER 8-byte column cap',
                'docs/tgather.md: A5 scatters <= 64 columns'),
           Rule('tscatter.mask_cursor', 'TSCATTER mask src cursor',
                "docs/tgather.md: the simulator's one cursor over src wrapping at src's Cols, its zeros"),
           Rule('tscatter.col_unit_b16', 'TSCATTER COL int16 units',
                'docs/tgather.md: A2/A3 copies 2*VC bytes a row for 1-byte data'),
           Rule('tscatter.col_offset_bits', 'TSCATTER COL uint16 offset',
                "docs/tgather.md: the NPUs' COL dst offset is a uint16_t"),
           Rule('tscatter.loop', 'TSCATTER element loop',
                "docs/tgather.md: the simulator's loop under aliasing")),
    tables="ptogpu.isa.tscatter.rules:TABLES",
    hooks={"api": "ptogpu.isa.tscatter.api", "fuzz": "ptogpu.isa.tscatter.config:TSCATTER",
           "repro": "ptogpu.isa.tscatter.repro:lines", "native": "tgather.cu", "cupy": "tgather.cu",
           "simt": Declined("a vector instruction (vscatter / a scalar loop) on every target: no SIMT lanes")},
    coverage="TSCATTER (every form)")
