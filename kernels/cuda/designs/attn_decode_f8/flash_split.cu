// headway-design: flash_split
// summary: flash-decoding in two launches over the f8 cache: P_SPLITS splits of the valid slots per KV group, one block a (group, split) item with P_WARPS warps folding P_ROWS rows a step into online-softmax states for both query heads of the group (each row of codes read once, 8 bytes a lane, decoded in registers, the row's K scale applied to its dot and its V scale to its probability), the warps merged in shared memory into the split's partial; the second launch merges each head's partials by the rescale rule
// param P_SPLITS 8 16 32 default 16
// param P_WARPS 4 8 default 8
// param P_ROWS 2 4 default 4
//
// The machinery is include/headway/headway_cuda_attn.h (shared with attn_decode's design): this
// file gives the rows and the plan. Codes decoded by hw_f8x2 (the hardware e4m3x2 convert on
// sm_89+, the formula below). Grid: 8 P_SPLITS blocks, one item each at N = 8. Scratch: the
// partials of 16 heads of 256 elements. Assumes G <= 2, D <= 256 and a multiple of 8, N G <= 16.
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

typedef struct hw_attn_decode_f8_args {
  const hw_bf16* q;        // [N][G][D]
  const int32_t* valid;    // slots 0 .. valid-1 hold tokens
  const uint8_t* k_cache;  // f8e4m3 codes [T][N][D]
  const uint8_t* v_cache;  // f8e4m3 codes [T][N][D]
  const float* k_scale;    // [T][N]
  const float* v_scale;    // [T][N]
  hw_bf16* attn;           // [N][G][D]
  const int64_t* dims;     // T, N, G, D, VMIN
} hw_attn_decode_f8_args;

// The 8 codes of w (byte k of x, then of y, is element k) as f32.
static __device__ __forceinline__ void f8x8(const uint2& w, float (&out)[HW_ATTN_E]) {
  hw_f8x2(w.x, out[0], out[1]);
  hw_f8x2(w.x >> 16, out[2], out[3]);
  hw_f8x2(w.y, out[4], out[5]);
  hw_f8x2(w.y >> 16, out[6], out[7]);
}

// Group n's rows: codes of row t at k + t * stride, its scales at k_scale[t * groups].
struct f8_rows {
  const uint8_t *k, *v;
  const float *k_scale, *v_scale;
  int stride, groups, d;
  __device__ void load(int t, int lane, float (&k8)[HW_ATTN_E], float (&v8)[HW_ATTN_E], float& ks,
                       float& vs) const {
    ks = __ldg(k_scale + (size_t)t * groups);
    vs = __ldg(v_scale + (size_t)t * groups);
    if (HW_ATTN_E * lane >= d) {
      for (int e = 0; e < HW_ATTN_E; ++e) k8[e] = v8[e] = 0.0f;
      return;
    }
    const size_t at = (size_t)t * stride + HW_ATTN_E * lane;
    f8x8(__ldg((const uint2*)(k + at)), k8);
    f8x8(__ldg((const uint2*)(v + at)), v8);
  }
};

extern "C" __global__ void __launch_bounds__(NT, 1)
    attn_partials(hw_attn_decode_f8_args a, unsigned char* scratch) {
  __shared__ float sm[P_WARPS * (2 + 256) * HW_ATTN_MAX_G];
  const hw_attn_dims dims = hw_attn_dims_of(a.dims);
  const auto rows = [&](int n) {
    return f8_rows{a.k_cache + n * dims.d, a.v_cache + n * dims.d, a.k_scale + n, a.v_scale + n,
                   dims.n * dims.d, dims.n, dims.d};
  };
  hw_attn_partials_pass<P_WARPS, P_ROWS>(a.q, *a.valid, dims, P_SPLITS, scratch, rows, sm);
}

extern "C" __global__ void attn_merge(hw_attn_decode_f8_args a, unsigned char* scratch) {
  const hw_attn_dims dims = hw_attn_dims_of(a.dims);
  hw_attn_merge(hw_attn_partials_at(scratch, dims.n * dims.g, P_SPLITS), a.attn, P_SPLITS, dims);
}

extern "C" __device__ const hw_cuda_plan hw_plan = {
    {{"attn_partials", 8 * P_SPLITS, NT, 0}, {"attn_merge", 16, 256, 0}},
    hw_attn_scratch_bytes(16, 256, P_SPLITS)};
