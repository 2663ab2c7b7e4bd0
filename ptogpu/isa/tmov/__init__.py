"""TMOV between Vec and Mat tiles (docs/tmov.md; the vendor's include/pto/{cpu,npu/a2a3,npu/a5}/TMov.hpp).
Modules: ``rules`` (the per-target table, ``target.tmov``), ``semantics`` (NumPy), ``kernels``
(cuda_src/tmov.cu's launch plan), ``api``."""
from ..declare import Declined, Form, Instruction, Rule

TMOV = Instruction(
    name="tmov", calls=("TMOV",), doc="docs/tmov.md", spec="include/pto/*/TMov.hpp",
    forms=(Form("TMOV(dst, src)", "Vec <-> Vec, Vec <-> Mat: src's valid region into dst"),),
    tables="ptogpu.isa.tmov.rules:TABLES",
    rules=(Rule("tmov.engine", "TMOV engine", "docs/tmov.md: element copy with conversion vs UB bursts vs registers",
                coarse=True, with_=("tmov.pairs", "tmov.mat_to_vec", "tmov.same_shape", "tmov.same_size")),),
    hooks={"api": "ptogpu.isa.tmov.api", "fuzz": "ptogpu.isa.tmov.config:TMOV",
           "repro": "ptogpu.isa.tmov.repro:lines", "native": "tmov.cu", "cupy": "tmov.cu",
           "simt": Declined("a data move on every target: no SIMT lanes")})
