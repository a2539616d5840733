// headway-design: f16cvt_heads
// summary: f8 rebuilt as f16 bit patterns by 16-bit shifts and one AND, widened exactly by the F16C converter (vcvtph2ps; no f32 subnormals); threads take whole heads from one atomic counter and finish each head (RMSNorm + RoPE) right after its 256 rows
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 4 default 2
// param P_PREFETCH 0 1 2 4 default 1
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: for a 16-bit word holding codes c_even (low byte) and c_odd (high byte), an arithmetic
// shift right by 1 and AND 0xBF80 leave sign | (c_odd & 0x7f) << 7: the f16 of c_odd's value times
// 2^-8; the even byte first moves up by 8. vcvtph2ps widens 8 f16 at a time, exactly, subnormal codes
// included, so no f32 subnormal ever reaches an FMA. Per 32 codes: 5 integer ops, 2 extracts, 4
// converts, 4 FMAs; the activations are stored once per call in the matching even/odd order.
// The decoder: hw::F8F16cRows in "headway_decoders.h" (include/headway/headway_decoders.h).
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
struct Design : hw::F8F16cRows<kCols, P_PREFETCH, P_PREFETCH_TO> {
  static constexpr int kGroupRows = P_ROWS, kThreads = P_THREADS;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kSharedHeads;
};

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) { hw::qkv_rows<Design>(a); }
