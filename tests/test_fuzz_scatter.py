"""MSCATTER campaigns: the fused native engine agrees with the API engine tile for tile, its
generators are the Python ones, classes carry the rule that explains them, reproducers run,
and the CLI reports races, JSON and bad requests."""
import json
import subprocess
import sys

import numpy as np
import pytest

from ptogpu.cli import main
from ptogpu.fuzz import rules as R
from ptogpu.fuzz import scatter as S
from ptogpu.fuzz import suite

CONFLICT, CAST = R.BY_PATH["conflict"].bit, R.BY_PATH["mscatter.index_bits"].bit


def known(fragment):
    return next(k for k in suite.campaigns() if k.title.startswith("MSCATTER") and fragment in k.title)



def _codes(cfg, a, b, gen, n, engine):
    rep = S.campaign(cfg, a, b, n, generator=gen, backend="native", engine=engine, shrink=False)
    return rep, {k: (c.count, c.first) for k, c in rep.classes.items()}


@pytest.mark.parametrize("cfg,a,b,gen", [
    (S.ScatterConfig(rows=4, cols=8, slots=7, oob="wrap"), "cpu", "a5.last", "mixed"),
    (S.ScatterConfig(rows=40, cols=32, slots=64), "a5.default", "cpu", "uniform"),
    (S.ScatterConfig(rows=40, cols=32, slots=64, atomic="add"), "a5", "cpu", "dup"),
    (S.ScatterConfig(rows=4, cols=8, slots=64, oob="undefined"), "cpu", "a5.last", "mixed"),
    (S.ScatterConfig(rows=4, cols=8, slots=16, oob="clamp", dtype="int16"), "a2a3", "a5.default", "negative"),
    (S.ScatterConfig(mode="row", rows=6, cols=8, slots=5, oob="wrap"), "cpu", "a5.default", "mixed"),
    (S.ScatterConfig(mode="row", rows=40, cols=8, slots=9), "a5.default", "a5.last", "dup"),
    (S.ScatterConfig(rows=6, cols=12, slots=40), "a5.last.reverse", "cpu", "dup"),
    (S.ScatterConfig(rows=40, cols=40, slots=64, atomic="max", dtype="int32"), "a5", "cpu", "dup"),
])
def test_fused_engine_matches_the_api_engine(cfg, a, b, gen):
    """Same tiles, same classes, same first instances, same race counts: the fused kernel's
    generation, both sides and its race detection against the public API tile by tile."""
    fused, cf = _codes(cfg, a, b, gen, 300, None)
    api, ca = _codes(cfg, a, b, gen, 300, "api")
    assert fused.engine.startswith("executing native") and api.engine.startswith("api")
    assert cf == ca
    assert (fused.divergent, fused.faults_a, fused.faults_b, fused.races_a, fused.races_b) == \
        (api.divergent, api.faults_a, api.faults_b, api.races_a, api.races_b)


def test_generators_equal_and_perm():
    v = S.indices("equal", 3, np.arange(5), 40, 64)
    assert (v == v[:, :1]).all() and (v < 64).all() and len(set(v[:, 0])) > 1
    p = S.indices("perm", 3, np.arange(5), 40, 64)
    assert all(len(set(r)) == 40 for r in p)


def test_generator_cycle_repeats_the_rotation_at_any_size():
    """Element e writes slot (e + r) % slots, r per tile: elements a multiple of the slot count
    apart share a slot, no others; `perm` refuses a tile larger than the table, `cycle` not."""
    c = S.indices("cycle", 3, np.arange(6), 512, 256)
    e = np.arange(512)
    for row in c:
        assert np.array_equal(row, (row[0] + e) % 256)
    assert len({int(r[0]) for r in c}) > 1
    cfg = S.ScatterConfig(rows=16, cols=32, slots=256)
    with pytest.raises(ValueError, match="perm"):
        S.campaign(cfg, "a5.default", "cpu", 1, generator="perm")
    rep = S.campaign(cfg, "a5.default@native", "cpu@native", 50, generator="cycle", shrink=False)
    assert rep.races_a == 50 and rep.divergent == 0      # one round: threads 256 apart race, same bytes


