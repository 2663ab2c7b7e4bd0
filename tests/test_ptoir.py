"""PTO IR in and out (ptogpu.ptoir): modules read, written back and read again as the same
program; a module's kernel run gives the bytes the same calls give from Python and the bytes the
rules derive here; what cannot run is one line with its location (exit 2 from the CLI)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.fuzz
from ptogpu.errors import PtoCheckError, PtoIRError
from ptogpu.execution.program import Program, run_program
from ptogpu.ptoir.program import load
from ptogpu.ptoir import load_file, load_text, module_text, parse
from ptogpu.ptoir.buffers import infer
from ptogpu.ptoir.printer import same

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples", "ptoir")
BAG = os.path.join(EXAMPLES, "embedding_bag.pto")
ADD = os.path.join(EXAMPLES, "scaled_add.pto")

T16 = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
I16 = "!pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
V = "!pto.tensor_view<1x16xf32>"
P = "!pto.partition_tensor_view<1x16xf32>"

# Every form the grammar reads, in one module: constants (int, float, bool, hex bits), integer
# arithmetic and casts, cmpi / select, scf.if with results and else, scf.for with iter_args,
# addptr, views, placed and automatic tiles, tassign, instruction ops with attributes inside
# ins(...) (with and without a comma) and after outs(...), events and a barrier.
FORMS = f"""
module attributes {{"pto.device-spec" = "Ascend950"}} {{
  func.func @forms(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: index) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %a256 = arith.constant 256 : i64
    %t = arith.constant true
    %q = arith.constant 0.25 : f32
    %bits = arith.constant 0x3F800000 : f32
    %m = arith.muli %c2, %c16 : index
    %blk = pto.get_block_idx
    %nblk = pto.get_block_num
    %k = arith.index_cast %a256 : i64 to index
    %lt = arith.cmpi slt, %c1, %n : index
    %pick = arith.select %lt, %c0, %c1 : index
    %xp1 = pto.addptr %x, %c0 : !pto.ptr<f32> -> !pto.ptr<f32>
    %xv = pto.make_tensor_view %xp1, shape = [%c1, %c16], strides = [%c16, %c1] : {V}
    %yv = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] {{layout = #pto.layout<nd>}} : {V}
    %xp = pto.partition_view %xv, offsets = [%pick, %c0], sizes = [%c1, %c16] : {V} -> {P}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c16] : {V} -> {P}
    %a = pto.alloc_tile addr = %a256 : {T16}
    %b = pto.alloc_tile : {T16}
    %b2 = pto.tassign %b, %c0 : {T16} -> {T16}
    pto.tload ins(%xp : {P}) outs(%a : {T16})
    pto.record_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, #pto.event<EVENT_ID0>]
    pto.wait_event [#pto.pipe_event_type<TLOAD>, #pto.pipe_event_type<TVEC>, #pto.event<EVENT_ID0>]
    %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %c0, %tile = %a) -> (index, !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) {{
      pto.tadds ins(%tile, %q : {T16}, f32) outs(%tile : {T16})
      %acc2 = arith.addi %acc, %i : index
      scf.yield %acc2, %tile : index, {T16}
    }}
    %w = scf.if %t -> (index) {{
      scf.yield %c1 : index
    }} else {{
      scf.yield %c0 : index
    }}
    scf.if %lt {{
      pto.tmuls ins(%a, %bits : {T16}, f32) outs(%b2 : {T16})
    }}
    pto.tcvt ins(%b2 {{rmode = #pto<round_mode CAST_RINT>}} : {T16}) outs(%a : {T16})
    pto.tgather ins(%a, {{maskPattern = #pto.mask_pattern<P1111>}} : {T16}) outs(%b2 : {T16})
    pto.barrier #pto.pipe<PIPE_ALL>
    pto.tstore ins(%b2 : {T16}) outs(%yp : {P})
    return
  }}
}}
"""


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("text", [FORMS, _read(BAG), _read(ADD)], ids=["forms", "embedding_bag", "scaled_add"])
def test_printing_then_reading_a_module_gives_the_same_program(text):
    m = parse(text, "m.pto")
    again = parse(module_text(m), "m.pto")
    assert same(m, again)
    assert module_text(again) == module_text(m)


def test_the_forms_module_runs_and_its_loop_carries_values():
    k = load_text(FORMS, scalars={"n": 4}, source="forms.pto")
    with pto.Core("cpu", "numpy") as core:
        x = core.gm_put(np.arange(16, dtype=np.float32))
        y = core.gm_alloc(16, pto.float32)
        k(x=x, y=y)
        got = y.numpy(16)
    # x[0..16] + 0.25 twice (the loop), then * 1.0 (the hex constant's bits), cast to itself, P1111 copy
    assert got.tobytes() == (np.arange(16, dtype=np.float32) + np.float32(0.5)).tobytes()


def _python_bag(ids, table, out):
    """embedding_bag.pto's calls, written in Python."""
    I = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 16], pto.Stride[16, 16, 16, 16, 1]]
    Tb = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1000, 64], pto.Stride[64000, 64000, 64000, 64, 1]]
    O = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 16, 64], pto.Stride[1024, 1024, 1024, 64, 1]]
    it = pto.Tile[pto.TileType.Vec, pto.int32, 1, 16]()
    rows = pto.Tile[pto.TileType.Vec, pto.float32, 16, 64]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(rows, 256)
    pto.TLOAD(it, I(ids))
    pto.MGATHER(rows, Tb(table), it)
    pto.TSTORE(O(out), rows)


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_the_embedding_bag_module_gives_the_rule_s_rows_and_the_python_calls_bytes(target, backend):
    prog = load(BAG)
    assert set(prog.fixed) == {"table"} and prog.outputs == {"out": (1024, "float32")}
    assert prog.inputs["ids"].cap == 1000                   # row numbers: MGATHER's Row form
    ids = np.array([[0, 999, 5, 17, 3, 3, 800, 1, 2, 64, 65, 500, 501, 998, 7, 0]], np.int32)
    run = run_program(prog, target, backend, {"ids": ids})
    table = prog.fixed["table"].reshape(1000, 64)
    golden = table[ids[0]]                                  # the NPUs' plain MGATHER: Row, row ids[r]
    assert run.faults[0] is None and run.outputs[0].tobytes() == golden.tobytes()
    py = Program(_python_bag, {"ids": prog.inputs["ids"]}, prog.outputs, prog.fixed, "", "")
    assert run_program(py, target, backend, {"ids": ids}).outputs.tobytes() == run.outputs.tobytes()


