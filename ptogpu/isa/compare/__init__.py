"""TCMP, TCMPS, TSEL, TSELS: compare into packed bit masks and select by them (docs/compare.md; the
vendor's include/pto/{cpu,npu/a2a3,npu/a5}/TCmp*, TSel*). Modules: ``rules`` (the per-target table,
``target.compare``), ``semantics`` (NumPy), ``kernels`` (cuda_src/compare.cu's launch plan), ``api``
(the calls and their checks)."""
from ..declare import Declined, Form, Instruction, Rule

C = "compare."
RULES = (
    Rule(C + "packing", "TCMP mask packing", "docs/compare.md: words, whole repeats or predicated chunks",
         coarse=True, with_=(C + "cmp_dst", C + "cmp_src", C + "b64_cols", C + "row_major")),
    Rule(C + "int32_eq_only", "A2/A3 compare code", "docs/compare.md: int32 EQ only, NE by vnot, 16-bit as half",
         with_=(C + "ne_by_not", C + "half_bits_16")),
    Rule(C + "cmps_layout", "TCMPS layout", "docs/compare.md: the simulator's reflow and tolerance, the tile form",
         with_=(C + "cmps_eq_tolerance", C + "cmps_tile", C + "cmps_src")),
    Rule(C + "sel_walk", "mask walk", "docs/compare.md: flat, per row, A5's byte steps",
         with_=(C + "sel_tmp", C + "sels_tmp", C + "sel_sizes", C + "sels_types", C + "sels_sizes")),
)
_FIELDS = {"TCMP": ("packing", "int32_eq_only"), "TCMPS": ("packing", "int32_eq_only", "cmps_layout"),
           "TSEL": ("sel_walk",), "TSELS": ("sel_walk",)}

_FORMS = {
    "TCMP": ("TCMP(dst, src0, src1, cmpMode)", "bit c of mask row r = src0[r, c] cmp src1[r, c]"),
    "TCMPS": ("TCMPS(dst, src0, scalar | src1, cmpMode)", "bit c of mask row r = src0[r, c] cmp the scalar"),
    "TSEL": ("TSEL(dst, mask, src0, src1, tmp)", "dst = mask bit ? src0 : src1"),
    "TSELS": ("TSELS(dst, mask, src, tmp, scalar)", "dst = mask bit ? src : scalar"),
}


def _declare(call: str) -> Instruction:
    sig, what = _FORMS[call]
    return Instruction(
        name=call.lower(), calls=(call,), doc="docs/compare.md", spec=f"include/pto/*/{call.title()}.hpp",
        forms=(Form(sig, what),), tables="ptogpu.isa.compare.rules:TABLES", table="compare",
        rules=RULES if call == "TCMP" else (), rule_fields={"ub": tuple(C + f for f in _FIELDS[call])},
        hooks={"api": "ptogpu.isa.compare.api",
               "fuzz": f"ptogpu.isa.compare.config:{call}", "repro": "ptogpu.isa.compare.repro:lines", "native": "compare.cu", "cupy": "compare.cu",
               "simt": Declined("a vector instruction on every target: no SIMT lanes")})


COMPARE: tuple[Instruction, ...] = tuple(_declare(c) for c in _FORMS)
