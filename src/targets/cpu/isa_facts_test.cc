#include "targets/cpu/isa_facts.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "targets/cpu/cpu_target.h"
#include "targets/design_library.h"
#include "targets/fact_names.h"

namespace headway::cpu {
namespace {

// Every predefined macro of the list, as `cxx -dM -E` prints them.
std::string all_macros() {
  std::string m = "#define __x86_64__ 1\n";
  for (const auto& e : isa_extensions()) m += std::string("#define ") + e.macro + " 1\n";
  return m;
}

TEST(IsaFacts, OneFactPerExtensionNeedingBothChipAndToolchain) {
  const auto none = isa_facts("#define __x86_64__ 1\n#define __AVX2___EXTRA 1\n", "test");
  ASSERT_EQ(none.size(), isa_extensions().size());
  for (const auto& f : none) {
    EXPECT_EQ(f.value, 0.0) << f.name << ": the toolchain defines nothing, so nothing is usable";
    EXPECT_NE(f.method.find("does not define"), std::string::npos) << f.method;
  }
  const auto all = isa_facts(all_macros(), "test");
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& e = isa_extensions()[i];
    EXPECT_EQ(all[i].name, targets::isa_fact_name(e.name));
    EXPECT_EQ(all[i].value, chip_has(e.name) ? 1.0 : 0.0) << e.name;
    EXPECT_EQ(all[i].unit, "bool");
  }
  EXPECT_EQ(targets::isa_fact_name("avx512bw"), "isa.avx512bw");
  EXPECT_FALSE(chip_has("no-such-extension"));
}

// The cpuid decoding agrees with the compiler's own runtime detection where both know the name.
TEST(IsaFacts, CpuidAgreesWithTheCompilersRuntimeDetection) {
  __builtin_cpu_init();
  EXPECT_EQ(chip_has("avx2"), static_cast<bool>(__builtin_cpu_supports("avx2")));
  EXPECT_EQ(chip_has("fma"), static_cast<bool>(__builtin_cpu_supports("fma")));
  EXPECT_EQ(chip_has("avx512f"), static_cast<bool>(__builtin_cpu_supports("avx512f")));
  EXPECT_EQ(chip_has("avx512bw"), static_cast<bool>(__builtin_cpu_supports("avx512bw")));
  EXPECT_EQ(chip_has("avx512vl"), static_cast<bool>(__builtin_cpu_supports("avx512vl")));
  EXPECT_EQ(chip_has("avx512vbmi"), static_cast<bool>(__builtin_cpu_supports("avx512vbmi")));
  EXPECT_EQ(chip_has("avx512vnni"), static_cast<bool>(__builtin_cpu_supports("avx512vnni")));
}

// The host compiler with the build flags (-march=native) enables what this chip has: here
// the fact of an extension equals the chip's bit for the everyday ones.
TEST(IsaFacts, MeasuredWithTheHostCompiler) {
  const auto facts = measure_isa_facts(Toolchain{});
  ASSERT_EQ(facts.size(), isa_extensions().size());
  for (const auto& f : facts) {
    if (f.name == "isa.avx2" || f.name == "isa.fma" || f.name == "isa.avx512f" ||
        f.name == "isa.avx512bw") {
      EXPECT_EQ(f.value, chip_has(f.name.substr(4)) ? 1.0 : 0.0) << f.name << ": " << f.method;
    }
  }
}

// bench --peers asks the target for the facts of the extensions its designs need, and only
// those: nothing slow (no bandwidth), and each fact as the full measurement gives it.
TEST(IsaFacts, TheTargetMeasuresJustTheInstructionSetFactsAskedFor) {
  CpuTarget target;
  targets::FactOptions options;
  options.only = {"isa.avx2", "isa.avx512bf16"};
  const auto facts = target.measure_facts(options);
  ASSERT_EQ(facts.size(), 2u);
  const auto all = measure_isa_facts(Toolchain{});
  for (const auto& f : facts) {
    SCOPED_TRACE(f.name);
    EXPECT_TRUE(f.name == "isa.avx2" || f.name == "isa.avx512bf16");
    for (const auto& a : all) {
      if (a.name == f.name) {
        EXPECT_EQ(a.value, f.value);
      }
    }
  }
}

}  // namespace
}  // namespace headway::cpu

namespace headway::cpu {
namespace {

TEST(IsaFacts, EveryDesignRequiresAnExtensionThatIsMeasured) {
  std::set<std::string> known;
  for (const auto& e : isa_extensions()) known.insert(e.name);
  const CpuTarget target;
  for (const char* k : {"qkv", "attn_out", "ffn"}) {
    for (const auto& d : targets::designs_for(target, *builtin_kernel(k))) {
      for (const auto& r : d.requires_isa)
        EXPECT_TRUE(known.count(r)) << d.name << " requires unknown " << r;
    }
  }
}

}  // namespace
}  // namespace headway::cpu
