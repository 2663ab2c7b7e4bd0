"""A kernel's FUZZ dict and parameters are checked before anything runs: each mistake is one
line naming its field (exit 2 on the command line), blamed on the kernel, never on ptogpu."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.fuzz
from ptogpu.execution.program import Program, load

HEAD = """
import numpy as np
import ptogpu as pto
import ptogpu.fuzz
V = pto.TileType.Vec
Out = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
def k(table, ids, out):
    t = pto.Tile[V, pto.float32, 1, 8]()
    pto.TASSIGN(t, 0)
    pto.TSTORE(Out(out), t)
"""
GOOD = dict(inputs='{"ids": pto.fuzz.indices(8, cap=64)}', outputs='{"out": (8, pto.float32)}',
            fixed='{"table": np.arange(64, dtype=np.float32)}')
CASES = [
    ({"inputs": '{"ids": np.arange(8)}'}, "inputs['ids'] is a ndarray: give a generator"),
    ({"outputs": '{"out": (1 << 40, pto.float32)}'}, "more than one core's GM"),
    ({"outputs": '{"out": (8.5, pto.float32)}'}, "outputs['out'] = (8.5, dtype('float32')): give (count, dtype), a whole count > 0"),
    ({"outputs": '{"out": (8, "float99")}'}, "outputs['out']: element type 'float99'"),
    ({"outputs": '{"res": (8, pto.float32)}'}, "its parameters (table, ids, out) do not take the buffers"),
    ({"fixed": '{"table": [object()]}'}, "fixed['table']: give a non-empty array of numbers"),
    ({"inputs": '[1, 2]'}, "FUZZ inputs is a list: give a dict"),
    ({"input": '{}'}, "FUZZ field 'input' is not one of inputs, outputs, fixed, pair"),
]


def _write(tmp_path, change) -> str:
    fields = {**GOOD, **change}
    body = ", ".join(f"{k}={v}" for k, v in fields.items())
    path = tmp_path / f"kernel_{abs(hash(body)) % 10 ** 8}.py"
    path.write_text(HEAD + f"FUZZ = dict({body})\n")
    return f"{path}:k"


@pytest.mark.parametrize("change, msg", CASES)
def test_a_bad_fuzz_dict_is_a_value_error_naming_its_field(tmp_path, change, msg):
    with pytest.raises(ValueError) as e:
        load(_write(tmp_path, change))
    assert msg in str(e.value)


@pytest.mark.parametrize("change, msg", CASES[:3])
def test_on_the_command_line_it_is_one_line_and_exit_2(tmp_path, change, msg):
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--kernel", _write(tmp_path, change), "-n", "10",
                        "--backend", "numpy", "--quiet"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_the_python_api_checks_the_same_before_running():
    def k(ids, out):
        pass
    with pytest.raises(ValueError, match="inputs\\['ids'\\] is a ndarray"):
        pto.fuzz.kernel(k, inputs={"ids": np.arange(8)}, outputs={"out": (8, pto.float32)}, n=10)
    with pytest.raises(ValueError, match="do not take the buffers"):
        pto.fuzz.kernel(k, inputs={"idx": pto.fuzz.indices(8, cap=64)}, outputs={"out": (8, pto.float32)}, n=10)
    prog = Program(k, {"ids": pto.fuzz.indices(8, cap=64)}, {"out": (np.int64(8), pto.float32)})
    assert prog.out_bytes() == 32                                   # (a NumPy integer is a whole count)
