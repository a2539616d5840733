// headway-design: shift_pool
// summary: f8 decoded to f32 bits by 16-bit shifts and one AND (no tables, no converts), activations pre-permuted to match, P_ROWS rows share each activation load; rows streamed by a persistent pool (one contiguous region per thread, stealing at the end); each head's RMSNorm+RoPE runs as soon as its 256 rows are in
// subnormals: f8 codes below 2^-6 decode to f32 subnormals (the code's value times 2^-120)
// param P_ROWS 1 2 4 default 4
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 4 8 16 32 default 8
// param P_PREFETCH 0 1 2 4 default 1
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: an f8e4m3fn code s.eeee.mmm in the top byte of a 32-bit lane, shifted right
// arithmetically by 4, becomes s.ssss.eeee.mmm...; AND 0x87F00000 leaves the f32 whose exponent field
// is eeee and whose mantissa starts with mmm: the code's value times 2^-120 (subnormal codes become
// f32 subnormals, still exact; NaN codes are not decoded as NaN). One 16-bit shift serves the odd
// bytes of all words at once, the even bytes first move up by 8: 9 integer ops and 4 FMAs per 32
// codes. Lane i of decoded vector k holds code 4i+k, so the activations are stored in that order
// (times 2^32, so that products stay normal) once per call.
// The decoder: hw::F8ShiftRows in "headway_decoders.h" (include/headway/headway_decoders.h).
#include "headway_decoders.h"
#include "headway_kernel.h"
#include "headway_rows.h"

#ifndef P_ROWS
#define P_ROWS 4
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

constexpr int kCols = HW_H;               // 3840 codes per row
constexpr int kRows = HW_QS + 2 * HW_PS;  // q, k, v rows as one list of 8192
constexpr int kHeads = kRows / HW_DS;     // 32 heads of 256 rows

// xn = bf16(RMSNorm(x) * input_rms_weight), stored in the decoder's activation layout.
struct Design : hw::F8ShiftRows<kCols, P_PREFETCH, P_PREFETCH_TO> {
  static constexpr int kGroupRows = P_ROWS, kChunk = P_CHUNK, kThreads = P_THREADS;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStealChunks;
};

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) { hw::qkv_rows<Design>(a); }
