#include "targets/cpu/host_abi.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "common/embedded.h"
#include "headway/headway_kernel.h"
#include "kernels/ffn.h"
#include "kernels/numerics.h"

namespace headway::cpu {

namespace {

void invoke_qkv(void* entry, SharedBuffers& b) {
  hw_qkv_args a{};
  a.x = b.as<bf16>("x").data();
  a.input_rms_weight = b.as<bf16>("input_rms_weight").data();
  a.q_weight = b.as<uint8_t>("q_weight").data();
  a.k_weight = b.as<uint8_t>("k_weight").data();
  a.v_weight = b.as<uint8_t>("v_weight").data();
  a.q_scale = b.as<bf16>("q_scale").data();
  a.k_scale = b.as<bf16>("k_scale").data();
  a.v_scale = b.as<bf16>("v_scale").data();
  a.q_rms_weight = b.as<bf16>("q_rms_weight").data();
  a.k_rms_weight = b.as<bf16>("k_rms_weight").data();
  a.cos = b.as<bf16>("cos").data();
  a.sin = b.as<bf16>("sin").data();
  a.q_out = b.as<bf16>("q_out").data();
  a.k_cache = b.as<bf16>("k_cache").data();
  a.v_cache = b.as<bf16>("v_cache").data();
  a.kv_slot = b.as<int32_t>("kv_slot")[0];
  reinterpret_cast<void (*)(const hw_qkv_args*)>(entry)(&a);
}

void invoke_attn_out(void* entry, SharedBuffers& b) {
  hw_attn_out_args a{};
  a.attn = b.as<bf16>("attn").data();
  a.o_weight = b.as<uint8_t>("o_weight").data();
  a.o_scale = b.as<bf16>("o_scale").data();
  a.post_attn_rms_weight = b.as<bf16>("post_attn_rms_weight").data();
  a.residual = b.as<bf16>("residual").data();
  reinterpret_cast<void (*)(const hw_attn_out_args*)>(entry)(&a);
}

void invoke_ffn(void* entry, SharedBuffers& b) {
  const FfnScalars sc = read_ffn_scalars(b);
  hw_ffn_args a{};
  a.residual = b.as<bf16>("residual").data();
  a.pre_ff_rms_weight = b.as<bf16>("pre_ff_rms_weight").data();
  a.gate_weight = b.as<uint8_t>("gate_weight").data();
  a.gate_block_scale = b.as<uint8_t>("gate_block_scale").data();
  a.up_weight = b.as<uint8_t>("up_weight").data();
  a.up_block_scale = b.as<uint8_t>("up_block_scale").data();
  a.down_weight = b.as<uint8_t>("down_weight").data();
  a.down_block_scale = b.as<uint8_t>("down_block_scale").data();
  a.post_ff_rms_weight = b.as<bf16>("post_ff_rms_weight").data();
  a.gate_global_scale = sc.gate_global_scale;
  a.up_global_scale = sc.up_global_scale;
  a.down_global_scale = sc.down_global_scale;
  a.layer_scalar = sc.layer_scalar;
  reinterpret_cast<void (*)(const hw_ffn_args*)>(entry)(&a);
}

constexpr HostAbi kQkv{"hw_qkv", invoke_qkv, "kernels/baselines/qkv.cc"};
constexpr HostAbi kAttnOut{"hw_attn_out", invoke_attn_out, "kernels/baselines/attn_out.cc"};
constexpr HostAbi kFfn{"hw_ffn", invoke_ffn, "kernels/baselines/ffn.cc"};

}  // namespace

std::string_view HostAbi::baseline_source() const { return embedded_file(baseline_path); }

const HostAbi& host_abi(const KernelContract& kernel) {
  const std::string_view name = kernel.name();
  if (name == "qkv") return kQkv;
  if (name == "attn_out") return kAttnOut;
  if (name == "ffn") return kFfn;
  throw std::logic_error(fmt::format("kernel '{}' has no host ABI on the cpu target", name));
}

}  // namespace headway::cpu
