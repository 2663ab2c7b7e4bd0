"""The kernel sources' layout holds what the docs say of it: the independent references in
cuda_src/ref/ include nothing of the kernels (only the shared basics, common.cuh, and the
parameter blocks, the host's contract with both), so a rule cannot be shared by a kernel and
the reference that checks it -- their independence checked, not promised."""
from __future__ import annotations

import re
from pathlib import Path

from ptogpu.backend import sources

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "cuda_src"
ALLOWED = {"common.cuh", "mscatter_params.cuh"}
"""What a reference may include from cuda_src/: the basic types and the parameter blocks."""


def _local_includes(path: Path) -> list[Path]:
    return [(path.parent / m).resolve() for m in re.findall(r'^\s*#\s*include\s+"([^"]+)"', path.read_text(), re.M)]


def test_the_references_include_nothing_of_the_kernels():
    refs = sorted((SRC / "ref").glob("*.cuh"))
    assert {p.name for p in refs} >= {"mgather_ref.cuh", "mscatter_ref.cuh"}
    for ref in refs:
        seen, todo = set(), [ref]
        while todo:
            p = todo.pop()
            for inc in _local_includes(p):
                if inc in seen:
                    continue
                seen.add(inc)
                rel = inc.relative_to(SRC).as_posix()
                assert rel in ALLOWED or rel.startswith("ref/"), f"{ref.name} includes {rel} (through {p.name})"
                todo.append(inc)
    for name in ALLOWED:                         # the allowed ones hold no kernel either
        assert not re.search(r"__global__\s+void", (SRC / name).read_text()), name


def test_every_source_is_hashed_and_expanded_by_its_path():
    names = {p.relative_to(SRC).as_posix() for p in sources.all_files()} if sources.source_dir() == SRC else set()
    assert {"ref/mgather_ref.cuh", "ref/mscatter_ref.cuh", "mscatter_params.cuh", "mscatter.cu"} <= names
    text = sources.expanded(SRC / "mscatter.cu")
    assert text.count("struct MsWrite {") == 1 and text.count("enum { FK_SEQ = 0") == 1
    assert text.count(" mscatter_fuzz(PTO_KERNEL_PARAMS)") == 1   # (the engine, mscatter_fuzz.cuh)
    assert "FK_LAST" in sources.enum_values("mscatter.cu") and "SD_BITS" in sources.enum_values("fuzz.cu")


def test_the_kernels_rules_are_in_rules_cuh_and_the_references_cannot_see_them():
    """rules.cuh holds the kernels' target rules (index cast, remaps, A5 launch geometry),
    rules_fast.cuh their vector forms; common.cuh (all a reference may include) defines none."""
    rule = re.compile(r"^\s*(?:template\s*<[^>]*>\s*)?PTO_DEV\s[^;{(]*\b(cast_index|remap|ms_remap|row_launch_warps|"
                      r"elem_launch_warps|lane_remap|remap_t)\s*\(", re.M)
    assert not rule.search((SRC / "common.cuh").read_text())
    assert {"cast_index", "remap", "ms_remap", "row_launch_warps", "elem_launch_warps"} <= \
        set(rule.findall((SRC / "rules.cuh").read_text()))
    assert {"lane_remap", "remap_t"} <= set(re.findall(r"PTO_DEV\s[^;{(]*\b(lane_remap|remap_t)\s*\(",
                                                        (SRC / "rules_fast.cuh").read_text()))
    assert "rules.cuh" not in ALLOWED and "rules_fast.cuh" not in ALLOWED
