"""Lowering: what every instruction's launch plan shares (``tiles``: a tile as kernels see it).
Each instruction's own plan is its package's ``kernels`` module (``ptogpu/isa/NAME``): a
checked call turned into its ``cuda_src/`` kernel's parameter block, block shape and arenas,
from the target rules, handed to ``ptogpu.backend``, which only compiles and launches."""
