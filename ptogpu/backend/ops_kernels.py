"""TGATHERB, TINTERLEAVE/TDEINTERLEAVE and the register gathers on the kernel backends
(cuda_src/tgatherb.cu, interleave.cu, reg_gather.cu).

Each ``run_*`` is the hook its instruction calls after the static checks. It returns False
(NumPy runs) on the numpy backend, for operands of another core, and whenever the kernel's
check pass reports a fault or a read inside the bytes the instruction writes: the kernel wrote
nothing, so NumPy raises the same fault, or reads the sources as they were before the
instruction, exactly as on the numpy backend.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import warn
from .kernels import ALIAS_FLAG_WORD, NONE, ParamBlock, all_clean, enum, i64, launch_on, use_kernels


def _bound(core, *tiles) -> bool:
    return all(getattr(t, "core", None) is core and t.addr is not None and t.space == "ub"
               for t in tiles)


# ---- TGATHERB -----------------------------------------------------------------------------
_TG_KERNEL = {"cpu": "tgatherb_cpu", "vreg": "tgatherb_a5", "vrepeat": "tgatherb_a2a3"}
_FLOAT_OFFSETS = {"half": "OFFK_HALF", "bfloat16": "OFFK_BF16", "float32": "OFFK_F32",
                  "float8_e4m3": "OFFK_E4M3FN", "float8_e5m2": "OFFK_E5M2"}


def tgatherb_params(core, dst, src, off) -> tuple[str, np.ndarray] | None:
    engine = core.target.tgatherb.engine
    kind = "OFFK_INT"
    if engine == "cpu" and dtypes.storage(off.Element).kind not in "iub":
        name = dtypes.name_of(off.Element)
        if name == "bfloat16" and core.quirks.get("cpu_bfloat16_is_half", False):
            name = "half"                   # the simulator's bfloat16_t is _Float16: half bits
        kind = _FLOAT_OFFSETS.get(name)
        if kind is None:
            return None                     # a float type the kernel does not decode
    size = dst.Element.itemsize
    rowwise = -(-dst.Cols // (256 // size)) > dst.Rows
    p = ParamBlock(
        "tgatherb.cu", "TG_", VR=dst.valid_row, VC=dst.valid_col, T=size, DST=dst.addr, DST_COLS=dst.Cols,
        DST_RSTRIDE=dst.RowStride, SRC=src.addr, SRC_BYTES=src.Rows * src.Cols * src.Element.itemsize,
        OFF=off.addr, OFF_COLS=off.Cols, OFF_RSTRIDE=off.RowStride, OFF_ESIZE=off.Element.itemsize,
        OFF_SIGNED=int(dtypes.storage(off.Element).kind == "i"),
        ROWWISE_B32=int(rowwise and core.quirks.get("a5_tgatherb_rowwise_b32_store", False)),
        UNUSED_FAULT=int(core.quirks.get("a5_tgatherb_unused_block_fault", False)),
        TAIL_STREAM=int(core.quirks.get("a2a3_tgatherb_tail_stream", True)),
        OFF_KIND=enum("tgatherb.cu", kind))
    return _TG_KERNEL[engine], p.words


NAMED_FAULTS = 0.25
"""On a core of N, the share of instances a TGATHERB check launch may find faulting and the
kernel still run the rest: each faulting instance's fault is named by the single-instance
semantics (``core.fault_of``), which costs more per instance than the batch NumPy rule, so
batches where more fault leave the whole step to that rule."""


def run_tgatherb(core, dst, src, off, one=None) -> bool:
    """``one()``: the instruction's NumPy semantics on the instance in focus (names a fault
    the kernel's check pass found)."""
    if not use_kernels(core) or not _bound(core, dst, src, off):
        return False
    kp = tgatherb_params(core, dst, src, off)
    if kp is None:
        return False
    kernel, p = kp
    recs = launch_on(core, kernel, p, passes=1, writes=())
    clean = recs[:, 0] == np.uint64(NONE)
    if not (recs[clean, ALIAS_FLAG_WORD] != 0).all():
        return False                                    # a read of bytes the step writes
    bad = np.flatnonzero(~clean)
    named = {}
    if bad.size:
        if not (core.all_at_once and one is not None and bad.size <= NAMED_FAULTS * len(recs)):
            return False
        named = {int(k): core.fault_of(int(k), one) for k in bad}   # (they write nothing)
    for rec in recs[clean & (recs[:, 2] != 0)][:1]:     # (on a core of N: the first instance's)
        warn(f"[{core.target.name}] TGATHERB: {int(rec[2])} offset(s) not 32-byte aligned "
             f"(first {int(rec[1]):#x}); rounded down to the block")
    launch_on(core, kernel, p, passes=2, writes=("ub",))
    if named:
        core.fault_instances(named)
    return True


