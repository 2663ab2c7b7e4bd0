"""Shards and merges as data: k shards of a campaign, a batch or a sweep, merged, give exactly
what one run gives (timings aside); a merge that would lack a shard is refused."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ptogpu.execution.batch import BatchResult, BatchSpec, digest_rows, run_batch
from ptogpu.execution.batch import run_sharded as run_batch_sharded
from ptogpu.execution.shards import Shard, check_tiling, split
from ptogpu.fuzz import FuzzConfig
from ptogpu.fuzz import Report
from ptogpu.fuzz.compare import GatherReport
from ptogpu.fuzz.scatter import ScatterConfig, ScatterReport
from ptogpu.fuzz.spec import CampaignSpec, run_sharded
from ptogpu.simt.sweep import SweepResult, SweepSpec, sweep
from ptogpu.simt.sweep import run_sharded as run_sweep_sharded

TIMING = ("seconds", "tiles_per_s", "workers")


def same(a: dict, b: dict) -> bool:
    strip = lambda d: {k: v for k, v in d.items() if k not in TIMING}
    return strip(a) == strip(b)


@pytest.mark.parametrize("text, rng", [("0/1", (0, 1)), ("3/4", (3, 4)), (" 1 / 2 ", (1, 2))])
def test_shard_specs(text, rng):
    assert (Shard.parse(text).index, Shard.parse(text).count) == rng


@pytest.mark.parametrize("text, msg", [("3/2", "0..1"), ("-1/4", "0..3"), ("2/2", "0..1"), ("1/0", "at least 1"),
                                       ("x", "expected i/k"), ("1/2/3", "expected i/k"), ("", "expected i/k")])
def test_bad_shard_specs_are_one_clear_error(text, msg):
    with pytest.raises(ValueError, match=msg):
        Shard.parse(text)


def test_shards_tile_the_range_and_differ_by_at_most_one():
    for start, n, k in ((0, 10, 3), (5, 1000, 7), (3, 2, 5), (0, 0, 4)):
        parts = split(start, n, k)
        assert check_tiling(parts) == (start, n) or n == 0
        sizes = [m for _, m in parts]
        assert sum(sizes) == n and max(sizes) - min(sizes) <= 1
        assert [s for s, _ in parts] == sorted(s for s, _ in parts)


def test_a_gap_or_an_overlap_is_refused():
    with pytest.raises(ValueError, match="10 .. 19 are missing"):
        check_tiling([(0, 10), (20, 10)])
    with pytest.raises(ValueError, match="overlap"):
        check_tiling([(0, 10), (5, 10)])
    with pytest.raises(ValueError, match="no shards"):
        check_tiling([])


CAMPAIGNS = [
    ("elem cast", FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", "mixed"),
    ("row undefined", FuzzConfig(mode="row", rows=4, cols=16, oob="undefined", table_size=128), "cpu", "a5", "mixed"),
    ("row capacity", FuzzConfig(mode="row", rows=4, cols=16, table_shape=(1, 1, 2, 8, 16),
                                table_stride=(256, 256, 128, 16, 1)), "a2a3", "a5", "mixed"),
    ("tgatherb", FuzzConfig(instr="tgatherb", rows=2, cols=12, table_size=512), "cpu", "a5", "uniform"),
    ("mscatter elem", ScatterConfig(rows=4, cols=8, slots=7, oob="wrap"), "cpu", "a5.last", "mixed"),
    ("mscatter row", ScatterConfig(mode="row", rows=4, cols=16, slots=8, batches=2), "a2a3", "a5.last", "oob"),
]


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("title, cfg, a, b, gen", CAMPAIGNS, ids=[c[0] for c in CAMPAIGNS])
def test_k_shards_merged_are_the_one_run_report(title, cfg, a, b, gen, backend, request):
    if backend == "native":
        request.getfixturevalue("native_available")
    n = 600 if cfg.instr == "mscatter" and backend == "numpy" else 3001
    spec = CampaignSpec.of(cfg, a, b, n, generator=gen, seed=5, start=17, backend=backend)
    one = spec.run().to_json()
    assert one["divergent"] > 0, "a campaign with divergences tests more"
    for k in (1, 3, 8):
        merged = run_sharded(spec, k, None)
        assert same(merged.to_json(), one), (title, k)
        assert [w["shard"] for w in merged.workers] == [f"{i}/{k}" for i in range(k)]


def test_the_formula_and_shape_fuzzing_campaigns_merge_too(native_available):
    for cfg, kw in ((FuzzConfig(rows=4, cols=8, table_size=100), dict(engine="formula")),
                    (FuzzConfig(rows=6, cols=12, table_size=100), dict(shapes=True))):
        spec = CampaignSpec.of(cfg, "cpu", "a5", 4000, seed=1, backend="native", **kw)
        one = spec.run().to_json()
        assert one["divergent"] > 0
        assert same(run_sharded(spec, 5, None).to_json(), one)


def test_a_report_reads_back_from_its_json():
    for cfg, a, b, gen in ((FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", "mixed"),
                           (ScatterConfig(rows=4, cols=8, slots=7, oob="wrap"), "cpu", "a5.last", "mixed")):
        spec = CampaignSpec.of(cfg, a, b, 500, generator=gen, backend="numpy")
        rep = spec.run()
        j = json.loads(json.dumps(rep.to_json()))
        back = Report.from_json(j)                  # one reader: the family's class from the document
        assert type(back) is (GatherReport if cfg.instr != "mscatter" else ScatterReport)
        assert same(back.to_json(), rep.to_json()) and same(type(rep).from_json(j).to_json(), j)
        other = ScatterReport if cfg.instr != "mscatter" else GatherReport
        with pytest.raises(ValueError, match=f"not a {other.FAMILY} report"):
            other.from_json(j)
        for k, c in rep.classes.items():            # examples regenerated from (seed, first)
            assert np.array_equal(np.asarray(back.classes[k].example), np.asarray(c.example))


def test_merge_refuses_what_is_not_one_campaign():
    spec = CampaignSpec.of(FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", 900, backend="numpy")
    r0, r1, r2 = (spec.shard(f"{i}/3").run(shrink=False) for i in range(3))
    with pytest.raises(ValueError, match="missing"):
        Report.merge([r0, r2])
    with pytest.raises(ValueError, match="overlap"):
        Report.merge([r0, r0, r1, r2])
    other = CampaignSpec.of(FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", 900, seed=9,
                            backend="numpy").shard("1/3").run(shrink=False)
    with pytest.raises(ValueError, match="not shards of one campaign"):
        Report.merge([r0, other, r2])
    scatter = CampaignSpec.of(ScatterConfig(rows=4, cols=8, slots=7), "cpu", "a5", 900,
                              backend="numpy").shard("1/3").run(shrink=False)
    with pytest.raises(ValueError, match="not shards of one campaign"):
        Report.merge([r0, scatter, r2])             # one merge for both families, and it tells them apart


def test_a_check_error_of_any_shard_is_kept():
    spec = CampaignSpec.of(FuzzConfig(rows=3, cols=5, table_size=100, dtype="int64"), "a5", "a2a3", 90,
                           backend="numpy")
    reps = [spec.shard(f"{i}/3").run(shrink=False) for i in range(3)]
    assert reps[0].check_error
    merged = Report.merge(reps)
    assert merged.check_error == reps[0].check_error and merged.to_json()["compared"] == 0


def test_a_campaign_spec_is_versioned_data():
    spec = CampaignSpec.of(FuzzConfig(rows=4, cols=8), "a5.simt", "a2a3", 10, seed=3, title="t")
    doc = json.loads(json.dumps(spec.to_json()))
    assert doc["schema"] == "ptogpu.fuzz.campaign/1" and CampaignSpec.from_json(doc) == spec
    with pytest.raises(ValueError, match="campaign document"):
        CampaignSpec.from_json({"schema": "ptogpu.fuzz.campaign/2"})
    with pytest.raises(ValueError, match="lacks"):
        CampaignSpec.from_json({"schema": "ptogpu.fuzz.campaign/1", "family": "mgather"})
    assert spec.shard("1/2").start == 5 and spec.shard("1/2").n == 5


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_batch_shards_xor_to_the_one_run_digest(backend, request):
    if backend == "native":
        request.getfixturevalue("native_available")
    cfg = FuzzConfig(rows=4, cols=8, table_size=100, target="cpu")
    spec = BatchSpec.of(cfg, 4000, seed=2, start=11, backend=backend)
    one = spec.run()
    # the digest is the XOR of per-instance digests: computed here from the kept outputs
    full = run_batch(cfg, 4000, seed=2, start=11, backend=backend, keep_outputs=True)
    inst = np.arange(11, 4011, dtype=np.int64)
    assert one.digest == int(np.bitwise_xor.reduce(digest_rows(inst, full.outputs, full.faults)))
    for k in (1, 4, 7):
        m = run_batch_sharded(spec, k, None)
        assert (m.digest, m.n_faults, m.start, m.n) == (one.digest, one.n_faults, 11, 4000)
    kept = BatchResult.merge([BatchSpec.of(cfg, 4000, seed=2, start=11, backend=backend, keep_outputs=True)
                              .shard(f"{i}/3").run() for i in (2, 0, 1)])
    assert np.array_equal(kept.outputs, full.outputs) and np.array_equal(kept.faults, full.faults)
    with pytest.raises(ValueError, match="missing"):
        BatchResult.merge([spec.shard("0/3").run(), spec.shard("2/3").run()])
    assert BatchSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec


def test_sweep_shards_concatenate_to_the_one_run_table():
    spec = SweepSpec("elem", tuple(range(1, 30)), tuple(range(1, 45)), ("float32", "half", "int8"))
    one = sweep("elem", range(1, 30), range(1, 45), ("float32", "half", "int8"))
    for k in (1, 4, 13):
        m = run_sweep_sharded(spec, k)
        assert m.csv() == one.csv() and len(m) == spec.size
    parts = [spec.run(f"{i}/4") for i in range(4)]
    assert "".join(p.csv().split("\n", 1)[1] for p in parts) == one.csv().split("\n", 1)[1]
    with pytest.raises(ValueError, match="missing"):
        SweepResult.merge([parts[0], parts[2]])
    assert SweepSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec


def test_old_reports_are_refused_with_one_line(tmp_path):
    """Version 2 reports carry each side's reference verdict: a merge of version-1 shards would
    claim checks that never ran, so it is refused, naming the file and the version."""
    import subprocess
    import sys
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schema": "ptogpu.fuzz.run/1", "campaigns": []}))
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--merge", str(old)], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "ptogpu.fuzz.run/1 document (an older ptogpu's" in r.stderr and "rerun that shard" in r.stderr
    with pytest.raises(ValueError, match="report/1 report .an older ptogpu's"):
        Report.from_json({"schema": "ptogpu.fuzz.report/1"})


class _Ran:
    def __init__(self, rc, out, err):
        self.returncode, self.stdout, self.stderr = rc, out, err


def _cli(*args, capsys):
    """``ptogpu fuzz ARGS`` in this process: its status, stdout and stderr."""
    from ptogpu.cli import main
    try:
        rc = main(["fuzz", *args])
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return _Ran(rc, out, err)


@pytest.mark.parametrize("pair", [["--pair", "cpu@numpy:a5@numpy", "--shape", "4x8", "--table-size", "100"],
                                  ["--instr", "mscatter", "--pair", "a5.default@numpy:cpu@numpy",
                                   "--shape", "2x8", "--table-size", "16"]])
def test_cli_merge_needs_the_whole_campaign_and_believable_counts(tmp_path, pair, capsys):
    """Each shard's JSON names its shard and the whole range: shards missing at either end,
    shards of other splits and counts no run of the shard's tiles could give are refused."""
    files = {}
    for s in ("0/3", "1/3", "2/3", "0/2"):
        r = _cli(*pair, "-n", "600", "--shard", s, "--json", "--quiet", capsys=capsys)
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert doc["shard"] == s and doc["campaigns"][0]["campaign"] == {"start": 0, "n": 600}
        files[s] = tmp_path / f"s{s.replace('/', '_')}.json"
        files[s].write_text(r.stdout)
    f = lambda *ss: [str(files[s]) for s in ss]
    for bad, why in [(f("0/3", "1/3"), "missing shard 2/3 (instances 400 .. 599)"),
                     (f("1/3", "2/3"), "missing shard 0/3 (instances 0 .. 199)"),
                     (f("0/2"), "missing shard 1/2 (instances 300 .. 599)"),
                     (f("0/3", "1/3", "2/3", "0/2"), "600 tiles in 2 shards")]:
        r = _cli("--merge", *bad, capsys=capsys)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and why in r.stderr, r.stderr
    assert _cli("--merge", *f("2/3", "0/3", "1/3"), "--no-shrink", capsys=capsys).returncode in (0, 1)
    for edit, why in [(dict(divergent=10**30), "divergent = 1,000,000"), (dict(faults_a=201), "faults_a = 201"),
                      (dict(n=10**6), "not shard 1/3"), (dict(divergent=-1), "not a count")]:
        doc = json.loads(files["1/3"].read_text())
        doc["campaigns"][0].update(edit)
        bad = tmp_path / "edited.json"
        bad.write_text(json.dumps(doc))
        r = _cli("--merge", *f("0/3"), str(bad), *f("2/3"), capsys=capsys)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and why in r.stderr, (edit, r.stderr)
    doc = json.loads(files["1/3"].read_text())
    doc["campaigns"][0]["classes"] = [{"class": "x", "facts": [], "count": 150, "first": [0]}] * 2
    (tmp_path / "edited.json").write_text(json.dumps(doc))
    r = _cli("--merge", *f("0/3"), str(tmp_path / "edited.json"), *f("2/3"), capsys=capsys)
    assert r.returncode == 2 and "outside" in r.stderr, r.stderr


@pytest.mark.parametrize("nbytes", [1, 7, 8, 13, 64, 1027])
def test_the_native_digest_of_a_batch_is_the_numpy_one(nbytes, native_available):
    from ptogpu.execution.batch import batch_digest
    rng = np.random.default_rng(nbytes)
    out = rng.integers(0, 256, (300, nbytes), dtype=np.uint8)
    inst = rng.integers(0, 2**40, 300).astype(np.int64)
    faults = rng.integers(-128, 128, 300).astype(np.int8)
    want = int(np.bitwise_xor.reduce(digest_rows(inst, out, faults)))
    assert batch_digest(inst, out, faults, "native") == want == batch_digest(inst, out, faults, "numpy")
    out[123, nbytes - 1] ^= 1                        # one bit of one row shows
    assert batch_digest(inst, out, faults, "native") != want
