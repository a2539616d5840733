#include "ablate/study.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway::ablate {
namespace {

TEST(AblateArms, EveryPartAndRuleHasAnArmThatAddsItsOption) {
  const auto arms = known_arms();
  EXPECT_EQ(arms, (std::vector<std::string>{
                      "full", "without-knowledge", "without-floor-guidance", "without-isa-gating",
                      "without-slow-designs", "without-rule-lint", "without-cheat-sheet",
                      "without-static-cost-screen", "without-racing", "rule-reference",
                      "rule-threshold", "rule-lowest-mean", "beam-2", "beam-3", "beam-4"}));
  EXPECT_TRUE(parse_arm("full").value().optimize_args.empty());
  EXPECT_EQ(parse_arm("without-racing").value().optimize_args,
            (std::vector<std::string>{"--without", "racing"}));
  EXPECT_EQ(parse_arm("rule-lowest-mean").value().optimize_args,
            (std::vector<std::string>{"--acceptance-rule", "lowest-mean"}));
  EXPECT_EQ(parse_arm("beam-3").value().optimize_args, (std::vector<std::string>{"--beam", "3"}));
  EXPECT_FALSE(parse_arm("beam-1").ok()) << "one head is the full loop";
  const auto unknown = parse_arm("rule-betting");
  ASSERT_FALSE(unknown.ok()) << "betting is the full loop's rule";
  EXPECT_NE(unknown.error().message.find("known: full, "), std::string::npos);
  EXPECT_FALSE(parse_arm("without-").ok());
}

TEST(AblateStudySpec, BadSpecsAreOneLineErrors) {
  const auto error = [](auto edit) {
    StudySpec s;
    edit(s);
    const Status v = validate(s);
    return v.ok() ? std::string() : v.error().message;
  };
  EXPECT_EQ(error([](StudySpec&) {}), "");
  EXPECT_NE(error([](StudySpec& s) { s.arms = {}; }), "");
  EXPECT_NE(error([](StudySpec& s) {
              s.arms = {"full", "full"};
            }).find("named twice"),
            std::string::npos);
  EXPECT_NE(error([](StudySpec& s) { s.arms = {"nope"}; }).find("unknown arm 'nope'"),
            std::string::npos);
  EXPECT_NE(error([](StudySpec& s) { s.runs = 0; }).find("runs"), std::string::npos);
  EXPECT_NE(error([](StudySpec& s) { s.budget = "soon"; }).find("'soon'"), std::string::npos);
  EXPECT_NE(error([](StudySpec& s) { s.target = "command"; }).find("manifest"), std::string::npos);
  EXPECT_NE(error([](StudySpec& s) { s.manifest = "/x.toml"; }).find("manifest"),
            std::string::npos);
  for (const char* own : {"--budget", "--json", "--beam=3", "--without", "--workspace"}) {
    EXPECT_NE(error([&](StudySpec& s) {
                s.optimize_args = {"--agent-jobs", "3", own};
              }).find(std::string(own).substr(0, std::string(own).find('=')) + " is the study's"),
              std::string::npos)
        << own;
  }
  // The runs share the study's pool: a pool of their own in optimize_args is refused.
  for (const char* pool : {"--pool", "--workers=4", "--partition", "--pool-broker"}) {
    EXPECT_NE(error([&](StudySpec& s) {
                s.optimize_args = {"--agent-jobs", "3", pool};
              }).find("the runs of a study share one pool"),
              std::string::npos)
        << pool;
  }
  EXPECT_NE(error([](StudySpec& s) {
              s.pool = {{"kind", "study"}};
            }).find("local or slurm"),
            std::string::npos);
  EXPECT_NE(error([](StudySpec& s) { s.pool = "slurm"; }).find("local or slurm"),
            std::string::npos);
  StudySpec s;
  s.arms = {"full", "without-racing"};
  s.runs = 7;
  s.optimize_args = {"--agent-jobs", "4"};
  s.pool = {{"kind", "slurm"}, {"workers", 4}};
  EXPECT_EQ(error([&](StudySpec& t) { t = s; }), "");
  EXPECT_EQ(to_json(study_spec_from_json(to_json(s)).value()), to_json(s));
  EXPECT_FALSE(study_spec_from_json({{"target", "sim"}}).ok());
  // A study written before optimize_args (or its pool) existed opens with none (a local pool).
  auto older = to_json(s);
  older.erase("optimize_args");
  older.erase("pool");
  EXPECT_TRUE(study_spec_from_json(older).value().optimize_args.empty());
  EXPECT_EQ(study_spec_from_json(older).value().pool, nlohmann::json({{"kind", "local"}}));
  // A hand-edited study.json whose counts are floats or out of range is refused, not converted.
  for (const auto& [field, number] : {std::pair{"runs", "1e300"}, std::pair{"runs", "3.5"},
                                      std::pair{"seed", "-1"}, std::pair{"seed", "1e30"}}) {
    auto edited = to_json(s);
    edited[field] = nlohmann::json::parse(number);
    const auto bad = study_spec_from_json(edited);
    ASSERT_FALSE(bad.ok()) << field << " " << number;
    EXPECT_EQ(bad.error().code, ErrorCode::kInvalidInput);
    EXPECT_NE(bad.error().message.find("expected a whole number"), std::string::npos)
        << bad.error().message;
  }
}

TEST(AblateStudy, IsCreatedOnceAndReopenedOnlyWithTheSameSpec) {
  store::TestTempDir tmp;
  const auto dir = tmp.path() / "study";
  StudySpec spec;
  spec.arms = {"full", "without-racing"};
  spec.runs = 3;
  ASSERT_TRUE(Study::create_or_open(dir, spec).ok());
  EXPECT_TRUE(std::filesystem::exists(dir / "study.json"));
  const auto reopened = Study::create_or_open(dir, std::nullopt);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(to_json(reopened.value().spec()), to_json(spec));
  EXPECT_TRUE(Study::create_or_open(dir, spec).ok());
  StudySpec more = spec;
  more.runs = 4;
  const auto differs = Study::create_or_open(dir, more);
  ASSERT_FALSE(differs.ok());
  EXPECT_NE(differs.error().message.find("runs 3, not 4"), std::string::npos)
      << differs.error().message;
  EXPECT_EQ(Study::create_or_open(dir, std::nullopt).value().spec().runs, 3) << "left as it was";

  StudySpec bad = spec;
  bad.runs = 0;
  EXPECT_FALSE(Study::create_or_open(tmp.path() / "bad", bad).ok());
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "bad")) << "an invalid spec writes nothing";
  EXPECT_FALSE(Study::create_or_open(tmp.path() / "none", std::nullopt).ok());
  write_file(tmp.path() / "broken.json", "{");
  std::filesystem::create_directories(tmp.path() / "broken");
  write_file(tmp.path() / "broken" / "study.json", "{");
  EXPECT_FALSE(Study::create_or_open(tmp.path() / "broken", std::nullopt).ok());
}