@pytest.mark.parametrize("frag,mask", [("Elem 64x32 (two rounds per thread)", R.RACE | CONFLICT),
                                       ("float Elem 64x32", R.RACE | CONFLICT), ("Wrap into 7 slots", CAST)])
def test_known_classes_and_their_reproducers(frag, mask, capsys):
    k = known(frag)
    rep = S.campaign(k.config, k.a, k.b, 200, generator=k.generator, backend="native")
    c = rep.classes[mask]
    assert c.count > 0 and c.shrunk["nontrivial"] <= 3 and c.explained
    exec(compile(c.reproducer, "repro", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    leaves = [ln for ln in out if "leaves" in ln]
    assert len(leaves) == 2 and leaves[0].split("leaves")[1] != leaves[1].split("leaves")[1]
    if mask & R.RACE:                   # the other side's value is one A5 may leave
        may = [ln for ln in out if "may leave" in ln][0]
        assert leaves[1].split("{")[1].split(":")[1].strip(" }") in may


def test_a_race_is_a_class_even_where_the_sides_agree(capsys):
    """A5 Max on integers is order-free: the bytes agree whatever the schedule, but threads
    store to one element; the race class says so, and its reproducer prints every value the
    hardware may leave."""
    k = known("A5 Max")
    rep = S.campaign(k.config, k.a, k.b, 100, generator=k.generator, backend="native")
    assert list(rep.classes) == [R.RACE] and rep.divergent == 0 and rep.races_a == 100
    c = rep.classes[R.RACE]
    assert c.explained and "race" in c.name
    exec(compile(c.reproducer, "repro", "exec"), {})
    assert "may leave" in capsys.readouterr().out


def test_the_last_scans_must_agree_and_each_side_is_checked():
    k = known("reverse scan vs owner table")
    rep = S.campaign(k.config, k.a, k.b, 300, generator=k.generator, backend="native")
    assert S.relation(rep.a, rep.b, S.rule_key) == R.EXECUTOR and rep.classes == {} and rep.executed["a"] == "lanes"
    assert rep.executed["b"] == "lanes (scan results from an owner table)"
    j = rep.to_json()
    assert j["a"] == "a5.last.reverse@native" and j["references"]["a"]["reference"] == S.REF_KERNEL
    with pytest.raises(ValueError, match="names its scan"):
        S.side("a5.default.reverse")
    api = S.campaign(k.config, k.a, k.b, 50, generator=k.generator, backend="native", engine="api")
    assert api.classes == {}


def test_permutations_agree_across_conflict_policies():
    rep = S.campaign(S.ScatterConfig(rows=16, cols=16, slots=512), "a5.default", "a5.last", 2000,
                     generator="perm", backend="native")
    assert rep.divergent == 0 and rep.races_a == 0


def test_a_side_that_does_not_compile_compares_nothing():
    rep = S.campaign(S.ScatterConfig(atomic="max", dtype="half"), "a5", "cpu", 10, backend="native")
    assert rep.check_error and "Max" in rep.check_error and rep.to_json()["compared"] == 0


def test_cli_text_and_json(capsys):
    assert main(["fuzz", "--instr", "mscatter", "--shape", "40x32", "--gen", "uniform", "-n", "500",
                 "--pair", "a5.default:cpu", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "[explained] race + conflict resolution" in out and "races: a5.default@native" in out
    assert "lanes" in out and "loop" in out
    assert main(["fuzz", "--instr", "mscatter", "-n", "300", "--json", "--oob", "wrap", "--table-size", "7",
                 "--gen", "negative", "--shape", "2x8"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["campaigns"]) == 4
    cast = [c for camp in doc["campaigns"] for c in camp["classes"] if c["class"] == "index cast width"]
    assert cast and all(c["explained"] for c in cast)


@pytest.mark.parametrize("args,msg", [
    (["--oob", "zero"], "MSCATTER takes oob undefined, skip, clamp, wrap, not 'zero'"),
    (["--pair", "a2a3.last:cpu"], "no ScatterConflict"),
    (["--gen", "bogus"], "--gen"),
    (["--layout", "nz"], "MGATHER into UB only"),
    (["--atomic", "add", "--instr", "mgather"], "MGATHER takes atomic none, not 'add'"),
])
def test_bad_requests_are_one_line_exit_2(args, msg):
    cmd = [sys.executable, "-m", "ptogpu", "fuzz", "--instr", "mscatter", "-n", "10", *args]
    if "mgather" in args:
        cmd.remove("--instr"), cmd.remove("mscatter")
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_row_capacity_class_from_the_cli(capsys):
    assert main(["fuzz", "--instr", "mscatter", "--mode", "row", "--shape", "4x16", "--table-shape", "1,1,2,8,16",
                 "--pair", "a2a3:cpu", "--gen", "oob", "-n", "300", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "[explained] capacity rule" in out and "into 8 slots x 2 batches" in out
    assert main(["fuzz", "--instr", "mscatter", "--table-shape", "1,1,2,8,16", "-n", "1"]) == 2
    assert "(1, 1, B, slots, cols) in Row mode only" in capsys.readouterr().err


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("mode", ["elem", "row"])
def test_wrap_into_no_slots_is_a_class_by_rule(backend, mode):
    """Wrap with capacity 0: A5 Last's slot-centric scan stores nothing, the sequential and
    source-centric paths fault (a modulo by zero): the conflict rule predicts it, fault vs value."""
    cfg = S.ScatterConfig(mode=mode, rows=2, cols=8, slots=0, oob="wrap")
    for a, b in (("a5.last", "cpu"), ("a5.default", "a5.last"), ("a5.last", "a2a3")):
        rep = S.campaign(cfg, f"{a}@{backend}", f"{b}@{backend}", 40, generator="mixed", backend=backend,
                         shrink=False)
        assert rep.unexplained == 0 and rep.bugs == 0 and rep.divergent == 40, (a, b, rep.to_json()["classes"])
        (cls,) = rep.classes.values()
        assert cls.mask & CONFLICT and "fault vs value" in cls.name
        assert (rep.faults_a, rep.faults_b) == ((0, 40) if a == "a5.last" else (40, 0))


@pytest.mark.parametrize("rel", [0, R.EXECUTOR])
def test_masks_looked_up_by_code_are_the_masks_computed_tile_by_tile(rel):
    """The campaign's chunk of records: masks looked up from each code's (explained tiles
    computed) and the report's counts from the codes' histogram equal what class_masks and a
    count per bit give, on every low code, explained or not; a code outside the low bits takes
    the full path."""
    rng = np.random.default_rng(5)
    code = np.concatenate([np.arange(S._LOW + 1), rng.integers(0, S._LOW + 1, 5000)]).astype(np.uint64)
    expl = np.where(rng.random(code.size) < 0.2, rng.integers(1, 1 << 12, code.size), 0).astype(np.uint64)
    rec = np.stack([code, np.zeros_like(code), expl], axis=1)
    want = S.class_masks(rec[:, 0], rec[:, 2], rel)
    got_code, got, bins = S.fused_masks(rec, rel)
    np.testing.assert_array_equal(got, want)
    assert bins is not None
    slow, fast = S.ScatterReport.__new__(S.ScatterReport), S.ScatterReport.__new__(S.ScatterReport)
    for r in (slow, fast):
        r.faults_a = r.faults_b = r.races_a = r.races_b = r.ref_bad_a = r.ref_bad_b = r.divergent = 0
        r.classes = {}
    masks0 = np.zeros_like(want)                 # (no classes: only the counts)
    S._note(slow, np.arange(code.size), None, got_code, masks0)
    S._note(fast, np.arange(code.size), None, got_code, masks0, bins)
    bits = {"faults_a": "FZ_FAULT_A", "faults_b": "FZ_FAULT_B", "races_a": "FZ_RACE_A", "races_b": "FZ_RACE_B",
            "ref_bad_a": "FZ_REFBAD_A", "ref_bad_b": "FZ_REFBAD_B"}
    for k, bit in bits.items():
        assert getattr(fast, k) == getattr(slow, k) == int(((got_code & S.K[bit]) != 0).sum())
    big = rec.copy()
    big[0, 0] = np.uint64(2**64 - 2)              # (a refused block's word: every bit)
    np.testing.assert_array_equal(S.fused_masks(big, rel)[1], S.class_masks(big[:, 0], big[:, 2], rel))
