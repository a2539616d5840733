#include "loop/cpu_facts.h"

#include <fmt/format.h>

#include <string>

#include "knowledge/facts.h"

namespace headway::loop {

namespace {
std::optional<CpuFacts> from_table(store::Workspace& ws, const std::string& toolchain) {
  const auto bw = knowledge::find_fact(ws, knowledge::kReadBandwidth, toolchain);
  const auto f8 = knowledge::find_fact(ws, knowledge::kDecodeF8, toolchain);
  const auto fp4 = knowledge::find_fact(ws, knowledge::kDecodeNvfp4, toolchain);
  if (!bw || !f8 || !fp4) return std::nullopt;
  return CpuFacts{bw->value, f8->value, fp4->value};
}
}  // namespace

double CpuFacts::memory_floor_ms(const KernelContract& kernel) const {
  return static_cast<double>(kernel.bytes_to_move()) / (read_bandwidth_gbps * 1e9) * 1e3;
}

double CpuFacts::decode_floor_ms(const KernelContract& kernel) const {
  const double rate = kernel.weight_format() == KernelContract::WeightFormat::kNvfp4 ? decode_nvfp4_gbps : decode_f8_gbps;
  return static_cast<double>(kernel.quantized_weight_bytes()) / (rate * 1e9) * 1e3;
}

std::optional<CpuFacts> load_cpu_facts(store::Workspace& ws) {
  return from_table(ws, knowledge::current_cpu_toolchain_id(ws));
}

CpuFacts load_or_measure_cpu_facts(store::Workspace& ws) {
  const std::string toolchain = knowledge::current_cpu_toolchain_id(ws);
  if (auto facts = from_table(ws, toolchain)) return *facts;
  knowledge::measure_and_store_cpu_facts(ws, toolchain);
  return *from_table(ws, toolchain);
}

}  // namespace headway::loop
