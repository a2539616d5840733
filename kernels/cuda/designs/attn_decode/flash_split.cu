// headway-design: flash_split
// summary: flash-decoding in two launches: P_SPLITS splits of the valid slots per KV group, one block a (group, split) item with P_WARPS warps folding P_ROWS rows a step into online-softmax states for both query heads of the group (each K and V row read once, 16 bytes a lane), the warps merged in shared memory into the split's partial; the second launch merges each head's partials by the rescale rule
// param P_SPLITS 8 16 32 default 16
// param P_WARPS 4 8 default 8
// param P_ROWS 2 4 default 4
//
// The machinery is include/headway/headway_cuda_attn.h (shared with attn_decode_f8's design):
// this file gives the rows (bf16 K and V, lane l holding elements [8l, 8l + 8) of a row, scales
// 1) and the plan. Grid: 8 P_SPLITS blocks, one item each at N = 8 (132 SMs: one wave up to
// P_SPLITS 16); other N take items in turn. Scratch: the partials of 16 heads of 256 elements.
// Assumes G <= 2, D <= 256 and a multiple of 8, N G <= 16 (the spec's shape sets).
#include "headway_cuda_attn.h"

#ifndef P_SPLITS
#define P_SPLITS 16
#endif
#ifndef P_WARPS
#define P_WARPS 8
#endif
#ifndef P_ROWS
#define P_ROWS 4
#endif

#define NT (32 * P_WARPS)

typedef struct hw_attn_decode_args {
  const hw_bf16* q;        // [N][G][D]
  const int32_t* valid;    // slots 0 .. valid-1 hold tokens
  const hw_bf16* k_cache;  // [T][N][D]
  const hw_bf16* v_cache;  // [T][N][D]
  hw_bf16* attn;           // [N][G][D]
  const int64_t* dims;     // T, N, G, D, VMIN
} hw_attn_decode_args;

// Group n's rows: row t at k + t * stride.
struct bf16_rows {
  const hw_bf16 *k, *v;
  int stride, d;
  __device__ void load(int t, int lane, float (&k8)[HW_ATTN_E], float (&v8)[HW_ATTN_E], float& ks,
                       float& vs) const {
    ks = 1.0f;
    vs = 1.0f;
    if (HW_ATTN_E * lane >= d) {
      for (int e = 0; e < HW_ATTN_E; ++e) k8[e] = v8[e] = 0.0f;
      return;
    }
    const size_t at = (size_t)t * stride + HW_ATTN_E * lane;
    hw_bf16x8_to_float(__ldg((const uint4*)(k + at)), k8);
    hw_bf16x8_to_float(__ldg((const uint4*)(v + at)), v8);
  }
};

extern "C" __global__ void __launch_bounds__(NT, 1)
    attn_partials(hw_attn_decode_args a, unsigned char* scratch) {
  __shared__ float sm[P_WARPS * (2 + 256) * HW_ATTN_MAX_G];
  const hw_attn_dims dims = hw_attn_dims_of(a.dims);
  const auto rows = [&](int n) {
    return bf16_rows{a.k_cache + n * dims.d, a.v_cache + n * dims.d, dims.n * dims.d, dims.d};
  };
  hw_attn_partials_pass<P_WARPS, P_ROWS>(a.q, *a.valid, dims, P_SPLITS, scratch, rows, sm);
}

extern "C" __global__ void attn_merge(hw_attn_decode_args a, unsigned char* scratch) {
  const hw_attn_dims dims = hw_attn_dims_of(a.dims);
  hw_attn_merge(hw_attn_partials_at(scratch, dims.n * dims.g, P_SPLITS), a.attn, P_SPLITS, dims);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {
    {{"attn_partials", 8 * P_SPLITS, NT, 0}, {"attn_merge", 16, 256, 0}},
    hw_attn_scratch_bytes(16, 256, P_SPLITS)};
