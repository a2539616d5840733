#include "loop/cpu_facts.h"

#include <fmt/format.h>

#include <string>

#include "targets/cpu/bandwidth.h"
#include "targets/cpu/decode_ceiling.h"

namespace headway::loop {

namespace {
constexpr const char* kBandwidth = "cpu.read_bandwidth_gbps";
constexpr const char* kDecodeF8 = "cpu.decode_f8_gbps";
constexpr const char* kDecodeNvfp4 = "cpu.decode_nvfp4_gbps";
}  // namespace

double CpuFacts::memory_floor_ms(const KernelContract& kernel) const {
  return static_cast<double>(kernel.bytes_to_move()) / (read_bandwidth_gbps * 1e9) * 1e3;
}

double CpuFacts::decode_floor_ms(const KernelContract& kernel) const {
  const double rate = kernel.weight_format() == KernelContract::WeightFormat::kNvfp4 ? decode_nvfp4_gbps : decode_f8_gbps;
  return static_cast<double>(kernel.quantized_weight_bytes()) / (rate * 1e9) * 1e3;
}

std::optional<CpuFacts> load_cpu_facts(store::Workspace& ws) {
  const auto bw = ws.meta(kBandwidth), f8 = ws.meta(kDecodeF8), fp4 = ws.meta(kDecodeNvfp4);
  if (!bw || !f8 || !fp4) return std::nullopt;
  return CpuFacts{std::stod(*bw), std::stod(*f8), std::stod(*fp4)};
}

CpuFacts load_or_measure_cpu_facts(store::Workspace& ws) {
  if (auto facts = load_cpu_facts(ws)) return *facts;
  const cpu::BandwidthProfile bw = cpu::measure_read_bandwidth();
  const cpu::DecodeCeiling decode = cpu::measure_decode_ceiling();
  ws.set_meta(kBandwidth, fmt::format("{:.4f}", bw.best_gbps));
  ws.set_meta(kDecodeF8, fmt::format("{:.4f}", decode.f8_gbps));
  ws.set_meta(kDecodeNvfp4, fmt::format("{:.4f}", decode.nvfp4_gbps));
  return CpuFacts{bw.best_gbps, decode.f8_gbps, decode.nvfp4_gbps};
}

}  // namespace headway::loop
