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


def _compile(nvrtc, name: str, arch: str) -> str:
    src = sources.expanded(sources.source_dir() / name)
    prog = nvrtc.createProgram(src, name, [], [])
    opts = list(cupy_backend.nvrtc_command_line(arch))
    try:
        nvrtc.compileProgram(prog, opts)
    except Exception as e:
        raise AssertionError(f"{name} ({' '.join(opts)}): {e}\n{nvrtc.getProgramLog(prog)}") from None
    log = nvrtc.getProgramLog(prog)
    assert "warning" not in log.lower(), log
    ptx = nvrtc.getPTX(prog)
    return ptx.decode() if isinstance(ptx, bytes) else ptx


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", [p.name for p in sources.kernel_files()])
def test_kernel_source_compiles_with_runtime_options(name, arch):
    nvrtc = _nvrtc()
    ptx = _compile(nvrtc, name, arch)
    entries = set(re.findall(r"\.entry\s+(\w+)", ptx))
    exported = set(re.findall(r"^PTO_EXPORT(?:_WARPS)?\((\w+)\)", sources.expanded(sources.source_dir() / name), re.M))
    assert exported, f"{name} exports no kernel"
    assert exported == entries, f"host-shim exports {sorted(exported)} != PTX entries {sorted(entries)}"


def test_runtime_options_are_ours_plus_what_cupy_adds():
    opts = cupy_backend.nvrtc_command_line("90")
    assert opts[: len(cupy_backend.NVRTC_OPTIONS)] == cupy_backend.NVRTC_OPTIONS
    assert "-arch=compute_90" in opts


def test_expanded_sources_are_self_contained():
    for p in sources.kernel_files():
        text = sources.expanded(p)
        assert not re.search(r'^\s*#\s*include\s+"', text, re.M), p.name