# ---- TINTERLEAVE / TDEINTERLEAVE ------------------------------------------------------------
def interleave_params(mode: str, dsts, srcs, VR: int, n: int, h: int) -> np.ndarray:
    s = list(srcs) + [srcs[0]] * (2 - len(srcs))
    return ParamBlock("interleave.cu", "IL_",
                      MODE=enum("interleave.cu", {"interleave": "MODE_INTERLEAVE", "deint2": "MODE_DEINT2",
                                                  "deint1": "MODE_DEINT1"}[mode]),
                      VR=VR, N=n, H=h, T=dsts[0].Element.itemsize, D0=dsts[0].addr, D0C=dsts[0].Cols,
                      D1=dsts[1].addr, D1C=dsts[1].Cols, S0=s[0].addr, S0C=s[0].Cols, S1=s[1].addr,
                      S1C=s[1].Cols).words


def run_interleave(core, mode: str, dsts, srcs, VR: int, n: int = 0, h: int = 0) -> bool:
    """``mode``: "interleave" (n = written count, h = VC/2), "deint2" (h = VC/2) or "deint1"
    (n = dst VC); ``dsts`` = [dst0, dst1], ``srcs`` = [src0, src1] or [src]."""
    if not use_kernels(core) or not _bound(core, *dsts, *srcs):
        return False
    p = interleave_params(mode, dsts, srcs, VR, n, h)
    if not all_clean(launch_on(core, "interleave", p, passes=1, writes=())):
        return False
    launch_on(core, "interleave", p, passes=2, writes=("ub",))
    return True


# ---- Reg::Gather / Reg::GatherB ----------------------------------------------------------------
def _reg_launch(core, kernel, block, p, nbytes) -> np.ndarray | None:
    out = np.zeros(max(nbytes, 1), np.uint8)
    ub = core.ub
    arenas = {"gm": (np.zeros(1, np.uint8), 0, 0), "ub": (ub._buf, ub.size, 0),
              "l1": (out, nbytes, 0)}
    rec = launch_on(core, kernel, p, block=block, passes=2, arenas=arenas, writes=("l1",))[0]
    return out if int(rec[0]) == NONE else None


def run_reg_gather(core, dst, base, idx: np.ndarray, active: np.ndarray, mode: str) -> bool:
    """Lanes of ``dst`` from ``base`` (a UB pointer); ``mode``: "same", "b8_to_b16", "b64"."""
    if not use_kernels(core):
        return False
    E = lambda k: enum("reg_gather.cu", k)  # noqa: E731
    n = dst.lanes
    dsize = dst.dtype.itemsize
    p = np.zeros(E("RG_HDR") + 2 * n, np.int64)
    p[E("RG_LANES")], p[E("RG_SSIZE")], p[E("RG_DSIZE")] = n, base.dtype.itemsize, dsize
    p[E("RG_MODE")] = E({"same": "RG_SAME", "b8_to_b16": "RG_B8_TO_B16", "b64": "RG_B64_WORDS"}[mode])
    p[E("RG_BASE")] = i64(base.addr)
    p[E("RG_HDR"): E("RG_HDR") + n] = idx[:n]
    p[E("RG_HDR") + n:] = active[:n].astype(np.int64)
    out = _reg_launch(core, "reg_gather", (32, -(-n // 32), 1), p, n * dsize)
    if out is None:
        return False
    dst._put(out[: n * dsize].view(dtypes.storage(dst.dtype)))
    return True


def run_reg_gatherb(core, dst, base, off: np.ndarray, on: np.ndarray) -> bool:
    """Blocks of ``dst`` (8 x 32 bytes) from ``base`` + ``off[k]`` (rounded down in-kernel)."""
    if not use_kernels(core):
        return False
    E = lambda k: enum("reg_gather.cu", k)  # noqa: E731
    p = np.zeros(E("RG_HDR") + 16, np.int64)
    p[E("RG_LANES")], p[E("RG_MODE")] = 8, E("RG_BLOCKS")
    p[E("RG_BASE")] = i64(base.addr)
    p[E("RG_HDR"): E("RG_HDR") + 8] = np.asarray(off[:8], np.int64)
    p[E("RG_HDR") + 8:] = np.asarray(on[:8], np.int64)
    out = _reg_launch(core, "reg_gatherb", (8, 1, 1), p, 256)
    if out is None:
        return False
    dst._b[0] = out[:256]
    return True
