// headway-design: f16cvt
// summary: f8 rebuilt as f16 bit patterns by 16-bit shifts and one AND, widened exactly by the F16C converter (vcvtph2ps; no f32 subnormals); P_ROWS rows share each activation load; persistent pool with per-thread regions and stealing
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 4 8 16 32 default 8
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
#ifndef P_CHUNK
#define P_CHUNK 8
#endif
#ifndef P_PREFETCH
#define P_PREFETCH 1
#endif
#ifndef P_PREFETCH_TO
#define P_PREFETCH_TO 2
#endif

namespace {

constexpr int kCols = HW_QS;  // 4096 codes per row

struct Design : hw::F8F16cRows<kCols, P_PREFETCH, P_PREFETCH_TO> {
  static constexpr int kGroupRows = P_ROWS, kChunk = P_CHUNK, kThreads = P_THREADS;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStealChunks;
};

}  // namespace

extern "C" void hw_attn_out(const hw_attn_out_args* a) { hw::attn_out_rows<Design>(a); }
