// headway-design: perm_bf16
// summary: AVX-512: f8 decoded exactly to bf16 by two vpermi2b table lookups (high and low byte, 128 entries each) and dotted with the bf16 activations by vdpbf16ps, 64 codes per step, P_ROWS rows share each activation load; rows streamed by a persistent pool, one contiguous region per thread with stealing at the end
// requires: avx512bw avx512vbmi avx512bf16
// param P_ROWS 1 2 4 default 4
// param P_THREADS 1 2 4 default 2
// param P_CHUNK 4 8 16 32 default 8
// param P_PREFETCH 0 1 2 4 default 1
// param P_PREFETCH_TO 1 2 default 2
//
// Decode: the code's 7-bit magnitude indexes two 128-byte tables (the high and the low byte of
// its bf16 value) with vpermi2b; the sign bit is ORed into the high byte; vpunpck{l,h}bw
// interleave the bytes into bf16 words. The activations are already bf16 by the contract, so
// vdpbf16ps multiplies exactly (8-bit by 8-bit significands) and accumulates in f32. The
// interleaves work within 128-bit lanes, so the activations are stored once per call in the
// order the words come out. Without AVX-512 BW/VBMI/BF16 (the proposer never offers it there:
// `requires:`) the file still builds, with a scalar table decode.
// The decoder: hw::F8PermBf16Rows in "headway_decoders.h" (include/headway/headway_decoders.h).
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

constexpr int kCols = HW_QS;  // 4096 codes per row

struct Design : hw::F8PermBf16Rows<kCols, P_PREFETCH, P_PREFETCH_TO> {
  static constexpr int kGroupRows = P_ROWS, kChunk = P_CHUNK, kThreads = P_THREADS;
  static constexpr hw::Schedule kSchedule = hw::Schedule::kStealChunks;
};

}  // namespace

extern "C" void hw_attn_out(const hw_attn_out_args* a) { hw::attn_out_rows<Design>(a); }
