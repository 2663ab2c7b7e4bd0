"""``ptogpu info`` works without a GPU, and reports a GPU through nvidia-ml-py when one answers
(here a stand-in ``pynvml`` module plays an H200)."""
from __future__ import annotations

import json
import sys
import types

from ptogpu.backend import info
from ptogpu.cli import main


def test_info_runs_without_gpu(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("backend (auto): ")
    for word in ("why:", "native:", "cache:", "cupy:", "gpu (nvidia-ml-py):", "batch:"):
        assert word in out, word


def test_info_json_has_every_field(capsys):
    assert main(["info", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["auto_backend"] in ("numpy", "native", "cupy")
    assert d["auto_reason"].startswith("auto:")
    assert {"compiler", "cache_dir", "built", "status"} <= set(d["native"])
    assert "cupy" in d["cupy"] and "status" in d["gpu"]
    assert d["free_host_memory"] > 0
    if d["auto_backend"] != "numpy":
        assert d["batch"]["instances_per_launch"] >= 1


def test_info_reads_gpu_through_nvml(monkeypatch, capsys):
    fake = types.SimpleNamespace(
        nvmlInit=lambda: None, nvmlShutdown=lambda: None,
        nvmlSystemGetDriverVersion=lambda: b"570.1",
        nvmlDeviceGetCount=lambda: 1, nvmlDeviceGetHandleByIndex=lambda i: i,
        nvmlDeviceGetName=lambda h: "NVIDIA H200",
        nvmlDeviceGetCudaComputeCapability=lambda h: (9, 0),
        nvmlDeviceGetMemoryInfo=lambda h: types.SimpleNamespace(total=141 << 30, free=140 << 30))
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    g = info._gpu()
    assert g["driver"] == "570.1" and g["gpus"][0]["compute_capability"] == "9.0"
    from ptogpu.backend import launch
    assert launch.free_device_bytes() == 140 << 30
    # cupy batches are sized from free device memory
    n = launch.batch_size(1 << 20, "cupy", fraction=0.5, cap=1 << 30)
    assert n == (140 << 30) // 2 // (1 << 20)
    assert main(["info"]) == 0
    assert "NVIDIA H200, compute capability 9.0, memory 140.0 GiB free of 141.0 GiB" in capsys.readouterr().out
