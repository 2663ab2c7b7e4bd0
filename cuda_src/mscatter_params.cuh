// mscatter_params.cuh — the MSCATTER parameter block and its codes: the contract between the
// host (ptogpu/lowering/mscatter_kernels.py and ptogpu/fuzz/scatter.py read these enums from
// here), the kernels of mscatter.cu and the independent reference of ref/mscatter_ref.cuh.
#ifndef PTOGPU_MSCATTER_PARAMS_CUH
#define PTOGPU_MSCATTER_PARAMS_CUH
#include "common.cuh"

enum {
    MS_VR = 0, MS_VC, MS_MODE, MS_ATOMIC, MS_OOB, MS_BITS, MS_CAP, MS_T, MS_DT, MS_TBASE,
    MS_ST3, MS_ST4, MS_ROWDST, MS_LASTSCAN, MS_SRC, MS_IDX = MS_SRC + TD_WORDS, MS_WORDS = MS_IDX + TD_WORDS
};
enum { MSM_ROW = 0, MSM_ELEM = 1 };
enum { SOOB_UNDEFINED = 0, SOOB_SKIP = 1, SOOB_CLAMP = 2, SOOB_WRAP = 3 };
enum { AT_NONE = 0, AT_ADD = 1, AT_MAX = 2, AT_MIN = 3 };
// Element arithmetic types (what Add / Max / Min compute in).
enum { DT_I8 = 0, DT_U8, DT_I16, DT_U16, DT_I32, DT_U32, DT_I64, DT_U64, DT_F16, DT_BF16, DT_F32, DT_RAW };
// How the slot-centric kernel's threads find their winners: SCAN_REVERSE, each lane's own
// reverse scan (what the hardware runs: Θ(cap x N) index reads); SCAN_OWNER (host build only),
// one forward pass recording each slot's last writer, which is the winner every scan finds.
enum { SCAN_REVERSE = 0, SCAN_OWNER = 1 };
// Row destination: cpu u*St3 + j*St4, A2/A3 u*u32(St3) + j, A5 u32(u*VC) + j.
enum { RD_STRIDES = 0, RD_STRIDE3 = 1, RD_VALID_COLS = 2 };
// Which kernel runs a side (its write order): the scalar loop, A5's source-centric launch,
// A5's slot-centric (Conflict::Last) launch.
enum { FK_SEQ = 0, FK_SOURCE = 1, FK_LAST = 2 };

#endif  // PTOGPU_MSCATTER_PARAMS_CUH
