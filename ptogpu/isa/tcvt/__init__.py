"""TCVT: element type conversion with a round mode and saturation (docs/tcvt.md; the vendor's
include/pto/{cpu,npu/a2a3,npu/a5}/TCvt.hpp). Modules: ``rules`` (the per-target table and pair
lists, ``target.tcvt``), ``semantics`` (the conversions), ``api`` (the call and its checks)."""
from ..declare import Declined, Form, Instruction, Rule

TCVT = Instruction(
    name="tcvt", calls=("TCVT",), doc="docs/tcvt.md", spec="include/pto/*/TCvt.hpp",
    forms=(Form("TCVT(dst, src, RoundMode[, SaturationMode])", "dst = src converted, rounded, saturated"),),
    tables="ptogpu.isa.tcvt.rules:TABLES",
    rules=(Rule("tcvt.pairs", "TCVT pair list", "docs/tcvt.md: the pairs each target's code converts",
                with_=("tcvt.unsupported",)),
           Rule("tcvt.region", "TCVT region", "docs/tcvt.md: src's valid region (cpu) vs dst's"),
           Rule("tcvt.minifloats", "TCVT 8- and 4-bit types",
                "docs/tcvt.md: the simulator's truncating MXType and hifloat8 table vs A5's vcvt; the 4-bit "
                "types likewise (the simulator rounds first)", with_=("tcvt.four_bit",)),
           Rule("tcvt.cpu_casts", "TCVT rounding and saturation",
                "docs/tcvt.md: the simulator's C++ casts vs the NPUs' modes and saturation", coarse=True,
                with_=("tcvt.sat_default_on", "tcvt.narrowing", "tcvt.explicit_off_only_narrowing", "tcvt.odd_only",
                       "tcvt.none_float_to_int", "tcvt.none_other", "tcvt.f32_to_f32_rounds"))),
    hooks={"api": "ptogpu.isa.tcvt.api", "fuzz": "ptogpu.isa.tcvt.config:TCVT",
           "repro": "ptogpu.isa.tcvt.repro:lines", "native": "cvt.cu", "cupy": "cvt.cu",
           "simt": Declined("a vector instruction on every target: no SIMT lanes")})
