// The cpu baseline of kv_append.toml.
#include <cstdint>
#include <cstring>

typedef struct hw_kv_append_args {
  const uint16_t* k;     // input bf16 [D]
  const int32_t* slot;   // input int32 []
  uint16_t* cache;       // cache bf16 [T, D]
  const int64_t* dims;   // T, D
} hw_kv_append_args;

extern "C" void hw_kv_append(const hw_kv_append_args* a) {
  const int64_t d = a->dims[1];
  for (int64_t i = 0; i < d; ++i) a->cache[*a->slot * d + i] = a->k[i];
}
