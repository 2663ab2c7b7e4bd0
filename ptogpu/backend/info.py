"""``ptogpu info``: which backend ``auto`` picks and why, the native build, CuPy/NVRTC, the GPU
(through nvidia-ml-py when installed) and the batch size large runs would use."""
from __future__ import annotations

import json
import os
import platform

from . import resolve_backend

# Bytes per instance of the reference batch (MGATHER Elem 16x16 float32 + its index tile).
REFERENCE_INSTANCE_BYTES = 16 * 16 * 4 * 2 + 64


def _native() -> dict:
    from . import native_backend as nb
    d = {"compiler": nb.compiler(), "cache_dir": str(nb.cache_dir()), "flags": " ".join(nb.base_flags())}
    if d["compiler"]:
        d["compiler_version"] = nb.compiler_id(d["compiler"])
    ok, why = nb.available()
    d["built"] = ok
    d["status"] = why
    if ok:
        d["library"] = str(nb.library_path())
        d["families_loaded"] = nb.loaded_families()
    return d


def _cupy() -> dict:
    d: dict = {}
    try:
        import cupy
        d["cupy"] = cupy.__version__
    except Exception as e:
        d["cupy"] = None
        d["cupy_error"] = f"{type(e).__name__}: {e}"
        return d
    try:
        from cupy.cuda import nvrtc
        d["nvrtc"] = ".".join(map(str, nvrtc.getVersion()))
    except Exception as e:
        d["nvrtc"] = None
        d["nvrtc_error"] = f"{type(e).__name__}: {e}"
    from . import cupy_backend
    ok, why = cupy_backend.available()
    d["device_answers"] = ok
    d["status"] = why
    return d


def _gpu() -> dict:
    """GPU facts from nvidia-ml-py (the ``pynvml`` module); optional."""
    try:
        import pynvml
    except Exception:
        return {"nvml": None, "status": "nvidia-ml-py not installed (pip install nvidia-ml-py)"}
    try:
        pynvml.nvmlInit()
    except Exception as e:
        return {"nvml": "installed", "status": f"no NVIDIA driver answers: {type(e).__name__}: {e}"}
    try:
        out = {"nvml": "ok", "driver": _s(pynvml.nvmlSystemGetDriverVersion()), "gpus": []}
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            mem = pynvml.nvmlDeviceGetMemoryInfo(h)
            cc = pynvml.nvmlDeviceGetCudaComputeCapability(h)
            out["gpus"].append({"index": i, "name": _s(pynvml.nvmlDeviceGetName(h)),
                                "compute_capability": f"{cc[0]}.{cc[1]}",
                                "memory_total": int(mem.total), "memory_free": int(mem.free)})
        out["status"] = f"{len(out['gpus'])} GPU(s)"
        return out
    except Exception as e:
        return {"nvml": "error", "status": f"{type(e).__name__}: {e}"}
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass


def _s(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def collect() -> dict:
    from .launch import batch_size, free_device_bytes, free_host_bytes
    name, why = resolve_backend("auto")
    d = {"auto_backend": name, "auto_reason": why, "python": platform.python_version(),
         "cpus": os.cpu_count(), "native": _native(), "cupy": _cupy(), "gpu": _gpu(),
         "free_host_memory": free_host_bytes(), "free_device_memory": free_device_bytes()}
    d["batch"] = {"backend": name, "instance_bytes": REFERENCE_INSTANCE_BYTES,
                  "what": "MGATHER Elem 16x16 float32 instances per launch",
                  "instances_per_launch": batch_size(REFERENCE_INSTANCE_BYTES, name)
                  if name != "numpy" else None}
    d["instructions"] = instructions()
    return d


def instructions() -> dict:
    """Per registered instruction (``ptogpu.isa``): its calls, the kernel source each kernel
    backend runs it with, and every role it declines with the reason."""
    from .. import isa
    out = {}
    for i in isa.INSTRUCTIONS:
        out[i.name] = {"calls": list(i.calls),
                       "kernels": {b: (i.hooks[b] if i.fills(b) else None) for b in ("native", "cupy")},
                       "declined": i.declined()}
    return out


def _gib(n) -> str:
    return "?" if n is None else f"{n / 2 ** 30:.1f} GiB"


def cmd_info(args) -> int:
    d = collect()
    if args.json:
        print(json.dumps({"schema": "ptogpu.info/1", **d}, indent=1))
        return 0
    n, c, g = d["native"], d["cupy"], d["gpu"]
    print(f"backend (auto): {d['auto_backend']}")
    print(f"  why: {d['auto_reason']}")
    print(f"native: {'built' if n['built'] else 'unavailable'}; compiler {n.get('compiler_version') or n['compiler']}")
    print(f"  {n['status'].splitlines()[0] if n['status'] else ''}")
    print(f"  cache: {n['cache_dir']}" + (f"  library: {n['library']}" if n.get("library") else ""))
    print(f"cupy: {c.get('cupy') or 'not installed'}; NVRTC: {c.get('nvrtc') or 'unavailable'}; "
          f"device: {c.get('status', c.get('cupy_error', ''))}")
    print(f"gpu (nvidia-ml-py): {g['status']}")
    if g.get("driver"):
        print(f"  driver {g['driver']}")
    for x in g.get("gpus", []):
        print(f"  [{x['index']}] {x['name']}, compute capability {x['compute_capability']}, "
              f"memory {_gib(x['memory_free'])} free of {_gib(x['memory_total'])}")
    print(f"host: {d['cpus']} CPU(s), {_gib(d['free_host_memory'])} free; device memory free: "
          f"{_gib(d['free_device_memory'])}")
    b = d["batch"]
    print(f"batch: {b['instances_per_launch']} {b['what']} on {b['backend']}"
          if b["instances_per_launch"] else "batch: none (no kernel backend)")
    print("kernels: " + ", ".join(f"{'/'.join(x['calls'])} ({x['kernels']['native']})"
                                  for x in d["instructions"].values() if x["kernels"]["native"]))
    for name, x in d["instructions"].items():
        for role, why in x["declined"].items():
            print(f"  {'/'.join(x['calls'])} declines {role}: {why}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("info", help="backend chosen and why, native build, CuPy/NVRTC, GPU, batch size")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(fn=cmd_info)
