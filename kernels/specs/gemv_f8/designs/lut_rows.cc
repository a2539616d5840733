// headway-design: lut_rows
// summary: f8 codes decoded through a 256-entry f32 table; P_ROWS rows share each activation load; rows split across P_THREADS harness threads
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 default 2
#include <vector>

#include "headway_support.h"

#ifndef P_ROWS
#define P_ROWS 2
#endif
#ifndef P_THREADS
#define P_THREADS 2
#endif

typedef struct hw_gemv_f8_args {
  const uint16_t* x;      // input bf16 [K]
  const uint8_t* w;       // weight f8e4m3 [N, K]
  const uint16_t* scale;  // weight bf16 [N]
  float* y;               // output f32 [N]
  const int64_t* dims;    // N, K
} hw_gemv_f8_args;

namespace {

struct Table {
  float value[256];
  Table() {
    for (int c = 0; c < 256; ++c) value[c] = hw::f8e4m3_to_f32(static_cast<uint8_t>(c));
  }
};
const Table kTable;

struct Job {
  const hw_gemv_f8_args* a;
  const float* x;
  int threads;
};

void rows(void* ctx, int tid) {
  const Job& job = *static_cast<const Job*>(ctx);
  const int64_t n = job.a->dims[0], k = job.a->dims[1];
  const int64_t per = (n + job.threads - 1) / job.threads;
  const int64_t first = per * tid, last = first + per < n ? first + per : n;
  for (int64_t r = first; r < last; r += P_ROWS) {
    float acc[P_ROWS] = {};
    const int live = static_cast<int>(last - r < P_ROWS ? last - r : P_ROWS);
    for (int64_t c = 0; c < k; ++c) {
      const float xv = job.x[c];
      for (int j = 0; j < live; ++j) acc[j] += kTable.value[job.a->w[(r + j) * k + c]] * xv;
    }
    for (int j = 0; j < live; ++j) job.a->y[r + j] = acc[j] * hw::bf16_to_f32(job.a->scale[r + j]);
  }
}

}  // namespace

extern "C" void hw_gemv_f8(const hw_gemv_f8_args* a) {
  const int64_t k = a->dims[1];
  std::vector<float> x(static_cast<size_t>(k));
  for (int64_t c = 0; c < k; ++c) x[static_cast<size_t>(c)] = hw::bf16_to_f32(a->x[c]);
  int threads = P_THREADS;
  if (!hw_parallel_run || threads > hw_parallel_threads()) threads = 1;
  Job job{a, x.data(), threads};
  if (threads == 1 || hw_parallel_run(threads, rows, &job) != 0) {
    job.threads = 1;
    rows(&job, 0);
  }
}
