"""Counter generators: NumPy and C++ (cuda_src/counter_rng.cuh) agree bit for bit; a tile is a
function of (seed, instance) alone; each kind stays in its range."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ptogpu.execution.rng import EXTREMES, KINDS, Generator, generate


def _native():
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    f = native_backend.load().pto_fuzz_gen
    f.argtypes = [ctypes.c_uint64, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_longlong,
                  ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    f.restype = None
    return f


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("seed,cap", [(0, 4096), (12345, 7), (2**64 - 1, 1), (99, 2**32 - 1)])
def test_numpy_and_cpp_agree_bit_for_bit(kind, seed, cap):
    f = _native()
    n_inst, n_elem, inst0 = 37, 61, 10**12 + 5
    out = np.zeros((n_inst, n_elem), np.int64)
    out2 = np.zeros_like(out)
    out3 = np.zeros(out.shape, np.uint32)
    f(seed, KINDS[kind], cap, inst0, n_inst, n_elem, out.ctypes.data, out2.ctypes.data, out3.ctypes.data)
    want = generate(kind, seed, np.arange(inst0, inst0 + n_inst), n_elem, cap)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(out2, want)        # the branch-free form
    np.testing.assert_array_equal(out3, want.astype(np.uint32))   # the 32-bit lanes of the host loops


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("seed,cap", [(0, 4096), (12345, 7), (2**64 - 1, 1), (99, 2**32 - 1), (5, 0)])
def test_the_native_generator_of_batches_gives_the_numpy_values(kind, seed, cap):
    _native()
    g = Generator(kind, seed)
    inst = np.r_[np.arange(10**12, 10**12 + 300), [0, 7, 2**40]]    # threads split big ones
    for n_elem in (1, 61, 256):
        np.testing.assert_array_equal(g.native(inst, n_elem, cap), generate(kind, seed, inst, n_elem, cap))
    assert Generator(lambda i, n, c: np.zeros((len(i), n)), 0).native(inst, 4, 9) is None


def test_tile_depends_only_on_seed_and_instance():
    g = Generator("mixed", seed=7)
    whole = g(np.arange(1000), 16, 4096)
    parts = np.concatenate([g(np.arange(a, a + 137), 16, 4096) for a in range(0, 1000, 137)])[:1000]
    np.testing.assert_array_equal(whole, parts)
    np.testing.assert_array_equal(g(np.array([555]), 16, 4096)[0], whole[555])
    assert not np.array_equal(Generator("mixed", seed=8)(np.arange(10), 16, 4096), whole[:10])


def test_kinds_stay_in_their_ranges():
    inst, cap = np.arange(200), 1000
    u = generate("uniform", 1, inst, 64, cap)
    assert u.min() >= 0 and u.max() < cap and len(np.unique(u)) > 900
    o = generate("oob", 1, inst, 64, cap)
    assert o.min() >= cap and o.max() < 2 * cap
    n = generate("negative", 1, inst, 64, cap)
    assert n.min() >= -cap and n.max() <= -1
    assert set(np.unique(generate("extreme", 1, inst, 64, cap))) == set(EXTREMES.tolist())
    assert set(np.unique(generate("boundary", 1, inst, 64, cap))) == {cap - 1, cap, cap + 1}
    d = generate("dup", 1, inst, 64, cap)
    assert max(len(np.unique(row)) for row in d) <= 4
    m = generate("mixed", 1, inst, 64, cap)
    assert (m < 0).any() and (m >= cap).any() and ((m >= 0) & (m < cap)).mean() > 0.5


def test_user_callables_and_arrays():
    g = Generator(lambda inst, n, cap: (inst[:, None] + np.arange(n)) % cap)
    np.testing.assert_array_equal(g(np.array([3]), 4, 5)[0], [3, 4, 0, 1])
    tiles = np.array([[1, 2], [3, 4]])
    np.testing.assert_array_equal(Generator(tiles)(np.array([0, 1, 2]), 2, 9), [[1, 2], [3, 4], [1, 2]])
    with pytest.raises(ValueError):
        Generator("nope")


@pytest.mark.parametrize("kind", list(KINDS))
def test_lo32_lanes_are_the_low_bits_of_the_values(kind):
    """Generator.lo32 (32-bit lanes, what the campaign feeds 32-bit index types) is the
    wrapping cast of the int64 values, whatever the capacity."""
    for cap in (0, 1, 2, 7, 100, 4096, 65535, 65536, 65537, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**33 + 5):
        g = Generator(kind, 3)
        inst = np.arange(50, 250)
        np.testing.assert_array_equal(g.lo32(inst, 37, cap), g(inst, 37, cap).astype(np.uint32))
    assert Generator(lambda i, n, c: np.zeros((len(i), n))).lo32(np.arange(3), 4, 8) is None


def test_mulhi32_is_exact():
    from ptogpu.execution.rng import _mulhi32
    lo = np.array([0, 1, 2**16 - 1, 2**16, 2**31, 2**32 - 1, 123456789, 0xDEADBEEF], np.uint32)
    for cap in list(range(70)) + [2**16 - 1, 2**16, 2**16 + 1, 2**31, 2**32 - 1, 4096, 97]:
        want = ((lo.astype(np.uint64) * np.uint64(cap)) >> np.uint64(32)).astype(np.uint32)
        np.testing.assert_array_equal(_mulhi32(lo, cap), want)


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_executing_engines_word_loops_give_the_numpy_values(kind):
    """The words the executing engine generates (fz_words: per-kind vectorised loops, the
    mixed one written in AVX-512 where the build has it) are the low 32 bits of NumPy's
    values, for tile lengths with and without a partial vector and any capacity."""
    _native()
    from ptogpu.backend import native_backend
    f = native_backend.load("fuzz").pto_fuzz_words
    f.argtypes = [ctypes.c_uint64, ctypes.c_int, ctypes.c_uint64, ctypes.c_longlong, ctypes.c_uint64,
                  ctypes.c_longlong, ctypes.c_void_p]
    f.restype = None
    for seed in (0, 99, 2**64 - 1):
        for cap in (0, 1, 7, 128, 4096, 65537, 2**31 - 1, 2**32 - 1):
            for n_elem in (1, 15, 16, 17, 61, 256):
                inst0, n = 10**9 + seed % 1000, 23
                out = np.zeros((n, n_elem), np.uint32)
                f(seed, KINDS[kind], cap, n_elem, inst0, n, out.ctypes.data)
                want = generate(kind, seed, np.arange(inst0, inst0 + n), n_elem, cap).astype(np.uint32)
                np.testing.assert_array_equal(out, want, err_msg=f"seed {seed} cap {cap} n {n_elem}")


def test_the_word_loops_of_the_portable_build_give_the_numpy_values():
    """The portable build (PTOGPU_NATIVE_MARCH=0: no AVX-512, so the mixed kind's loop is the
    compiler-vectorised rng_value32 rather than the intrinsics) gives the same words."""
    import os
    import subprocess
    import sys
    _native()
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PTOGPU_NATIVE_MARCH="0")
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "test_fuzz_rng.py",
                          "-k", "executing_engines_word_loops"],
                         cwd=here, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "8 passed" in res.stdout


_WORDS_MAIN = r"""
#include "host_shim.h"
#include "counter_rng.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
static std::vector<unsigned long long> list(const char *s) {   // "a,b,c"
    std::vector<unsigned long long> v;
    for (char *e; *s; s = *e ? e + 1 : e) v.push_back(strtoull(s, &e, 10));
    return v;
}
int main(int argc, char **argv) {   // seed inst0 n kinds caps lengths: the words, binary, to stdout
    const u64 seed = strtoull(argv[1], 0, 10), inst0 = strtoull(argv[2], 0, 10);
    const u32 n = (u32)atoi(argv[3]);
    std::vector<u32> w(4096);
    for (u64 kind : list(argv[4]))
        for (u64 cap : list(argv[5]))
            for (u64 n_elem : list(argv[6]))
                for (u32 t = 0; t < n; ++t) {
                    const u64 key = rng_key(seed, inst0 + t);
                    i64 d[4];
                    rng_dup_values(key, cap, d);
                    const u32 dup[4] = {(u32)d[0], (u32)d[1], (u32)d[2], (u32)d[3]};
                    rng_words32((int)kind, (u32)key, (u32)(key >> 32), dup, (u32)cap, (u32)n_elem, w.data());
                    fwrite(w.data(), 4, n_elem, stdout);
                }
}
"""


def test_the_avx2_word_loops_give_the_numpy_values(tmp_path):
    """Built for AVX2 without AVX-512 (-march=x86-64-v3: the mixed kind's 8-lane intrinsics),
    the word loops give NumPy's words for every kind; skipped where the CPU or the compiler
    cannot run such a build."""
    import subprocess
    from pathlib import Path
    from ptogpu.backend import native_backend
    cxx = native_backend.compiler()
    if cxx is None:
        pytest.skip("no C++ compiler")
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    if " avx2" not in flags or " fma" not in flags or " bmi2" not in flags:
        pytest.skip("this CPU cannot run an x86-64-v3 build")
    src = Path(__file__).resolve().parents[1] / "cuda_src"
    (tmp_path / "words.cpp").write_text(_WORDS_MAIN)
    exe = tmp_path / "words"
    r = subprocess.run([cxx, "-O2", "-march=x86-64-v3", "-mno-avx512f", "-std=c++17", "-I", str(src),
                        str(tmp_path / "words.cpp"), "-o", str(exe)], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        pytest.skip(f"no x86-64-v3 build here: {r.stderr[-300:]}")
    kinds, caps, lengths, n = list(KINDS), (0, 7, 4096, 65537, 2**32 - 1), (5, 16, 61, 256), 17
    out = subprocess.run([str(exe), "99", "1000", str(n), ",".join(str(KINDS[k]) for k in kinds),
                          ",".join(map(str, caps)), ",".join(map(str, lengths))], capture_output=True, timeout=120).stdout
    got = np.frombuffer(out, np.uint32)
    at = 0
    for kind in kinds:
        for cap in caps:
            for n_elem in lengths:
                want = generate(kind, 99, np.arange(1000, 1000 + n), n_elem, cap).astype(np.uint32).reshape(-1)
                np.testing.assert_array_equal(got[at:at + want.size], want, err_msg=f"{kind} cap {cap} n {n_elem}")
                at += want.size
    assert at == got.size
