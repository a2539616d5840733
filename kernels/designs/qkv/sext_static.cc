// headway-design: sext_static
// summary: f8 widened in natural order by sign-extending byte loads (vpmovsxbd) plus one shift and one AND to f32 bits, no activation permutation; static head-aligned split (no atomics), each thread normalizes x itself and finishes its own heads; optional software prefetch
// subnormals: f8 codes below 2^-6 decode to f32 subnormals (the code's value times 2^-120)
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 4 default 2
// param P_PREFETCH 0 1 2 4 default 1
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: vpmovsxbd turns 8 codes into 8 sign-extended int32; shifting left by 20 puts the
// code's exponent and mantissa at bits 26..20 with copies of the sign above, and AND 0x87F00000 leaves
// the f32 equal to the code's value times 2^-120 (subnormal codes stay exact as f32 subnormals). The
// codes keep their natural order, so the activations are used as they come (times 2^32).
// The decoder: hw::F8SextRows in "headway_decoders.h" (include/headway/headway_decoders.h).
#include "headway_decoders.h"
#include "headway_kernel.h"
#include "headway_rows.h"

#ifndef P_ROWS
#define P_ROWS 2
#endif
#ifndef P_THREADS
#define P_THREADS 2
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 1
#endif
#ifndef P_PREFETCH_TO
#define P_PREFETCH_TO 2
#endif

namespace {

constexpr int kCols = HW_H;               // 3840 codes per row
constexpr int kRows = HW_QS + 2 * HW_PS;  // q, k, v rows as one list of 8192
constexpr int kHeads = kRows / HW_DS;     // 32 heads of 256 rows

// xn = bf16(RMSNorm(x) * input_rms_weight), stored in the decoder's activation layout.
struct Design : hw::F8SextRows<kCols, P_PREFETCH, P_PREFETCH_TO> {
  static constexpr int kGroupRows = P_ROWS, kThreads = P_THREADS;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStaticParts;
};

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) { hw::qkv_rows<Design>(a); }