def test_the_scaled_add_module_gives_the_rule_s_bytes_on_each_target():
    prog = load(ADD)
    assert set(prog.inputs) == {"x", "z"} and prog.outputs == {"y": (2048, "float32")}
    x = np.linspace(-3, 3, 2048, dtype=np.float32)
    z = np.full(2048, 1.5e-38, np.float32)                  # (x + z) * 0.5: denormal where x is 0
    x[7] = 0.0
    for target, ftz in (("cpu", False), ("a5", True)):
        y = (x + z) * np.float32(0.5)
        if ftz:                                             # the NPUs flush float denormals to zero
            y = np.where(np.abs(y) < np.finfo(np.float32).tiny, np.float32(0) * np.sign(y), y).astype(np.float32)
        for backend in ("numpy", "native"):
            run = run_program(prog, target, backend, {"x": x[None], "z": z[None]})
            assert run.outputs[0].tobytes() == y.astype(np.float32).tobytes(), (target, backend)


# x and y as 1x16 partitions, and x loaded into %a: what the two small modules below share
CONSTS_1X16 = """    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
"""
LOAD_X_1X16 = f"""    %xv = pto.make_tensor_view %x, shape = [%c1, %c16], strides = [%c16, %c1] : {V}
    %yv = pto.make_tensor_view %y, shape = [%c1, %c16], strides = [%c16, %c1] : {V}
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : {V} -> {P}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c16] : {V} -> {P}
    %a = pto.alloc_tile : {T16}
    pto.tload ins(%xp : {P}) outs(%a : {T16})
"""
HALVE = f"""module {{
  func.func @halve(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
{CONSTS_1X16}    %h = arith.constant 0.5 : f32
{LOAD_X_1X16}    pto.tmuls ins(%a, %h : {T16}, f32) outs(%a : {T16})
    pto.tstore ins(%a : {T16}) outs(%yp : {P})
    return
  }}
}}
"""


