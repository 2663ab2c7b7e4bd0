// simt_trace_shim.h — record the stores of the *data* kernels, thread by thread (native only).
//
//   g++ -include simt_trace_shim.h -x c++ mgather.cu   (ptogpu/simt/shim_trace.py)
//
// Included first, instead of host_shim.h: it pulls in host_shim.h and common.cuh, then turns
// copy_elem / zero_elem (the only way a kernel stores an element) into macros that log
// (address, blockIdx.x, threadIdx.y, threadIdx.x, position in the thread's own stores) before
// calling the real function. common.cuh's include guard keeps the kernel file's own #include
// from defining them again, and a macro does not expand inside its own expansion, so the
// kernels compile unchanged and store exactly as they do in the native backend. Not part of
// the native library (only *.cu files are); the launch map tests read these logs.
#ifndef PTOGPU_SIMT_TRACE_SHIM_H
#define PTOGPU_SIMT_TRACE_SHIM_H

#include "host_shim.h"
#include "common.cuh"

struct PtoStoreRec {
    unsigned long long addr, block, warp, lane, seq;
};

static PtoStoreRec *pto_trace_buf = 0;
static long long pto_trace_cap = 0, pto_trace_n = 0;
static unsigned long long pto_trace_seq = 0;
static long long pto_trace_last = -1;

extern "C" void pto_trace_begin(PtoStoreRec *buf, long long cap) {
    pto_trace_buf = buf;
    pto_trace_cap = cap;
    pto_trace_n = 0;
    pto_trace_seq = 0;
    pto_trace_last = -1;
}

extern "C" long long pto_trace_end(void) {
    pto_trace_cap = 0;
    return pto_trace_n;
}

static inline void pto_trace_store(const u8 *d) {
    if (!pto_trace_cap) return;
    const long long me = ((long long)blockIdx.x << 32) | ((long long)threadIdx.y << 16) | threadIdx.x;
    if (me != pto_trace_last) {            // a new thread runs: its stores count from 0
        pto_trace_last = me;
        pto_trace_seq = 0;
    }
    if (pto_trace_n < pto_trace_cap) {
        PtoStoreRec &r = pto_trace_buf[pto_trace_n];
        r.addr = (unsigned long long)d;
        r.block = blockIdx.x;
        r.warp = threadIdx.y;
        r.lane = threadIdx.x;
        r.seq = pto_trace_seq;
    }
    ++pto_trace_n;
    ++pto_trace_seq;
}

#define copy_elem(d, s, n) (pto_trace_store(d), copy_elem(d, s, n))
#define zero_elem(d, n) (pto_trace_store(d), zero_elem(d, n))

#endif  // PTOGPU_SIMT_TRACE_SHIM_H
