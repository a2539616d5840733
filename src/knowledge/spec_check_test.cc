#include "knowledge/spec_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/file_io.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

namespace headway::knowledge {
namespace {

namespace fs = std::filesystem;

const fs::path kRmsnorm = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/rmsnorm";

// A copy of the rmsnorm spec in `dir`, its reference's last line replaced by `last_line`.
fs::path rmsnorm_copy(const fs::path& dir, const std::string& last_line) {
  fs::create_directories(dir);
  for (const char* f : {"rmsnorm.toml", "rmsnorm_cpu.cc"}) fs::copy_file(kRmsnorm / f, dir / f);
  std::string reference = read_file(kRmsnorm / "rmsnorm_reference.c").value();
  const std::string last = "  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * inv * weight[i];";
  reference.replace(reference.find(last), last.size(), last_line);
  write_file(dir / "rmsnorm_reference.c", reference);
  return dir / "rmsnorm.toml";
}

TEST(SpecCheck, ASoundSpecJudgesAndItsBaselinePassesAtEveryShapeSet) {
  store::TestTempDir tmp;
  const auto judged = judge_spec(kRmsnorm / "rmsnorm.toml", 1, tmp.path());
  ASSERT_TRUE(judged) << judged.error().message;
  ASSERT_EQ(judged->kernels.size(), 2u);
  EXPECT_EQ(judged->spec->name, "rmsnorm");
  auto target = targets::make_target("cpu");
  ASSERT_TRUE(check_spec_designs(judged.value(), *target));
  const auto checks = check_spec_sources(judged.value(), *target, 1, tmp.path());
  ASSERT_TRUE(checks) << checks.error().message;
  ASSERT_EQ(checks->size(), 2u);  // the baseline (no designs) at each shape set
  EXPECT_EQ((*checks)[0].shape, "gemma4");
  EXPECT_EQ((*checks)[1].shape, "small");
  for (const SourceCheck& c : checks.value()) {
    EXPECT_EQ(c.label, "baseline");
    EXPECT_TRUE(c.outcome.correct()) << c.outcome.description;
  }
}

TEST(SpecCheck, AReferenceThatWritesNonFiniteValuesIsRefusedWithItsShapeSet) {
  store::TestTempDir tmp;
  const fs::path spec =
      rmsnorm_copy(tmp.path() / "nan", "  for (int64_t i = 0; i < n; ++i) out[i] = NAN;");
  const auto judged = judge_spec(spec, 1, tmp.path() / "cache");
  ASSERT_FALSE(judged);
  EXPECT_EQ(judged.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(judged.error().message.rfind(spec.string() + ": shape set gemma4: ", 0), 0u)
      << judged.error().message;
}

TEST(SpecCheck, AReferenceThatDoesNotBuildIsRefusedWithItsDiagnostics) {
  store::TestTempDir tmp;
  const fs::path spec = rmsnorm_copy(tmp.path() / "broken", "  oops;");
  const auto judged = judge_spec(spec, 1, tmp.path() / "cache");
  ASSERT_FALSE(judged);
  EXPECT_EQ(judged.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(judged.error().message.find("the reference does not build"), std::string::npos)
      << judged.error().message;
  EXPECT_NE(judged.error().message.find("oops"), std::string::npos);
}

TEST(SpecCheck, ASourceThatDoesNotBuildIsAnErrorNamingIt) {
  store::TestTempDir tmp;
  auto target = targets::make_target("cpu");
  const auto built = build_source(*target, "this is not C++\n", "my.cc", tmp.path());
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(built.error().message.rfind("my.cc does not build:\n", 0), 0u) << built.error().message;
}

}  // namespace
}  // namespace headway::knowledge
