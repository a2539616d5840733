#pragma once
// Sources of attn_out candidates for the cpu target's tests: the baseline, and the baseline
// wrapped by an entry point of a test's own (a cheat, a candidate wrong on some calls).
#include <string>

#include "kernels/contract.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {

inline std::string attn_out_baseline() {
  return std::string(host_abi(*builtin_kernel("attn_out")).baseline_source());
}

// The baseline renamed `real`, with `body` as the entry point around it.
inline std::string around_attn_out_baseline(const std::string& body) {
  std::string source = attn_out_baseline();
  const std::string entry = "extern \"C\" void hw_attn_out(const hw_attn_out_args* a)";
  source.replace(source.find(entry), entry.size(), "static void real(const hw_attn_out_args* a)");
  return "#include <cstring>\n" + source + "\n" + entry + " {\n" + body + "\n}\n";
}

}  // namespace headway::cpu
