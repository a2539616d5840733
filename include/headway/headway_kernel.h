/* headway kernel ABI: what a candidate source implements.
 *
 * A candidate is one C or C++ source file that includes "headway_kernel.h" (this file) and
 * defines, with C linkage, the entry point of its kernel:
 *
 *   void hw_qkv(const hw_qkv_args* a);
 *   void hw_attn_out(const hw_attn_out_args* a);
 *   void hw_ffn(const hw_ffn_args* a);
 *
 * Shapes and math follow the Gemma-4-12B decode step (docs/KERNELS.md). All matrices are
 * row-major with one row per output element. Contract rules that every candidate must keep:
 *   - write every element of every output, and nothing else (inputs are read-only; in the K/V
 *     caches only slot kv_slot may be written);
 *   - keep nothing across calls that depends on the inputs: a later call may bring different
 *     weights at the same addresses;
 *   - threads are allowed; they must be joined or idle before the entry point returns. The
 *     harness's own threads (hw_parallel_run, below) need neither.
 * bf16 values are passed as their raw 16-bit patterns (the upper half of an IEEE f32).
 */
#ifndef HEADWAY_KERNEL_ABI_H
#define HEADWAY_KERNEL_ABI_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint16_t hw_bf16;

enum {
  HW_H = 3840,  /* hidden size */
  HW_L = 15360, /* feed-forward size */
  HW_DS = 256,  /* head dimension */
  HW_NS = 8,    /* key/value heads */
  HW_GS = 2,    /* query heads per key/value head */
  HW_QS = 4096, /* Ns*Gs*Ds */
  HW_PS = 2048, /* Ns*Ds */
  HW_TS = 1024, /* ring-cache slots */
  HW_FP4_BLOCK = 16
};
#define HW_EPS 1e-6f

/* qkv: xn = bf16(RMSNorm(x) * input_rms_weight); q/k/v = bf16((W . xn) * row_scale);
 * per head: q = RMSNorm(q) * q_rms_weight, k = RMSNorm(k) * k_rms_weight, v = RMSNorm(v);
 * q and k get RoPE; results rounded to bf16 once, at the end. */
typedef struct hw_qkv_args {
  const hw_bf16* x;                /* [H] */
  const hw_bf16* input_rms_weight; /* [H] */
  const uint8_t* q_weight;         /* f8e4m3fn [Qs][H] */
  const uint8_t* k_weight;         /* f8e4m3fn [Ps][H] */
  const uint8_t* v_weight;         /* f8e4m3fn [Ps][H] */
  const hw_bf16* q_scale;          /* [Qs] */
  const hw_bf16* k_scale;          /* [Ps] */
  const hw_bf16* v_scale;          /* [Ps] */
  const hw_bf16* q_rms_weight;     /* [Ds] */
  const hw_bf16* k_rms_weight;     /* [Ds] */
  const hw_bf16* cos;              /* [Ds] */
  const hw_bf16* sin;              /* [Ds] */
  hw_bf16* q_out;                  /* [Ns][Gs][Ds] */
  hw_bf16* k_cache;                /* [Ts][Ns][Ds]; only slot kv_slot is written */
  hw_bf16* v_cache;                /* [Ts][Ns][Ds]; only slot kv_slot is written */
  int32_t kv_slot;                 /* in [0, Ts) */
} hw_qkv_args;

/* attn_out: y = bf16((Wo . attn) * o_scale);
 * residual = bf16(residual + RMSNorm(y) * post_attn_rms_weight). */
typedef struct hw_attn_out_args {
  const hw_bf16* attn;                 /* [Qs] */
  const uint8_t* o_weight;             /* f8e4m3fn [H][Qs] */
  const hw_bf16* o_scale;              /* [H] */
  const hw_bf16* post_attn_rms_weight; /* [H] */
  hw_bf16* residual;                   /* [H], read and written */
} hw_attn_out_args;

/* ffn: x = bf16(RMSNorm(residual) * pre_ff_rms_weight);
 * h = bf16(gelu_tanh(Wg . x) * (Wu . x)); d = Wd . h (f32);
 * residual = bf16((residual + RMSNorm(d) * post_ff_rms_weight) * layer_scalar).
 * NVFP4 weight element (r, c) = e2m1(code) * f8e4m3(block_scale[r][c/16]) * global_scale;
 * codes hold two elements per byte, the even element in the low nibble. */
typedef struct hw_ffn_args {
  hw_bf16* residual;                 /* [H], read and written */
  const hw_bf16* pre_ff_rms_weight;  /* [H] */
  const uint8_t* gate_weight;        /* e2m1 [L][H/2] */
  const uint8_t* gate_block_scale;   /* f8e4m3fn [L][H/16] */
  const uint8_t* up_weight;          /* e2m1 [L][H/2] */
  const uint8_t* up_block_scale;     /* f8e4m3fn [L][H/16] */
  const uint8_t* down_weight;        /* e2m1 [H][L/2] */
  const uint8_t* down_block_scale;   /* f8e4m3fn [H][L/16] */
  const hw_bf16* post_ff_rms_weight; /* [H] */
  float gate_global_scale;
  float up_global_scale;
  float down_global_scale;
  hw_bf16 layer_scalar;
} hw_ffn_args;

void hw_qkv(const hw_qkv_args* a);
void hw_attn_out(const hw_attn_out_args* a);
void hw_ffn(const hw_ffn_args* a);

/* The harness's threads. Where the process that runs a candidate offers them (headway's cpu
 * runner does), these are defined; elsewhere they are null (weak): test `if (hw_parallel_run)`.
 * hw_parallel_threads() is how many threads one job may use, the caller included (at least 1:
 * one per CPU the process may use). hw_parallel_run(threads, fn, ctx) runs fn(ctx, tid) for
 * every tid in [0, threads), tid 0 on the calling thread and the others on the harness's
 * workers, and returns 0 once all have returned; it returns -1 and runs nothing when threads is
 * outside [1, hw_parallel_threads()] or a run is already in progress. The workers are headway's
 * code: they may spin between the calls of a timed request, so a job reaches them within
 * microseconds where a sleeping thread of the candidate's own may take milliseconds to wake, and
 * they sleep before a timed request returns. Use them only during a call. fn(ctx, tid) must not
 * wait for another tid of the same run: for one-core readings (headway bench --one-core) the
 * harness runs them one after another on the calling thread. */
int hw_parallel_threads(void) __attribute__((weak));
int hw_parallel_run(int threads, void (*fn)(void* ctx, int tid), void* ctx) __attribute__((weak));

#ifdef __cplusplus
}
#endif
#endif /* HEADWAY_KERNEL_ABI_H */