def test_a_module_campaign_names_its_calls_by_pto_ir_location_and_reproduces(capsys, tmp_path):
    path = tmp_path / "halve.pto"
    path.write_text(HALVE)
    rep = pto.fuzz.kernel(str(path), n=300, backend="numpy")
    (c,) = rep.classes.values()
    assert c.call == "call 2 TMULS at halve.pto:13:5" and rep.unexplained == 0    # the NPUs' denormal flush
    exec(compile(c.reproducer, "repro", "exec"), {})       # the module's text travels in the script
    assert f"first diverging call: {c.call}" in capsys.readouterr().out
    from ptogpu.fuzz.report_text import write_reproducers
    (script,) = write_reproducers(str(tmp_path / "repro"), "halve", rep).values()
    beside = load_file(script[:-3] + ".pto")                # and beside it as a module PTOAS reads
    assert same(beside.module, load_text(HALVE).module) and beside.text.startswith("// ptogpu fuzz: halve")
    big = pto.fuzz.kernel(ADD, n=100, backend="native", shrink=False)
    assert big.divergent > 0 and big.unexplained == 0
    assert all(k.call.split(" at ")[1].startswith("scaled_add.pto:2") for k in big.classes.values())


def test_a_module_s_text_is_fuzzed_as_a_kernel_and_travels_to_workers():
    k = load_text(_read(ADD), source="scaled_add.pto")
    rep = pto.fuzz.kernel(k, n=200, backend="native", shrink=False)
    assert rep.divergent > 0 and rep.unexplained == 0
    prog = pickle.loads(pickle.dumps(load(ADD)))
    assert prog.fn.func.name == "scaled_add" and same(prog.fn.module, load(ADD).fn.module)


def test_a_sidecar_gives_buffers_scalars_and_the_pair(tmp_path):
    text = FORMS
    (tmp_path / "forms.pto").write_text(text)
    (tmp_path / "forms.fuzz.py").write_text(
        "import numpy as np\nimport ptogpu as pto\n"
        "FUZZ = dict(fixed={'x': np.ones(16, np.float32)}, scalars={'n': 4}, pair='a2a3:a5')\n")
    prog = load(str(tmp_path / "forms.pto"))
    assert prog.pair == "a2a3:a5" and set(prog.fixed) == {"x"} and prog.inputs == {}
    assert prog.fn.named == {"n": 4}


BAD = [
    ("pto.tfoo ins(%a : T) outs(%a : T)", "op 'pto.tfoo' is not emulated"),
    ("memref.alloc() : memref<16xf32>", "op 'memref.alloc' is not emulated"),
    ("pto.tadd ins(%a : T) outs(%a : T)", "pto.tadd takes ins(2 operands)"),
    ("pto.tadds ins(%a, %zz : T, f32) outs(%a : T)", "%zz is not defined"),
    ("scf.for %i = %c0 to %undefined step %c0 {\n}", "%undefined is not defined"),
    ("pto.tcmp ins(%a, %a : T, T) outs(%a : T) {cmpMode = #pto<cmp between>}", "cmpMode 'between' is not one of"),
    ("%p = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, "
     "slayout=none_box, fractal=512, pad=7>", "pad=7 is not a PadValue"),
    ("%p = pto.alloc_tile : !pto.tile_buf<loc=left, dtype=f32, rows=1, cols=16>", "loc=left is not emulated"),
    ("%p = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f31, rows=1, cols=16>", "element type 'f31'"),
    ("pto.tadd ins(%a, %a : T, T outs(%a : T)", "unexpected"),
]


@pytest.mark.parametrize("stmt,msg", BAD, ids=[m for _, m in BAD])
def test_malformed_modules_are_one_line_with_their_location(stmt, msg, tmp_path):
    tile = T16
    text = ("module {\n  func.func @k(%x: !pto.ptr<f32>) {\n    %c0 = arith.constant 0 : index\n"
            f"    %a = pto.alloc_tile : {tile}\n    {stmt.replace('T', tile) if 'tile_buf' not in stmt else stmt}\n"
            "    return\n  }\n}\n")
    with pytest.raises(PtoIRError) as e:
        load_text(text, source="bad.pto")
    assert msg in str(e.value) and str(e.value).startswith("bad.pto:5:") and "\n" not in str(e.value)
    path = tmp_path / "bad.pto"
    path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--kernel", str(path), "-n", "5"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_what_ptoas_lowers_to_a_template_pto_isa_lacks_is_the_compiler_s_error():
    text = _read(BAG).replace("outs(%rows : ", "outs(%rows : ", 1).replace(
        "fractal=512, pad=0>)\n    pto.tstore", "fractal=512, pad=0>) {gatherOob = #pto<gather_oob zero>}\n    pto.tstore")
    with pytest.raises(PtoCheckError, match="MGATHER<GatherOOB::Zero>"):     # on every target: read at load
        load_text(text, source="bag.pto")


