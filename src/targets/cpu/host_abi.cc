#include "targets/cpu/host_abi.h"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "common/embedded.h"
#include "common/file_io.h"
#include "common/result.h"
#include "headway/headway_kernel.h"
#include "kernels/ffn_scalars.h"
#include "kernels/kernel_spec.h"
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

}  // namespace

std::string HostAbi::baseline_source() const {
  if (baseline_embedded) return std::string(embedded_file(baseline_path));
  if (baseline_path.empty())
    fail_with(invalid_input(
        fmt::format("the kernel's spec names no cpu baseline (baselines.cpu = \"FILE\")")));
  std::optional<std::string> text = read_file(baseline_path);
  if (!text)
    fail_with(invalid_input(fmt::format("cannot read the cpu baseline {}", baseline_path)));
  return std::move(*text);
}

void invoke_generic(void* entry, SharedBuffers& b) {
  std::vector<void*> args;
  for (size_t r = 0; r < b.specs().size(); ++r) args.push_back(b.bytes(r).data());
  reinterpret_cast<void (*)(void* const*)>(entry)(args.data());
}

HostAbi host_abi(const KernelContract& kernel) {
  const std::string_view name = kernel.name();
  if (name == "qkv") return {"hw_qkv", invoke_qkv, "kernels/baselines/qkv.cc"};
  if (name == "attn_out") return {"hw_attn_out", invoke_attn_out, "kernels/baselines/attn_out.cc"};
  if (name == "ffn") return {"hw_ffn", invoke_ffn, "kernels/baselines/ffn.cc"};
  if (const KernelSpec* spec = kernel.spec()) {
    const auto cpu = spec->baselines.find("cpu");
    return {"hw_" + spec->name, invoke_generic,
            cpu == spec->baselines.end() ? "" : cpu->second.string(), false};
  }
  throw std::logic_error(fmt::format("kernel '{}' has no host ABI on the cpu target", name));
}

std::string encode_regions(const std::vector<RegionSpec>& regions) {
  std::string out;
  for (const auto& r : regions) {
    out += fmt::format("{}{}:{}:{}", out.empty() ? "" : ",", r.bytes, static_cast<int>(r.role),
                       r.row_bytes);
  }
  return out;
}

std::optional<std::vector<RegionSpec>> decode_regions(std::string_view text) {
  std::vector<RegionSpec> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(',', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string item(text.substr(at, end - at));
    unsigned long long bytes = 0, row = 0;
    int role = -1, used = 0;
    if (std::sscanf(item.c_str(), "%llu:%d:%llu%n", &bytes, &role, &row, &used) != 3 ||
        used != static_cast<int>(item.size()) || role < 0 || role > 3 || bytes == 0)
      return std::nullopt;
    RegionSpec r;
    r.name = fmt::format("arg{}", out.size());
    r.bytes = bytes;
    r.role = static_cast<RegionRole>(role);
    r.row_bytes = row;
    if (r.role == RegionRole::kCache && (row == 0 || bytes % row != 0)) return std::nullopt;
    out.push_back(std::move(r));
    at = end + 1;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace headway::cpu
