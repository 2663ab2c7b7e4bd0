"""The CUDA sources of ``cuda_src/``: where they are, their text with local includes expanded,
a content hash, and the parameter-block layouts they define (read from the source, so the
Python side can never drift from the kernels)."""
from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.M)


def source_dir() -> Path:
    """``$PTOGPU_CUDA_SRC`` if set; else ``cuda_src/`` beside the package (a source checkout or
    an editable install, so edits rebuild); else the copy a wheel ships as ``ptogpu/_cuda_src``."""
    env = os.environ.get("PTOGPU_CUDA_SRC")
    if env:
        return Path(env)
    pkg = Path(__file__).resolve().parents[1]
    checkout = pkg.parent / "cuda_src"
    if checkout.is_dir():
        return checkout
    return pkg / "_cuda_src"


def kernel_files() -> list[Path]:
    """Every ``.cu`` translation unit (one per instruction family)."""
    return sorted(source_dir().glob("*.cu"))


def all_files() -> list[Path]:
    """Every file a build depends on (``.cu``, ``.cuh``, ``.h``; the references of ``ref/`` too)."""
    d = source_dir()
    return sorted(p for p in d.rglob("*") if p.suffix in (".cu", ".cuh", ".h"))


def expanded(path: Path, _seen: set | None = None) -> str:
    """The text of ``path`` with ``#include "local"`` lines replaced by the files' text (each
    file once), so NVRTC and CuPy's cache see one self-contained source."""
    path = Path(path).resolve()
    seen = set() if _seen is None else _seen
    seen.add(path)

    def sub(m: re.Match) -> str:
        name = m.group(1)
        inc = (path.parent / name).resolve()
        if not inc.exists():
            return m.group(0)
        if inc in seen:
            return ""
        return f"// ---- begin {name}\n{expanded(inc, seen)}\n// ---- end {name}\n"

    return _INCLUDE.sub(sub, path.read_text())


def digest(extra: str = "") -> str:
    """Hash of every source file's name and bytes, plus ``extra`` (compiler and flags)."""
    h = hashlib.sha256(extra.encode())
    d = source_dir()
    for p in all_files():
        h.update(p.relative_to(d).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def _enum_blocks(text: str):
    for m in re.finditer(r"enum\s*\{([^}]*)\}", text):
        body = re.sub(r"//[^\n]*", "", m.group(1))
        yield [e.strip() for e in body.split(",") if e.strip()]


@lru_cache(maxsize=None)
def enum_values(filename: str) -> dict[str, int]:
    """Every ``enum { A = 0, B, C = A + K, ... }`` constant of ``cuda_src/filename`` (local
    includes expanded), evaluated the way C++ does."""
    text = expanded(source_dir() / filename)
    values: dict[str, int] = {}
    for entries in _enum_blocks(text):
        nxt = 0
        for e in entries:
            if "=" in e:
                name, expr = (s.strip() for s in e.split("=", 1))
                nxt = int(eval(expr, {"__builtins__": {}}, dict(values)))  # noqa: S307 (our own source)
            else:
                name = e
            values[name] = nxt
            nxt += 1
    return values


@lru_cache(maxsize=None)
def kernel_file(kernel: str) -> str:
    """The ``cuda_src`` file whose translation unit (its headers included) has the
    ``PTO_EXPORT(kernel)`` line that defines ``kernel``."""
    for p in kernel_files():
        if re.search(rf"^PTO_EXPORT(?:_WARPS)?\({kernel}\)", expanded(p), re.M):
            return p.name
    raise KeyError(f"no cuda_src/*.cu exports kernel {kernel!r}")
