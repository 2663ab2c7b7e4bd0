#!/usr/bin/env bash
# perf/gpu_check.sh — the single GPU check, for a bare device machine: runs the gpu-marked tests
# (every kernel on CuPy against NumPy, byte for byte), the MGATHER benchmark and the fuzz
# campaign benchmark (cupy, native and numpy side by side), and writes ONE result file.
# Budget: under 8 minutes in all (each step has its own timeout; the correctness steps first).
#
#   bash perf/gpu_check.sh [RESULT_FILE]      (default: $OUT/gpu_check.txt, else perf/gpu_check.txt)
#
# The device machine reaches no package registry. It has Python with cupy (cuda13x), numpy,
# ml-dtypes, pytest, tqdm and nvidia-ml-py; ptogpu runs from this source tree (PYTHONPATH, no
# install), and what else it needs (loky and cloudpickle, for the worker pool) comes as wheels
# in perf/wheels/, unpacked into a scratch folder with pip --no-index --no-deps. Only the test
# files holding gpu-marked tests are collected (the others may import test-only packages the
# device lacks, such as hypothesis).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
RESULT=${1:-${OUT:-perf}/gpu_check.txt}
mkdir -p "$(dirname "$RESULT")"
PY=${PYTHON:-python}
start=$(date +%s)
SITE=$(mktemp -d)
trap 'rm -rf "$SITE"' EXIT
{
  echo "== gpu_check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "== python: $("$PY" -c 'import sys; print(sys.version.split()[0])' 2>&1)"
  echo "== wheels (perf/wheels -> $SITE)"
  if ls perf/wheels/*.whl >/dev/null 2>&1; then
    timeout 60 "$PY" -m pip install -q --no-index --no-deps --target "$SITE" perf/wheels/*.whl 2>&1 | tail -3
    echo "pip rc=${PIPESTATUS[0]}"
  else
    echo "perf/wheels holds no wheels: the numpy worker pool may be unavailable"
  fi
  export PYTHONPATH="$ROOT:$SITE${PYTHONPATH:+:$PYTHONPATH}"
  "$PY" -c 'import ptogpu, loky; print("ptogpu", ptogpu.__version__, "from", ptogpu.__file__)' 2>&1
  echo "== nvidia-smi"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,memory.free --format=csv 2>&1 | head -5
  echo "== ptogpu info"
  timeout 40 "$PY" -m ptogpu info 2>&1
  echo "== pytest -m gpu (rc below)"
  # gpu-marked tests, and the kernel tests whose kernel_backend fixture (tests/conftest.py) has a
  # gpu-marked cupy parameter
  GPU_TESTS=$(grep -lE "^ *(@pytest\.mark\.gpu|pytestmark = pytest\.mark\.gpu)|kernel_backend\)" tests/test_*.py | tr '\n' ' ')
  echo "files: $GPU_TESTS"
  # shellcheck disable=SC2086
  timeout 220 "$PY" -m pytest -q -m gpu -rfs -p no:cacheprovider $GPU_TESTS 2>&1 | tail -80
  echo "pytest rc=${PIPESTATUS[0]}"
  echo "== the known suite on cupy (every campaign's verdict and kernel runs against its record)"
  timeout 100 "$PY" -m ptogpu fuzz --suite known --backend cupy --quiet 2>&1 \
    | grep -E "REGRESSION|unexplained|disagree|Error|Traceback|campaign\(s\)" | head -40
  echo "suite cupy rc=${PIPESTATUS[0]}"
  echo "== bench (JSON lines)"
  timeout 50 "$PY" perf/bench_mgather.py --backends cupy,native,numpy --slow-tiles 300 2>&1
  echo "bench rc=$?"
  echo "== fuzz campaign bench, cupy (JSON lines; target: >= 1e9 tiles/s)"
  timeout 60 "$PY" perf/bench_fuzz.py --backends cupy --n 100000000 --repeat 1 2>&1
  echo "bench_fuzz cupy rc=$?"
  echo "== fuzz campaign bench, native and numpy alongside (JSON lines)"
  timeout 50 "$PY" perf/bench_fuzz.py --backends native,numpy --n 4000000 --numpy-n 200000 --exec-n 1000000 --repeat 1 2>&1
  echo "bench_fuzz native rc=$?"
  echo "== cores of N instances, cupy (JSON lines: one launch over N blocks; bank copies in and out)"
  timeout 30 "$PY" perf/bench_batch_core.py --backends cupy --n 65536 --chunk 16384 2>&1
  echo "bench_batch_core cupy rc=$?"
  echo "== elapsed $(( $(date +%s) - start )) s"
} > "$RESULT" 2>&1
echo "wrote $RESULT"
