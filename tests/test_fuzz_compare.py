"""Campaigns find, classify and shrink the known cross-target divergences; injected
differences no rule explains are flagged (unexplained, backend or executor disagreement); the
reproducer snippets run and reproduce."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from ptogpu.fuzz import FuzzConfig
from ptogpu.fuzz import compare as C
from ptogpu.fuzz import rules as R
from ptogpu.fuzz import suite
from test_batch import random_configs

KNOWN = [k for k in suite.campaigns("numpy") if not k.needs_kernels and not k.title.startswith("MSCATTER")
         and isinstance(k.config, FuzzConfig)]     # (the tile-op kernel campaigns: test_fuzz_cli's suite runs)


def bit(path: str) -> int:
    return R.BY_PATH[path].bit


def _run_snippet(code: str) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<reproducer>", "exec"), {})
    return buf.getvalue()


@pytest.mark.filterwarnings("ignore:.*odd valid cols")   # the odd-VC campaign's own warning
@pytest.mark.parametrize("k", KNOWN, ids=lambda k: k.title)
def test_known_divergences_are_found_explained_and_shrunk(k):
    rep = C.campaign(k.config, k.a + "@numpy", k.b + "@numpy", min(k.n, 400), generator=k.generator, seed=0)
    assert rep.unexplained == 0 and rep.bugs == 0, rep.to_json()
    if not k.expect:                       # "must agree" campaigns
        assert rep.divergent == 0
        return
    assert rep.divergent > 0 and set(c.name for c in rep.classes.values()) <= set(k.expect)
    main = max(rep.classes.values(), key=lambda c: c.count)
    assert main.explained and main.mask & R.FIELD_BITS
    assert main.first == sorted(main.first) and len(main.first) == min(5, main.count)
    # (edge values: a class of two rules may need a value for each in both sources)
    assert main.shrunk["rows"] <= k.config.rows and main.shrunk["nontrivial"] <= (4 if k.generator == "edges" else 2)
    for cls in rep.classes.values():             # every class: a public-API script that
        code = cls.reproducer                    # runs and asserts the divergence itself
        assert "ptogpu.fuzz" not in code and "FuzzConfig" not in code and "run_single" not in code
        assert code.startswith("import numpy as np\nimport ptogpu as pto\n")
        assert code.count("with pto.Core(") == 2 and "assert bytes_a != bytes_b" in code
        out = _run_snippet(code)
        assert out.count(":") >= 2
        assert len(code.splitlines()) <= (64 if k.generator == "edges" else 50)     # (64-bit words print wide)


def _script_out(code: str) -> dict:
    g: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<reproducer>", "exec"), g)
    return g["out"]


@pytest.mark.parametrize("cfg", random_configs(36, seed=11),
                         ids=lambda c: c.label.replace(" ", "_"))
def test_reproducer_script_does_what_run_single_does(cfg):
    """The public-API script of one side gives the bytes and the fault of run_single."""
    import warnings

    from ptogpu.fuzz import run_single, snippet
    from ptogpu.execution.rng import generate
    vals = generate("mixed", 3, np.array([5]), cfg.n_idx, cfg.cap)[0]
    vals[: vals.size // 2] = 0                   # exercise the sparse (zeros + entries) form
    code = snippet(cfg, vals)
    assert "ptogpu.fuzz" not in code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (got, fault), = _script_out(code).values()
        ref, rfault = run_single(cfg, vals)
    assert got == ref.tobytes() and (fault is None) == (rfault is None)


def test_shrinking_reaches_one_element_for_an_elem_cast_divergence():
    rep = C.campaign(FuzzConfig(rows=8, cols=8, table_size=100), "cpu@numpy", "a5@numpy", 50, seed=3)
    (cls,) = rep.classes.values()
    assert cls.mask == bit("mgather.index_bits")
    assert (cls.shrunk["rows"], cls.shrunk["cols"]) == (1, 1) and cls.shrunk["nontrivial"] == 1
    assert cls.shrunk["indices"][0] < 0 or cls.shrunk["indices"][0] >= 2**31


def _inject(monkeypatch, backend_or_target: str, instance: int = 7, byte: int = 0):
    """Flip one output byte of one instance on the side matching ``backend_or_target``."""
    real = C.run_chunk

    def fake(cfg, inst, gen, backend="numpy", *a, **k):
        res = real(cfg, inst, gen, backend, *a, **k)
        if backend_or_target in (backend, cfg.target, f"{cfg.target}.{cfg.exec}") and instance in inst:
            res.outputs[list(inst).index(instance), byte] ^= 1
        return res
    monkeypatch.setattr(C, "run_chunk", fake)
    monkeypatch.setattr(C, "SHARE_SIDES", False)     # both sides really run


def test_sides_share_one_run_only_when_the_table_fields_the_path_reads_are_equal(monkeypatch):
    import dataclasses

    from ptogpu import targets
    el, row = FuzzConfig(rows=4, cols=8, table_size=128), FuzzConfig(mode="row", rows=4, cols=8, table_size=128)
    P = lambda s: C.Side.parse(s, "numpy")  # noqa: E731
    sh = lambda cfg, a, b: C.shared_semantics(P(a).config(cfg), P(b).config(cfg), P(a), P(b))
    assert sh(el, "a5.simt", "a2a3") and not sh(el, "cpu", "a5") and not sh(row, "a2a3", "a5")
    assert not sh(el, "a5@numpy", "a2a3@native") and not sh(el.with_(space="l1"), "a5", "a2a3")
    a2 = targets.get_target("a2a3")
    patched = dataclasses.replace(a2, mgather=dataclasses.replace(a2.mgather, index_bits=64))
    monkeypatch.setitem(targets.TARGETS, "a2a3", patched)
    assert not sh(el, "a5.simt", "a2a3")                       # from the fields, not the names
    monkeypatch.undo()
    gen = C.Generator("mixed", 4)
    for fused in (False, True):
        monkeypatch.setattr(C, "SHARE_SIDES", True)
        one = C.campaign(el.with_(oob="zero"), "a5.simt@numpy", "a2a3@numpy", 300, generator=gen, shrink=False, fused=fused)
        monkeypatch.setattr(C, "SHARE_SIDES", False)
        two = C.campaign(el.with_(oob="zero"), "a5.simt@numpy", "a2a3@numpy", 300, generator=gen, shrink=False, fused=fused)
        assert "one run" in one.engine and "one run" not in two.engine
        assert (one.divergent, one.faults_a, one.faults_b) == (two.divergent, two.faults_a, two.faults_b) == (0, 0, 0)
    monkeypatch.setattr(C, "SHARE_SIDES", True)                # Row: the source rules differ
    assert "one run" not in C.campaign(row, "a5.simt@numpy", "a2a3@numpy", 10, shrink=False).engine


def test_unexplained_difference_is_flagged(monkeypatch):
    _inject(monkeypatch, "a2a3")
    rep = C.campaign(FuzzConfig(rows=4, cols=8, table_size=100), "a5.simt@numpy", "a2a3@numpy", 50, shrink=False,
                     fused=False)
    assert rep.unexplained == 1
    (cls,) = rep.classes.values()
    assert cls.mask == R.UNEXPLAINED and cls.first == [7] and not cls.explained


def inject_fused(monkeypatch, instance: int = 7, mode: str = "elem"):
    """Move one element of one tile of side B to another table element in the fused NumPy
    campaign (its effective sources), so its bytes differ for no rule."""
    from ptogpu.fuzz import fused_numpy as FN
    chunk, eff32, eff64 = FN.Campaign.chunk, FN.Campaign._eff32, FN.Campaign._eff64

    def at(self, e):
        k = instance - self._s
        if 0 <= k < e.shape[0]:
            e = e.copy()
            e[k, 0] = 1 if e[k, 0] == 0 else 0
        return e

    def c(self, s, m):
        self._s = s
        return chunk(self, s, m)
    monkeypatch.setattr(FN.Campaign, "chunk", c)
    monkeypatch.setattr(FN.Campaign, "_eff32",
                        lambda self, S, w: ((lambda e, p: (at(self, e) if S is self.B else e, p))(*eff32(self, S, w))))
    monkeypatch.setattr(FN.Campaign, "_eff64",
                        lambda self, S, raw: at(self, eff64(self, S, raw)) if S is self.B else eff64(self, S, raw))
    monkeypatch.setattr(C, "SHARE_SIDES", False)


@pytest.mark.parametrize("cfg", [FuzzConfig(rows=4, cols=8, table_size=100),
                                 FuzzConfig(mode="row", rows=4, cols=8, table_size=100)], ids=["elem", "row"])
def test_unexplained_difference_is_flagged_by_the_fused_numpy_campaign(monkeypatch, cfg):
    inject_fused(monkeypatch)
    rep = C.campaign(cfg, "a5.simt@numpy", "a5.scalar@numpy" if cfg.mode == "row" else "a2a3@numpy", 50, shrink=False, fused=True)
    assert rep.engine.startswith("fused numpy")
    (cls,) = rep.classes.values()
    want = R.EXECUTOR if cfg.mode == "row" else R.UNEXPLAINED
    assert cls.mask == want and cls.first == [7] and cls.count == 1 and not cls.explained


def test_backend_disagreement_is_an_emulator_bug(monkeypatch):
    _inject(monkeypatch, "numpy", instance=3)       # the numpy side is its own reference
    cfg = FuzzConfig(rows=4, cols=8, table_size=100)
    rep = C.campaign(cfg, "a5@numpy", "a5@native", 40, shrink=False, fused=False)
    assert rep.bugs == 1 and list(rep.classes) == [R.BACKEND]
    assert "backend disagreement" in rep.to_json()["classes"][0]["class"]


@pytest.mark.parametrize("pair", [("a5@numpy", "a5@native"), ("cpu@native", "a5@native")])
def test_a_kernel_side_that_disagrees_with_its_reference_is_an_emulator_bug(monkeypatch, pair):
    """Verdict 2: side B's bytes against B's own NumPy reference, whatever side A shows."""
    _inject(monkeypatch, "native", instance=3)
    if pair[0].startswith("cpu"):
        monkeypatch.setattr(C, "run_chunk", _only_target(C.run_chunk, "a5"))
    cfg = FuzzConfig(rows=4, cols=8, table_size=100)
    rep = C.campaign(cfg, *pair, 40, shrink=False, fused=False)
    assert rep.bugs == 1 and rep.classes[R.REF_B].first == [3] and rep.ref_bad_b == 1 and rep.ref_bad_a == 0
    j = rep.to_json()
    assert j["references"]["b"] == {"reference": C.REF_NUMPY, "mismatched": 1, "checked": 40}
    assert next(c for c in j["classes"] if c["emulator_bug"])["class"] == "side B vs its reference"


def _only_target(fake, target):
    """The injected run_chunk for one target; the real one for the others."""
    from ptogpu.execution.batch import run_chunk as real

    def f(cfg, *a, **k):
        return (fake if cfg.target == target else real)(cfg, *a, **k)
    return f


def test_executor_disagreement_is_an_emulator_bug(monkeypatch):
    _inject(monkeypatch, "a5.scalar", instance=2)
    cfg = FuzzConfig(space="l1", rows=4, cols=8, table_size=100)
    rep = C.campaign(cfg, "a5.simt@numpy", "a5.scalar@numpy", 20, shrink=False)
    assert rep.bugs == 1 and list(rep.classes) == [R.EXECUTOR]


def test_side_parsing_and_rules_text():
    s = C.Side.parse("a5.simt@native")
    assert (s.target, s.exec, s.backend) == ("a5", "simt", "native") and str(s) == "a5.simt@native"
    with pytest.raises(ValueError):
        C.Side.parse("a2a3.simt").config(FuzzConfig())
    a, b = FuzzConfig(target="cpu"), FuzzConfig(target="a5")
    (text,) = R.describe(bit("mgather.index_bits"), a, b)
    assert "cpu 64 vs a5 32" in text and "swapping it makes the two references agree" in text
    assert R.class_name(bit("mgather.index_bits") | R.FAULT) == "index cast width (fault vs value)"
    assert R.class_name(R.REF_B | R.WINDOW) == "side B vs its reference (a write outside the destination)"
    assert not R.explained(R.REF_A) and R.is_bug(R.REF_A) and R.explained(bit("mgather.row_source"))
    m = bit("mgather.row_capacity") | R.FAULT
    assert R.mask_of_names(R.names(m)) == m


def test_report_json_is_complete():
    rep = C.campaign(FuzzConfig(rows=2, cols=8, table_size=100), "cpu@numpy", "a2a3@numpy", 30, seed=5)
    j = rep.to_json()
    for k in ("a", "b", "config", "n", "seconds", "tiles_per_s", "divergent", "classes", "unexplained"):
        assert k in j
    assert j["classes"][0]["rules"] and j["classes"][0]["reproducer"].startswith("import numpy")
    assert isinstance(np.int64(j["n"]), np.int64)


def test_campaign_memory_does_not_grow_with_n():
    import tracemalloc
    cfg = FuzzConfig(rows=4, cols=8, table_size=100)

    def peak(n):
        tracemalloc.start()
        C.campaign(cfg, "cpu@numpy", "a5@numpy", n, chunk=1000, shrink=False)   # every tile diverges
        p = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return p

    small, big = peak(3000), peak(30000)
    assert big < small * 1.3 + 200_000, (small, big)


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "vector"])
def test_worker_processes_give_the_same_report(monkeypatch, fused):
    cfg = FuzzConfig(rows=1, cols=4, table_size=100, oob="wrap")
    got = []
    for w in ("0", "1", "3"):
        monkeypatch.setenv("PTOGPU_FUZZ_WORKERS", w)
        rep = C.campaign(cfg, "cpu@numpy", "a5@numpy", 5000, chunk=300, seed=2, shrink=False, fused=fused)
        assert (f"{w} worker process" in rep.engine) == (w != "0")
        got.append((rep.divergent, rep.faults_a, rep.faults_b,
                    {m: (c.count, c.first, c.example.tolist()) for m, c in rep.classes.items()}))
    assert got[0] == got[1] == got[2] and 0 < got[0][0] < 5000


def test_reports_say_what_ran_per_side():
    """executed: the default campaign runs lanes (A5 SIMT kernels) and loops (scalar targets)
    on native; the formula screening mode says formula for both; NumPy array paths say
    formula."""
    from ptogpu.backend import backend_available
    cfg = FuzzConfig(rows=4, cols=8, table_size=100)
    if backend_available("native")[0]:
        rep = C.campaign(cfg, "a5.simt@native", "a2a3@native", 40, shrink=False)
        assert rep.executed == {"a": "lanes", "b": "loop"}
        assert rep.to_json()["executed"] == {"a": "lanes", "b": "loop"}
        rep = C.campaign(cfg, "a5.simt@native", "a2a3@native", 40, shrink=False, fused=True)
        assert rep.engine == "fused native" and rep.executed == {"a": "formula", "b": "formula"}
    rep = C.campaign(cfg, "a5.simt@numpy", "cpu@numpy", 40, shrink=False)
    assert rep.executed == {"a": "formula", "b": "formula"}


def test_what_a_batch_path_executed_is_named_per_side():
    """``executed`` per path: kernels run lanes (A5 SIMT) or loops (scalar targets), and any
    path on NumPy -- the array code or the public API instance by instance -- computes
    per-element results (formula): NumPy runs neither lanes nor loops."""
    from ptogpu.fuzz.compare import Side, executed
    cfg = FuzzConfig(rows=4, cols=8)
    a5, a2 = cfg.with_(target="a5"), cfg.with_(target="a2a3")
    assert executed(a5, Side("a5", "auto", "native"), "kernel") == "lanes"
    assert executed(a2, Side("a2a3", "auto", "native"), "loop") == "loop"
    assert executed(a2, Side("a2a3", "auto", "numpy"), "loop") == "formula"
    assert executed(a5, Side("a5", "auto", "numpy"), "vector+loop") == "formula"
    assert executed(a5, Side("a5", "auto", "native"), "kernel+vector") == "lanes+formula"
