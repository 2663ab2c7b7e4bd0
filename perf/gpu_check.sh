#!/usr/bin/env bash
# perf/gpu_check.sh — the single GPU check: installs nothing, runs the gpu-marked tests (every
# kernel on CuPy against NumPy, byte for byte), the MGATHER benchmark and the fuzz campaign
# benchmark (cupy, native and numpy side by side), and writes ONE result file. Budget: under 8
# minutes (each step has its own timeout).
#
#   bash perf/gpu_check.sh [RESULT_FILE]      (default: $OUT/gpu_check.txt, else perf/gpu_check.txt)
#
# Needs what the `test` and `gpu` extras install (pytest, cupy-cuda13x, nvidia-cuda-nvrtc,
# nvidia-ml-py) already present in the Python that `python` runs.
set -u
cd "$(dirname "$0")/.."
RESULT=${1:-${OUT:-perf}/gpu_check.txt}
mkdir -p "$(dirname "$RESULT")"
PY=${PYTHON:-python}
start=$(date +%s)
{
  echo "== gpu_check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "== nvidia-smi"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,memory.free --format=csv 2>&1 | head -5
  echo "== ptogpu info"
  timeout 60 "$PY" -m ptogpu info 2>&1
  echo "== pytest -m gpu (rc below)"
  timeout 170 "$PY" -m pytest -q -m gpu -rs -p no:cacheprovider tests/ 2>&1 | tail -60
  echo "pytest rc=${PIPESTATUS[0]}"
  echo "== bench (JSON lines)"
  timeout 90 "$PY" perf/bench_mgather.py --backends cupy,native,numpy --slow-tiles 300 2>&1
  echo "bench rc=$?"
  echo "== fuzz campaign bench (JSON lines; target: cupy >= 1e8 tiles/s)"
  timeout 150 "$PY" perf/bench_fuzz.py --backends cupy,native,numpy --n 100000000 --numpy-n 1000000 2>&1
  echo "bench_fuzz rc=$?"
  echo "== elapsed $(( $(date +%s) - start )) s"
} > "$RESULT" 2>&1
echo "wrote $RESULT"
