"""MSCATTER on the kernel backends (placeholder until cuda_src/mscatter.cu lands)."""
from __future__ import annotations


def run(core, call, table, src, idx) -> bool:
    return False
