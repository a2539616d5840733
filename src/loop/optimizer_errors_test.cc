// What the optimize loop throws when it cannot go on: a Failure whose code says what kind of
// failure it is (common/result.h), so that the command line exits as docs/CLI.md says.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "common/result.h"
#include "loop/optimizer.h"
#include "loop/scripted_run_test_support.h"
#include "store/schema.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"

namespace headway::loop {
namespace {

// Runs `run` and returns the code of the Failure it throws; fails the test when it throws none.
template <class F>
std::optional<ErrorCode> failure_code(F&& run) {
  try {
    run();
  } catch (const Failure& e) {
    return e.code();
  }
  ADD_FAILURE() << "no Failure thrown";
  return std::nullopt;
}

TEST(OptimizerErrors, ADatabaseARoundCannotOpenIsADatabaseFailure) {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  auto target = targets::make_test_target();
  // This connection stays open; every new one (each round at once opens its own) finds a schema
  // newer than this headway.
  ws.db().exec(fmt::format("PRAGMA user_version = {}", store::latest_schema_version() + 1));
  const auto code = failure_code([&] {
    run_scripted(ws, *target, {"// a\ntime: 0.5\n"}, nullptr, OptimizeOptions{}.done_within_floor,
                 [](OptimizeOptions& o) { o.concurrent_rounds = 2; });
  });
  EXPECT_EQ(code, ErrorCode::kDatabase);
}

TEST(OptimizerErrors, NoTargetIsInvalidInputAndAToolchainNotFoundAnEnvironmentFailure) {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  ScriptedProposer proposer({});
  OptimizeOptions options;
  options.kernels = {"attn_out"};
  EXPECT_EQ(failure_code([&] { optimize(ws, proposer, options, nullptr); }),
            ErrorCode::kInvalidInput);

  auto missing = targets::make_test_target("missing-cc");
  options.target = missing.get();
  EXPECT_EQ(failure_code([&] { optimize(ws, proposer, options, nullptr); }),
            ErrorCode::kEnvironment);
}

TEST(OptimizerErrors, AKernelThisProcessDoesNotKnowIsNotFound) {
  store::TestTempDir dir;
  store::Workspace ws = store::Workspace::create(dir.path()).value();
  auto target = targets::make_test_target();
  const auto code = failure_code([&] {
    run_scripted(ws, *target, {}, nullptr, OptimizeOptions{}.done_within_floor,
                 [](OptimizeOptions& o) { o.kernels = {"no_such_kernel"}; });
  });
  EXPECT_EQ(code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace headway::loop
