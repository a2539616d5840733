#include "targets/cuda/device_args.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>
#include <string_view>

#include "headway/headway_kernel.h"
#include "kernels/ffn_scalars.h"

namespace headway::cuda {
namespace {

class Addresses {
 public:
  Addresses(const SharedBuffers& host, uint64_t inputs, uint64_t writable)
      : host_(host), inputs_(inputs), writable_(writable) {}
  template <typename T>
  T* at(std::string_view region) const {
    const size_t i = host_.index_of(region);
    const uint64_t base = host_.layout().in_inputs[i] ? inputs_ : writable_;
    return reinterpret_cast<T*>(static_cast<uintptr_t>(base + host_.layout().offset[i]));
  }

 private:
  const SharedBuffers& host_;
  uint64_t inputs_, writable_;
};

template <typename Args>
std::vector<std::byte> bytes_of(const Args& a) {
  std::vector<std::byte> out(sizeof a);
  std::memcpy(out.data(), &a, sizeof a);
  return out;
}

}  // namespace

std::vector<std::byte> device_args(const KernelContract& kernel, const SharedBuffers& host,
                                   uint64_t inputs, uint64_t writable) {
  const Addresses d(host, inputs, writable);
  const std::string_view name = kernel.name();
  if (name == "qkv") {
    hw_qkv_args a{};
    a.x = d.at<const hw_bf16>("x");
    a.input_rms_weight = d.at<const hw_bf16>("input_rms_weight");
    a.q_weight = d.at<const uint8_t>("q_weight");
    a.k_weight = d.at<const uint8_t>("k_weight");
    a.v_weight = d.at<const uint8_t>("v_weight");
    a.q_scale = d.at<const hw_bf16>("q_scale");
    a.k_scale = d.at<const hw_bf16>("k_scale");
    a.v_scale = d.at<const hw_bf16>("v_scale");
    a.q_rms_weight = d.at<const hw_bf16>("q_rms_weight");
    a.k_rms_weight = d.at<const hw_bf16>("k_rms_weight");
    a.cos = d.at<const hw_bf16>("cos");
    a.sin = d.at<const hw_bf16>("sin");
    a.q_out = d.at<hw_bf16>("q_out");
    a.k_cache = d.at<hw_bf16>("k_cache");
    a.v_cache = d.at<hw_bf16>("v_cache");
    a.kv_slot = host.as<int32_t>("kv_slot")[0];
    return bytes_of(a);
  }
  if (name == "attn_out") {
    hw_attn_out_args a{};
    a.attn = d.at<const hw_bf16>("attn");
    a.o_weight = d.at<const uint8_t>("o_weight");
    a.o_scale = d.at<const hw_bf16>("o_scale");
    a.post_attn_rms_weight = d.at<const hw_bf16>("post_attn_rms_weight");
    a.residual = d.at<hw_bf16>("residual");
    return bytes_of(a);
  }
  if (name == "ffn") {
    const FfnScalars sc = read_ffn_scalars(host);
    hw_ffn_args a{};
    a.residual = d.at<hw_bf16>("residual");
    a.pre_ff_rms_weight = d.at<const hw_bf16>("pre_ff_rms_weight");
    a.gate_weight = d.at<const uint8_t>("gate_weight");
    a.gate_block_scale = d.at<const uint8_t>("gate_block_scale");
    a.up_weight = d.at<const uint8_t>("up_weight");
    a.up_block_scale = d.at<const uint8_t>("up_block_scale");
    a.down_weight = d.at<const uint8_t>("down_weight");
    a.down_block_scale = d.at<const uint8_t>("down_block_scale");
    a.post_ff_rms_weight = d.at<const hw_bf16>("post_ff_rms_weight");
    a.gate_global_scale = sc.gate_global_scale;
    a.up_global_scale = sc.up_global_scale;
    a.down_global_scale = sc.down_global_scale;
    a.layer_scalar = sc.layer_scalar;
    return bytes_of(a);
  }
  if (kernel.spec()) {  // the generic ABI: every region's address, in region order
    std::vector<std::byte> out(host.specs().size() * sizeof(uint64_t));
    for (size_t r = 0; r < host.specs().size(); ++r) {
      const uint64_t base = host.layout().in_inputs[r] ? inputs : writable;
      const uint64_t address = base + host.layout().offset[r];
      std::memcpy(out.data() + r * sizeof address, &address, sizeof address);
    }
    return out;
  }
  throw std::logic_error(
      fmt::format("kernel '{}' has no argument struct on the cuda target", name));
}

}  // namespace headway::cuda
