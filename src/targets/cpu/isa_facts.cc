#include "targets/cpu/isa_facts.h"

#include <cpuid.h>
#include <fmt/format.h>

#include <cstdint>
#include <sstream>

#include "targets/fact_names.h"

namespace headway::cpu {

namespace {

struct CpuidBits {
  uint32_t l1_ecx = 0;
  uint32_t l7_ebx = 0, l7_ecx = 0, l7_edx = 0;
  uint32_t l7s1_eax = 0;
  uint64_t xcr0 = 0;
};

CpuidBits read_cpuid() {
  CpuidBits b;
  unsigned a = 0, bx = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &bx, &c, &d)) b.l1_ecx = c;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, bx, c, d);
    b.l7_ebx = bx;
    b.l7_ecx = c;
    b.l7_edx = d;
    const unsigned max_sub = a;
    if (max_sub >= 1) {
      __cpuid_count(7, 1, a, bx, c, d);
      b.l7s1_eax = a;
    }
  }
  if (b.l1_ecx & (1u << 27)) {  // OSXSAVE: xgetbv is available
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    b.xcr0 = (static_cast<uint64_t>(hi) << 32) | lo;
  }
  return b;
}

const CpuidBits& cpuid_bits() {
  static const CpuidBits bits = read_cpuid();
  return bits;
}

bool bit(uint32_t reg, int n) { return (reg >> n) & 1u; }

}  // namespace

const std::vector<IsaExtension>& isa_extensions() {
  static const std::vector<IsaExtension> list = {
      {"avx2", "__AVX2__"},
      {"fma", "__FMA__"},
      {"f16c", "__F16C__"},
      {"avx512f", "__AVX512F__"},
      {"avx512bw", "__AVX512BW__"},
      {"avx512vl", "__AVX512VL__"},
      {"avx512dq", "__AVX512DQ__"},
      {"avx512vbmi", "__AVX512VBMI__"},
      {"avx512vbmi2", "__AVX512VBMI2__"},
      {"avx512vnni", "__AVX512VNNI__"},
      {"avx512bf16", "__AVX512BF16__"},
      {"avx512fp16", "__AVX512FP16__"},
      {"amx-tile", "__AMX_TILE__"},
      {"amx-int8", "__AMX_INT8__"},
      {"amx-bf16", "__AMX_BF16__"},
  };
  return list;
}

bool chip_has(std::string_view e) {
  const CpuidBits& b = cpuid_bits();
  const bool ymm = (b.xcr0 & 0x6) == 0x6;            // SSE and AVX state
  const bool zmm = ymm && (b.xcr0 & 0xe0) == 0xe0;   // opmask, ZMM_Hi256, Hi16_ZMM
  const bool tiles = (b.xcr0 & 0x60000) == 0x60000;  // XTILECFG, XTILEDATA
  if (e == "avx2") return ymm && bit(b.l7_ebx, 5);
  if (e == "fma") return ymm && bit(b.l1_ecx, 12);
  if (e == "f16c") return ymm && bit(b.l1_ecx, 29);
  if (e == "avx512f") return zmm && bit(b.l7_ebx, 16);
  if (e == "avx512dq") return zmm && bit(b.l7_ebx, 17);
  if (e == "avx512bw") return zmm && bit(b.l7_ebx, 30);
  if (e == "avx512vl") return zmm && bit(b.l7_ebx, 31);
  if (e == "avx512vbmi") return zmm && bit(b.l7_ecx, 1);
  if (e == "avx512vbmi2") return zmm && bit(b.l7_ecx, 6);
  if (e == "avx512vnni") return zmm && bit(b.l7_ecx, 11);
  if (e == "avx512bf16") return zmm && bit(b.l7s1_eax, 5);
  if (e == "avx512fp16") return zmm && bit(b.l7_edx, 23);
  if (e == "amx-bf16") return tiles && bit(b.l7_edx, 22);
  if (e == "amx-tile") return tiles && bit(b.l7_edx, 24);
  if (e == "amx-int8") return tiles && bit(b.l7_edx, 25);
  return false;
}

std::vector<targets::ChipFact> isa_facts(std::string_view macros, std::string_view toolchain_note) {
  // Each predefined macro is one line "#define NAME VALUE".
  auto defines = [&](std::string_view macro) {
    std::istringstream in{std::string(macros)};
    std::string word, name;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream w(line);
      if (w >> word >> name && word == "#define" && name == macro) return true;
    }
    return false;
  };
  std::vector<targets::ChipFact> facts;
  for (const IsaExtension& e : isa_extensions()) {
    const bool chip = chip_has(e.name);
    const bool tool = defines(e.macro);
    facts.push_back({targets::isa_fact_name(e.name), chip && tool ? 1.0 : 0.0, "bool", std::nullopt,
                     fmt::format("cpuid (with the OS's xgetbv state) {}; {} {} {}",
                                 chip ? "reports it" : "does not report it", toolchain_note,
                                 tool ? "defines" : "does not define", e.macro)});
  }
  return facts;
}

std::vector<targets::ChipFact> measure_isa_facts(const Toolchain& toolchain) {
  const Result<std::string> macros = predefined_macros(toolchain);
  std::string flags;
  for (const auto& f : toolchain.flags) flags += " " + f;
  std::string note = fmt::format("`{}{} -dM -E`", toolchain.cxx, flags);
  if (!macros) note += fmt::format(" (did not run: {})", macros.error().message);
  return isa_facts(macros ? macros.value() : std::string(), note);
}

}  // namespace headway::cpu
