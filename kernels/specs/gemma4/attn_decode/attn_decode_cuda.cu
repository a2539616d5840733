// The cuda baseline of attn_decode.toml: plain, f32, correct, not fast. Blocks take query heads in
// turn (16 blocks of 256 threads); for its head a block writes the scores of every valid slot to
// scratch (a thread a slot, the dot over D in order), takes their maximum, turns them into
// exp(score - max) and sums them, then each thread sums p[t] V[t] for its elements over the slots
// and writes attn = bf16(sum / total). Each head of a group reads K and V again. Scratch: one f32
// score per slot and head, for N G <= 16 heads of T <= 32768 slots.
#include "headway_cuda_support.h"

#define THREADS 256
#define NWARPS (THREADS / 32)

typedef struct hw_attn_decode_args {
  const hw_bf16* q;        // [N][G][D]
  const int32_t* valid;    // slots 0 .. valid-1 hold tokens
  const hw_bf16* k_cache;  // [T][N][D]
  const hw_bf16* v_cache;  // [T][N][D]
  hw_bf16* attn;           // [N][G][D]
  const int64_t* dims;     // T, N, G, D, VMIN
} hw_attn_decode_args;

extern "C" __global__ void attn_heads(hw_attn_decode_args a, unsigned char* scratch) {
  __shared__ float red[NWARPS];
  const int slots = (int)a.dims[0], groups = (int)a.dims[1], g_heads = (int)a.dims[2];
  const int d = (int)a.dims[3];
  const int valid = *a.valid;
  const float scale = 1.0f / sqrtf((float)d);
  for (int h = blockIdx.x; h < groups * g_heads; h += gridDim.x) {
    const int n = h / g_heads;
    float* score = (float*)scratch + (size_t)h * slots;
    const hw_bf16* q = a.q + (size_t)h * d;
    float top = -INFINITY;
    for (int t = threadIdx.x; t < valid; t += blockDim.x) {
      const hw_bf16* k = a.k_cache + ((size_t)t * groups + n) * d;
      float s = 0.0f;
      for (int i = 0; i < d; ++i) s += hw_bf16_to_float(q[i]) * hw_bf16_to_float(k[i]);
      score[t] = s * scale;
      top = fmaxf(top, score[t]);
    }
    top = hw_block_max<NWARPS>(top, red);
    float sum = 0.0f;
    for (int t = threadIdx.x; t < valid; t += blockDim.x) {
      score[t] = expf(score[t] - top);
      sum += score[t];
    }
    sum = hw_block_sum<NWARPS>(sum, red);  // synchronizes: every p is written
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
      float acc = 0.0f;
      for (int t = 0; t < valid; ++t)
        acc += score[t] * hw_bf16_to_float(a.v_cache[((size_t)t * groups + n) * d + i]);
      a.attn[(size_t)h * d + i] = hw_float_to_bf16(acc / sum);
    }
    __syncthreads();  // the scores are read before the next head's are written
  }
}

extern "C" __device__ const hw_cuda_plan hw_plan = {{{"attn_heads", 16, THREADS, 0}},
                                                    16ull * 32768 * 4};
