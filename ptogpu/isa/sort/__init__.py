"""TSORT32 and TMRGSORT (docs/sort.md; the vendor's include/pto/{cpu,npu/a2a3,npu/a5}/TSort32.hpp,
TMrgSort.hpp). Modules: ``rules`` (the per-target table, ``target.sort``), ``semantics`` (NumPy),
``kernels`` (cuda_src/sort.cu's launch plans), ``api`` (the calls, MrgSortExecutedNumList,
the checks)."""
from ..declare import Declined, Form, Instruction, Rule

_HOOKS = {"native": "sort.cu", "cupy": "sort.cu",
          "simt": Declined("a vector (SFU) instruction on every target: no SIMT lanes")}
RULES = (Rule("sort.tail", "TSORT32 tail block", "docs/sort.md: the simulator's partial block vs the NPUs' "
              "dropped or NaN-padded one", with_=("sort.rows_from", "sort.idx_broadcast", "sort.idx_same_shape")),
         Rule("sort.large_tmp_unit", "TSORT32 tail path", "docs/sort.md: the row copied to tmp vs its tail only "
              "(LargeTmpBufferImpl), past 8160 elements (A2/A3) or bytes (A5)", with_=("sort.pad_tmp_extra",)),
         Rule("sort.ties", "sort tie order", "docs/sort.md: by index value (cpu) vs by position",
              with_=("sort.half_block_bug", "sort.chunk_bug")),
         Rule("sort.merge_into", "TMRGSORT destination", "docs/sort.md: into dst vs all into tmp, then blocks to dst",
              with_=("sort.counts_always", "sort.single_from", "sort.single_checks")))

TSORT32 = Instruction(
    name="tsort32", calls=("TSORT32",), doc="docs/sort.md", spec="include/pto/*/TSort32.hpp",
    forms=(Form("TSORT32(dst, src, idx[, tmp])", "blocks of 32 sorted descending into (value, index) records"),),
    tables="ptogpu.isa.sort.rules:TABLES", table="sort", rules=RULES,
    rule_fields={"ub": ("sort.tail", "sort.ties", "sort.large_tmp_unit")},
    hooks={"api": "ptogpu.isa.sort.api", **_HOOKS,
           "fuzz": "ptogpu.isa.sort.config:TSORT32",
           "repro": "ptogpu.isa.sort.repro:lines"})
TMRGSORT = Instruction(
    name="tmrgsort", calls=("TMRGSORT",), doc="docs/sort.md", spec="include/pto/*/TMrgSort.hpp",
    forms=(Form("TMRGSORT(dst, executed, tmp, src0, src1[, src2[, src3]])", "2 to 4 sorted lists merged"),
           Form("TMRGSORT(dst, src, blockLen)", "groups of 4 sorted blocks merged")),
    tables="ptogpu.isa.sort.rules:TABLES", table="sort", rule_fields={"ub": ("sort.merge_into", "sort.ties")},
    hooks={"api": "ptogpu.isa.sort.api", **_HOOKS, "fuzz": "ptogpu.isa.sort.config:TMRGSORT",
           "repro": "ptogpu.isa.sort.repro:mrg_lines"})
SORT = (TSORT32, TMRGSORT)
