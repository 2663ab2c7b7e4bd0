"""Campaigns, batches and sweeps on a real Dask LocalCluster of two worker processes: the same
reports as a direct run, the worker and its backend reported, a lost worker's shard retried,
bad addresses and missing backends one clear error, Ctrl-C cancelling the shards."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

distributed = pytest.importorskip("distributed")

from ptogpu.errors import BackendUnavailable, ClusterError  # noqa: E402
from ptogpu.execution import cluster, executors  # noqa: E402
from ptogpu.execution.batch import BatchSpec  # noqa: E402
from ptogpu.execution.batch import run_sharded as run_batch_sharded  # noqa: E402
from ptogpu.fuzz import FuzzConfig  # noqa: E402
from ptogpu.fuzz.spec import CampaignSpec, run_shard, run_sharded  # noqa: E402
from ptogpu.simt.sweep import SweepSpec  # noqa: E402
from ptogpu.simt.sweep import run_sharded as run_sweep_sharded  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMING = ("seconds", "tiles_per_s", "workers")


def same(a: dict, b: dict) -> bool:
    strip = lambda d: {k: v for k, v in d.items() if k not in TIMING}
    return strip(a) == strip(b)


@pytest.fixture(scope="module")
def client():
    with cluster.connect("local:2") as c:
        yield c


def test_a_campaign_on_the_cluster_is_the_direct_report_and_says_where_it_ran(client):
    spec = CampaignSpec.of(FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", 20_000, seed=4)
    ex = cluster.executor(client)
    assert executors.n_slots(ex) == 2 and "Dask tcp://" in executors.describe(ex)
    seen = []
    got = run_sharded(spec, 6, ex, on_shard=lambda i, w: seen.append(i))
    assert sorted(seen) == list(range(6))
    one = spec.run()
    assert got.divergent > 0 and same(got.to_json(), one.to_json())
    addrs = set(client.nthreads())
    assert {w["address"] for w in got.workers} <= addrs
    assert all(w["pid"] != os.getpid() for w in got.workers)
    best = one.a.backend                    # the worker's choice, reported: never a silent fallback
    assert all(w["a"] == f"cpu@{best}" and w["b"] == f"a5@{best}" for w in got.workers)


def test_a_batch_and_a_sweep_on_the_cluster(client):
    ex = cluster.executor(client)
    spec = BatchSpec.of(FuzzConfig(rows=4, cols=8, table_size=100, target="a2a3"), 8000, seed=1)
    one = spec.run()
    got = run_batch_sharded(spec, 4, ex)
    assert (got.digest, got.n_faults, got.n) == (one.digest, one.n_faults, 8000)
    sw = SweepSpec("row", tuple(range(1, 40)), tuple(range(1, 40)), ("float32", "half"))
    assert run_sweep_sharded(sw, 5, ex).csv() == sw.run().csv()


def test_a_worker_without_the_requested_backend_is_an_error_naming_it(client):
    from ptogpu.backend import backend_available
    if backend_available("cupy")[0]:
        pytest.skip("this machine's workers have cupy")
    spec = CampaignSpec.of(FuzzConfig(rows=4, cols=8), "a5@cupy", "a2a3@cupy", 1000)
    with pytest.raises(BackendUnavailable, match=r"on worker tcp://.*cupy.*not available"):
        run_sharded(spec, 2, cluster.executor(client))


def dies_once(spec: dict, marker: str) -> dict:
    """A shard task whose first attempt kills its worker process (a lost machine)."""
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return run_shard(spec)
    os.close(fd)
    os._exit(1)


def test_a_shard_whose_worker_dies_is_retried_and_nothing_is_lost(client, tmp_path):
    import functools
    marker = str(tmp_path / "died")
    spec = CampaignSpec.of(FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", 9000, seed=7)
    task = functools.partial(dies_once, marker=marker)
    got = run_sharded(spec, 3, cluster.executor(client), task=task)
    assert os.path.exists(marker)                  # one worker did die
    assert same(got.to_json(), spec.run().to_json()) and len(got.workers) == 3
    client.wait_for_workers(2, timeout=30)         # the nanny restarted it


def interrupts(done, total):
    raise KeyboardInterrupt


def test_ctrl_c_cancels_the_shards_still_queued(client):
    spec = CampaignSpec.of(FuzzConfig(rows=4, cols=8, table_size=100), "cpu", "a5", 400_000, seed=2)
    with pytest.raises(KeyboardInterrupt):
        run_sharded(spec, 40, cluster.executor(client), progress=interrupts)
    t0 = time.time()
    while time.time() - t0 < 20 and sum(len(v) for v in client.processing().values()):
        time.sleep(0.1)
    assert not sum(len(v) for v in client.processing().values()), "shards still running after Ctrl-C"


@pytest.mark.parametrize("address, msg", [("tcp://127.0.0.1:9", "cannot connect within 1 s"),
                                          ("foo", "expected a scheduler address"),
                                          ("local:0", "1..256 workers")])
def test_bad_cluster_addresses_are_one_clear_error_and_no_hang(address, msg, monkeypatch):
    monkeypatch.setenv("PTOGPU_DASK_TIMEOUT", "1")
    t0 = time.time()
    with pytest.raises(ClusterError, match=msg):
        with cluster.connect(address):
            pass
    assert time.time() - t0 < 10


def _cli(*args, env=None):
    e = dict(os.environ, PYTHONPATH=ROOT, **(env or {}))
    return subprocess.run([sys.executable, "-m", "ptogpu", *args], capture_output=True, text=True,
                          timeout=180, env=e)


def test_the_cli_runs_shards_on_a_local_cluster_and_reports_the_same_tiles():
    args = ["fuzz", "--pair", "cpu:a5", "--shape", "4x8", "--table-size", "100", "-n", "30000", "--quiet"]
    direct = _cli(*args)
    on = _cli(*args, "--dask", "local:2", "--shards", "3")
    assert on.returncode == direct.returncode == 0, on.stderr
    body = lambda out: [ln for ln in out.splitlines() if "tiles in" not in ln and "shards:" not in ln
                        and not ln.startswith("1 campaign")]
    assert body(on.stdout) == body(direct.stdout)
    assert "shards: 3 on 2 worker(s)" in on.stdout


def test_cli_shard_runs_merge_into_the_one_run_report(tmp_path):
    args = ["fuzz", "--pair", "cpu:a5", "--shape", "4x8", "--table-size", "100", "-n", "5000", "--quiet"]
    files = []
    for i in range(3):
        r = _cli(*args, "--shard", f"{i}/3", "--json")
        assert r.returncode == 0, r.stderr
        files.append(tmp_path / f"s{i}.json")
        files[-1].write_text(r.stdout)
    merged = _cli("fuzz", "--merge", *map(str, files), "--json")
    direct = _cli(*args, "--json")
    import json
    m, d = json.loads(merged.stdout)["campaigns"][0], json.loads(direct.stdout)["campaigns"][0]
    assert same(m, d) and m["divergent"] > 0
    lacking = _cli("fuzz", "--merge", str(files[0]), str(files[2]))
    assert lacking.returncode == 2 and len(lacking.stderr.strip().splitlines()) == 1
    assert f"missing shard 1/3 (instances {5000 // 3:,} .. {2 * 5000 // 3 - 1:,})" in lacking.stderr


@pytest.mark.parametrize("extra, msg", [(["--shard", "3/2"], "i must be 0..1"),
                                        (["--shard=-1/4"], "i must be 0..3"),
                                        (["--shard", "-1/4"], "i must be 0..3"),
                                        (["--dask", "tcp://127.0.0.1:9"], "cannot connect"),
                                        (["--dask", "local:2", "--shard", "0/2"], "choose one"),
                                        (["--shards", "4"], "goes with --dask"),
                                        (["--dask", "local:2", "--backend", "bogus"], "unknown backend"),
                                        (["--dask", ""], "expected a scheduler address")])
def test_cli_bad_shard_and_cluster_input_is_one_line_exit_2(extra, msg):
    r = _cli("fuzz", "--pair", "cpu:a5", "-n", "100", *extra, env={"PTOGPU_DASK_TIMEOUT": "1"})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and msg in r.stderr, r.stderr


def test_the_cli_sweeps_on_a_local_cluster_and_by_shards(tmp_path):
    base = ["simt", "sweep", "--mode", "elem", "--rows", "1:30", "--cols", "1:30", "--top", "0"]
    direct = _cli(*base, "--csv", str(tmp_path / "all.csv"))
    on = _cli(*base, "--dask", "local:2", "--shards", "3", "--csv", str(tmp_path / "dask.csv"))
    assert direct.returncode == on.returncode == 0, on.stderr
    assert "3 shard(s) on Dask tcp://" in on.stdout
    whole = (tmp_path / "all.csv").read_text()
    assert (tmp_path / "dask.csv").read_text() == whole
    rows = []
    for i in range(4):
        r = _cli(*base, "--shard", f"{i}/4", "--csv", str(tmp_path / f"s{i}.csv"))
        assert r.returncode == 0, r.stderr
        rows += (tmp_path / f"s{i}.csv").read_text().splitlines()[1:]
    assert rows == whole.splitlines()[1:]


def test_campaign_and_batch_chunks_run_on_the_dask_executor_as_on_the_local_pool(client):
    """One code path: the chunks of a NumPy campaign, or of a batch, on Client.get_executor()."""
    from ptogpu.execution.batch import run_batch
    from ptogpu.fuzz.compare import campaign
    ex = cluster.executor(client)
    cfg = FuzzConfig(rows=4, cols=8, table_size=100)
    here = campaign(cfg, "cpu@numpy", "a5@numpy", 6000, chunk=500, shrink=False)
    there = campaign(cfg, "cpu@numpy", "a5@numpy", 6000, chunk=500, shrink=False, executor=ex)
    assert "Dask tcp://" in there.engine and there.divergent > 0
    assert same({**there.to_json(), "engine": ""}, {**here.to_json(), "engine": ""})
    b_here = run_batch(cfg, 5000, seed=3, backend="numpy", keep_outputs=False, chunk=700)
    b_there = run_batch(cfg, 5000, seed=3, backend="numpy", keep_outputs=False, chunk=700, executor=ex)
    assert (b_there.digest, b_there.n_faults) == (b_here.digest, b_here.n_faults)


def _spawned_children(pid: int) -> list[int]:
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    spawned = b"spawn_main" in f.read()
            except (OSError, ValueError, IndexError):
                continue
            if parent == pid and spawned:
                out.append(int(p))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to find the worker processes")
def test_ctrl_c_on_the_cli_stops_the_cluster_run_and_exits_130():
    import signal
    e = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.Popen([sys.executable, "-m", "ptogpu", "fuzz", "--pair", "cpu:a5", "-n", "1000000000",
                          "--dask", "local:2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=e)
    t0 = time.time()
    while len(_spawned_children(p.pid)) < 2 and time.time() - t0 < 60:
        time.sleep(0.2)
    time.sleep(2.5)                                   # the shards are out
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:             # leave no cluster running behind a failure
        for child in _spawned_children(p.pid):
            os.kill(child, signal.SIGKILL)
        p.kill()
        raise
    assert p.returncode == 130, err
    # in the campaign: the verdict line says where it stopped; still starting the cluster:
    # the one-line "interrupted" of ptogpu.cli
    assert "stopped after" in out or err.strip() == "ptogpu fuzz: interrupted", (out, err)