def test_missing_scalars_and_unknown_functions_are_named():
    with pytest.raises(PtoIRError, match=r"scalar arguments n \(index\)"):
        load_text(FORMS)
    with pytest.raises(PtoIRError, match="no func.func @nope"):
        load_text(FORMS, "nope", scalars={"n": 1})
    with pytest.raises(PtoIRError, match="has no scalar argument m"):
        load_text(FORMS, scalars={"n": 1, "m": 2})


def test_buffers_are_read_from_how_the_function_uses_its_arguments():
    got = infer(load(BAG).fn)
    assert list(got["inputs"]) == ["ids"] and list(got["fixed"]) == ["table"] and list(got["outputs"]) == ["out"]
    assert got["fixed"]["table"].shape == (64000,)
    got = infer(load(ADD).fn)
    assert {k: v.shape for k, v in got["inputs"].items()} == {"x": (2048,), "z": (2048,)}


def test_a_call_log_keeps_each_call_s_bytes_when_a_later_call_rewrites_them():
    k = load_text(HALVE, source="halve.pto")
    with pto.Core("cpu", "numpy") as core:
        x = core.gm_put(np.full(16, 2.0, np.float32))
        y = core.gm_alloc(16, pto.float32)
        with core.calls() as log:
            k(x=x, y=y)
    loaded, halved = (c.outputs[0][0].view(np.float32) for c in log.calls[:2])
    assert (loaded == 2.0).all() and (halved == 1.0).all()     # (the TLOAD record once followed TMULS)
    assert [c.where for c in log.calls] == ["halve.pto:12:5", "halve.pto:13:5", "halve.pto:14:5"]


CALLS = f"""module {{
  func.func private @bump(%t: {T16}, %by: f32, %k: index) -> index {{
    pto.tadds ins(%t, %by : {T16}, f32) outs(%t : {T16})
    %c1 = arith.constant 1 : index
    %k2 = arith.addi %k, %c1 : index
    return %k2 : index
  }}
  func.func @kernel(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
{CONSTS_1X16}    %one = arith.constant 1.0 : f32
{LOAD_X_1X16}    %n = func.call @bump(%a, %one, %c0) : ({T16}, f32, index) -> index
    %n2 = func.call @bump(%a, %one, %n) : ({T16}, f32, index) -> index
    pto.tstore ins(%a : {T16}) outs(%yp : {P})
    return
  }}
}}
"""


def test_func_call_runs_its_callee_inlined_and_round_trips():
    m = parse(CALLS, "calls.pto")
    assert same(m, parse(module_text(m)))
    k = load_text(CALLS, source="calls.pto")                 # the pto.entry function
    with pto.Core("a5", "numpy") as core:
        y = core.gm_alloc(16, pto.float32)
        k(x=core.gm_put(np.arange(16, dtype=np.float32)), y=y)
        assert y.numpy(16).tolist() == (np.arange(16) + 2.0).tolist()
    with pytest.raises(PtoIRError, match="returns index: a kernel returns nothing"):
        load_text(CALLS, "bump")
    with pytest.raises(PtoIRError, match="is recursive"):
        load_text(CALLS.replace("pto.tadds ins(%t, %by", "%r = func.call @bump(%t, %by, %k) : "
                                f"({T16}, f32, index) -> index\n    pto.tadds ins(%t, %by"))


def test_a_loop_past_what_is_unrolled_is_refused_when_loaded_not_run_for_hours():
    text = HALVE.replace("pto.tmuls ins(", "%cb = arith.constant 100000000 : index\n    scf.for %i = %c0 to %cb "
                         "step %c1 {\n    pto.tmuls ins(").replace("    pto.tstore", "    }\n    pto.tstore")
    with pytest.raises(PtoIRError, match=r"halve.pto:15:5: the loops around this op make more than 1048576"):
        load_text(text, source="halve.pto")
    assert load_text(text.replace("100000000", "1000"), source="halve.pto")      # a thousand: fine


