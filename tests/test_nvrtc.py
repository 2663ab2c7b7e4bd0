"""Every kernel source compiles through NVRTC with the options the cupy backend uses at run time.

No GPU is needed: NVRTC is a library (the ``nvidia-cuda-nvrtc`` wheel) that ``cupy.cuda.nvrtc``
drives without a device. Skipped, with the reason, where cupy or NVRTC is missing.
"""
from __future__ import annotations

import re

import pytest

from ptogpu.backend import cupy_backend, sources

ARCHS = ("80", "90")            # A100-class and H100/H200-class devices


def _nvrtc():
    try:
        from cupy.cuda import nvrtc
        nvrtc.getVersion()
    except Exception as e:
        pytest.skip(f"NVRTC unavailable ({type(e).__name__}: {e}); "
                    f"pip install cupy-cuda13x nvidia-cuda-nvrtc")
    return nvrtc


def _ptx(name: str, arch: str) -> str:
    """PTX of ``name`` through the backend's own compile (cupy_backend.compile_source)."""
    return cupy_backend.compile_source(sources.expanded(sources.source_dir() / name), name, f"compute_{arch}").decode()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", [p.name for p in sources.kernel_files()])
def test_kernel_source_compiles_with_runtime_options(name, arch):
    _nvrtc()
    ptx = _ptx(name, arch)
    entries = set(re.findall(r"\.entry\s+(\w+)", ptx))
    exported = set(re.findall(r"^PTO_EXPORT(?:_WARPS)?\((\w+)\)", sources.expanded(sources.source_dir() / name), re.M))
    assert exported, f"{name} exports no kernel"
    assert exported == entries, f"host-shim exports {sorted(exported)} != PTX entries {sorted(entries)}"
    # The host shim's float arithmetic: no flushed denormals (CuPy's own compile adds -ftz=true,
    # which changed TADD, TCVT, TCMP and the sorts on an H100), no contraction into FMA.
    assert ".ftz" not in ptx and not re.search(r"\bfma\.rn\.f(32|64)", ptx)
    # Every kernel declares the block it may be launched with, so that ptxas keeps its registers
    # within the device's 64K a block (mgather_a5_elem took 96 a thread: 1024 lanes did not launch).
    for entry in entries:
        head = ptx[ptx.index(f".entry {entry}("):]
        head = head[: head.index("{")]
        assert re.search(r"\.maxntid\s+\d+", head), f"{name}: {entry} has no __launch_bounds__"


def test_runtime_options_keep_the_host_float_arithmetic():
    opts = cupy_backend.nvrtc_command_line("sm_90")
    assert opts[: len(cupy_backend.NVRTC_OPTIONS)] == cupy_backend.NVRTC_OPTIONS
    assert "-arch=sm_90" in opts and cupy_backend.nvrtc_command_line("90")[-2] == "-arch=compute_90"
    for flag in ("-ftz=false", "-fmad=false", "-prec-div=true", "-prec-sqrt=true"):
        assert flag in opts
    assert not any(o.startswith("-ftz=true") for o in opts)


def _regcounts(elf: bytes) -> dict[str, int]:
    """Registers a thread of each kernel of a cubin (EIATTR_REGCOUNT of its .nv.info sections)."""
    import struct
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]

    def cstr(o):
        return elf[o: elf.index(b"\0", o)].decode()
    names = [cstr(secs[shstrndx][4] + s[0]) for s in secs]
    symtab = secs[names.index(".symtab")]
    strtab = secs[symtab[6]][4]
    syms = [cstr(strtab + struct.unpack_from("<I", elf, symtab[4] + 24 * i)[0]) for i in range(symtab[5] // 24)]
    out = {}
    for nm, sec in zip(names, secs):
        off, end = sec[4], sec[4] + sec[5]
        while nm.startswith(".nv.info") and off < end:
            fmt, attr = elf[off], elf[off + 1]
            if fmt == 4:                                          # EIFMT_SVAL: u16 size, data
                size, = struct.unpack_from("<H", elf, off + 2)
                if attr == 0x2F:                                  # EIATTR_REGCOUNT: symbol, count
                    sym, count = struct.unpack_from("<II", elf, off + 4)
                    out[syms[sym]] = count
                off += 4 + size
            else:
                off += 4 if fmt in (2, 3) else 2
    return out


@pytest.mark.parametrize("name", ["mgather.cu", "mscatter.cu"])
def test_the_widest_blocks_fit_the_register_file(name):
    """The SIMT kernels launch dim3{32, warps} blocks of up to 1024 threads: their cubin for an
    H100 keeps regs x 1024 within its 65,536 registers a block (the launch failed before)."""
    _nvrtc()
    cubin = cupy_backend.compile_source(sources.expanded(sources.source_dir() / name), name, "sm_90")
    regs = _regcounts(cubin)
    assert {"mgather_a5_elem", "mgather_a5_row"} <= set(regs) or "mscatter_a5_source" in regs, regs
    assert all(0 < r <= 64 for r in regs.values()), regs


def test_expanded_sources_are_self_contained():
    for p in sources.kernel_files():
        text = sources.expanded(p)
        assert not re.search(r'^\s*#\s*include\s+"', text, re.M), p.name