TEST(AblateStudy, RunSeedsAreSharedByTheArmsAndDifferBetweenRuns) {
  store::TestTempDir tmp;
  StudySpec spec;
  spec.runs = 50;
  const Study study = Study::create_or_open(tmp.path(), spec).value();
  std::set<uint64_t> seeds;
  for (int run = 0; run < spec.runs; ++run) {
    EXPECT_NE(study.run_seed(run), 0u);
    seeds.insert(study.run_seed(run));
  }
  EXPECT_EQ(seeds.size(), 50u);
  store::TestTempDir other;
  spec.seed = 2;
  EXPECT_NE(Study::create_or_open(other.path(), spec).value().run_seed(0), study.run_seed(0));
}

TEST(AblateStudy, PendingRunsInterleaveTheArmsAndSkipStoredResults) {
  store::TestTempDir tmp;
  StudySpec spec;
  spec.arms = {"full", "rule-threshold"};
  spec.runs = 2;
  const Study study = Study::create_or_open(tmp.path(), spec).value();
  using Runs = std::vector<std::pair<std::string, int>>;
  EXPECT_EQ(study.pending(),
            (Runs{{"full", 0}, {"rule-threshold", 0}, {"full", 1}, {"rule-threshold", 1}}));
  write_file_creating_folders(study.run_dir("full", 0) / "result.json", R"({"tests": 3})");
  write_file_creating_folders(study.run_dir("rule-threshold", 1) / "result.json", "not json");
  write_file_creating_folders(study.run_dir("full", 1) / "optimize.log", "killed");
  EXPECT_EQ(study.pending(), (Runs{{"rule-threshold", 0}, {"full", 1}, {"rule-threshold", 1}}));
  EXPECT_EQ(study.result("full", 0).value()["tests"], 3);
  EXPECT_FALSE(study.result("rule-threshold", 1));
}

}  // namespace
}  // namespace headway::ablate
