"""py.typed is a promise: mypy, with ptogpu.mypy_plugin, passes on every Python example of the
README and docs/ (each page's blocks as one module, as a user would paste them)."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CACHE = tempfile.mkdtemp(prefix="ptogpu-mypy-")   # one cache for both tests: the second is quick
CONFIG = """[mypy]
plugins = ptogpu.mypy_plugin
allow_redefinition = True
[mypy-ptogpu.*]
follow_imports = silent
"""


def _mypy(tmp_path, files: dict[str, str]) -> subprocess.CompletedProcess:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", CACHE,
                           *files], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={"MYPYPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_mypy_passes_on_the_readme_and_docs_examples(tmp_path):
    files = {}
    for p in PAGES:
        blocks = re.findall(r"```python\n(.*?)```", p.read_text(), re.S)
        if blocks:
            files[f"{p.stem.replace('-', '_')}_page.py"] = "\n".join(blocks)
    assert "README_page.py" in files and len(files) >= 8
    r = _mypy(tmp_path, files)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_plugin_types_template_instances_and_still_finds_errors(tmp_path):
    """DstT = pto.Tile[...] is the Tile class: its instances have Tile's methods, annotations
    accept them, and a misuse is still an error."""
    good = ("import numpy as np\nimport ptogpu as pto\n"
            "T = pto.Tile[pto.TileType.Vec, pto.float32, 8, 32, pto.BLayout.RowMajor, 8, 32]\n"
            "G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 8, 32], pto.Stride[1, 1, 1, 32, 1], pto.Layout.ND]\n"
            "R = pto.reg.RegTensor[pto.half]\n"
            "def f(t: pto.Tile) -> np.ndarray:\n    return t.numpy()\n"
            "t = T()\nf(t)\nreveal_type(t)\nreveal_type(R())\n")
    r = _mypy(tmp_path, {"good.py": good})
    assert r.returncode == 0, r.stdout
    assert 'Revealed type is "ptogpu.tile.Tile"' in r.stdout
    assert 'Revealed type is "ptogpu.reg.registers.RegTensor"' in r.stdout
    r = _mypy(tmp_path, {"bad.py": good.replace("f(t)\n", "f(3)\nt.no_such_method()\n")})
    assert r.returncode == 1 and 'Argument 1 to "f" has incompatible type "int"' in r.stdout
    assert '"Tile" has no attribute "no_such_method"' in r.stdout