def test_a_buffer_of_another_type_than_the_argument_is_the_compiler_s_error():
    k = load_text(HALVE, source="halve.pto")
    with pto.Core("cpu", "numpy") as core:
        with pytest.raises(PtoCheckError, match=r"argument %x is a f32 pointer; given a int32 buffer"):
            k(x=core.gm_alloc(16, pto.int32), y=core.gm_alloc(16, pto.float32))
    again = pickle.loads(pickle.dumps(pto.ptoir.PtoKernel(parse(HALVE, "halve.pto"))))   # (no text given)
    assert again.func.name == "halve"


@pytest.mark.parametrize("compact,long", [
    ("<vec, 16x32xf16>", "<loc=vec, dtype=f16, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, "
                         "slayout=none_box, fractal=512, pad=0>"),
    ("<vec, 8x16xf32, valid=?x5, pad=2, compact=1>",
     "<loc=vec, dtype=f32, rows=8, cols=16, v_row=?, v_col=5, blayout=row_major, slayout=none_box, "
     "fractal=512, pad=2, compact=1>"),
    ("<mat, 32x16xf16, blayout=col_major, slayout=row_major>",
     "<loc=mat, dtype=f16, rows=32, cols=16, v_row=32, v_col=16, blayout=col_major, slayout=row_major, "
     "fractal=512, pad=0>"),
])
def test_tile_buf_compact_syntax_is_the_long_form(compact, long):
    """PTOAS's printer writes tile_bufs in the compact form (PTOTypeDefs.cpp TileBufType::print:
    loc, RxCxT, then only the fields that differ from the defaults)."""
    from ptogpu.ptoir import types as T
    a, _ = T.tile_class("!pto.tile_buf" + compact, "here")
    b, _ = T.tile_class("!pto.tile_buf" + long, "here")
    assert a is b
    assert T.tile_class(T.tile_text(a), "here")[0] is a


@pytest.mark.parametrize("bad,msg", [
    ("<vec, 16xf16>", "expected <loc, RxCxT"),
    ("<vec, 16x16xf16, valid=4>", "valid must have exactly two dims"),
    ("<vec, 16x16xf16, colour=red>", "unknown key in tile_buf compact syntax"),
    ("<vec, 16x16xf16, pad=1, pad=2>", "duplicate pad"),
    ("<vec, 16x16xf16, compact=7>", "compact=7 is not a CompactMode"),
    ("<left, 16x16xf16>", "loc=left is not emulated"),
])
def test_tile_buf_compact_syntax_errors_are_one_line(bad, msg):
    from ptogpu.errors import PtoIRError
    from ptogpu.ptoir import types as T
    with pytest.raises(PtoIRError, match=msg):
        T.tile_class("!pto.tile_buf" + bad, "f.pto:1:2")


def test_a_module_in_the_compact_tile_buf_syntax_runs_as_its_long_form():
    """The scaled-add module with every tile_buf written as PTOAS prints it: the same bytes."""
    import re as _re
    long = _read(ADD)
    compact = _re.sub(r"!pto\.tile_buf<loc=(\w+), dtype=(\w+), rows=(\d+), cols=(\d+), v_row=\3, v_col=\4, "
                      r"blayout=row_major, slayout=none_box, fractal=512, pad=0>", r"!pto.tile_buf<\1, \3x\4x\2>", long)
    assert compact != long and "loc=" not in compact
    reps = [pto.fuzz.kernel(load_text(t, source="scaled_add.pto"), n=64, backend="numpy", shrink=False).to_json()
            for t in (long, compact)]
    assert reps[0]["divergent"] == reps[1]["divergent"] and reps[0]["classes"] == reps[1]["classes"]


def test_addptr_takes_the_short_pointer_types_ptoas_prints():
    """PTOAS prints ``pto.addptr %p, %off : <f32> -> <f32>`` (the ptr type's short form)."""
    def mod(ty):
        return ("module {\n  func.func @k(%arg0: !pto.ptr<f32>) {\n    %c4 = arith.constant 4 : index\n"
                f"    %p = pto.addptr %arg0, %c4 : {ty} -> {ty}\n    return\n  }}\n}}\n")
    a, b = parse(mod("<f32>")), parse(mod("!pto.ptr<f32>"))
    assert same(a, b)
