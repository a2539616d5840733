// The legality rules' detectors on the cpu target's real compilers: the detector derived from what
// each prints for a failed build rejects the source that failed (knowledge/rule_detector.h).
#include <gtest/gtest.h>

#include "knowledge/rule_detector.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

namespace headway::cpu {
namespace {

// The real compilers of this machine: the detector derived from what they print rejects the
// source that failed.
TEST(CpuRuleDetector, RealCompilersMissingHeaderGivesADetectorThatMatchesTheRepro) {
  store::TestTempDir tmp;
  const std::string source = "#include \"headway_kernel.h\"\n#include <headway_no_such_header.h>\n";
  int compilers = 0;
  for (const char* cxx : {"g++", "clang++"}) {
    const auto tc = targets::make_target("cpu", cxx);
    if (!tc->identity().found) continue;
    ++compilers;
    const auto built = tc->build(source, tmp.path());
    ASSERT_EQ(built.status, targets::BuildOutcome::Status::kCompileError) << cxx;
    const auto detector = knowledge::derive_detector(built.diagnostics);
    ASSERT_TRUE(detector.has_value()) << cxx << ": " << built.diagnostics;
    EXPECT_TRUE(knowledge::validate_detector(*detector, source).ok()) << *detector;
    EXPECT_FALSE(knowledge::detector_match(*detector, "#include <headway_no_such_header_2.h>\n"))
        << *detector;
  }
  EXPECT_GE(compilers, 1);
}

}  // namespace
}  // namespace headway::cpu
