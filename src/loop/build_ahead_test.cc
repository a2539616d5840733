#include "loop/build_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace headway::loop {
namespace {

using namespace std::chrono_literals;

// A build that records the sources it was asked for and names its artifact after the source.
struct RecordingBuild {
  std::mutex mutex;
  std::vector<std::string> built;
  targets::BuildOutcome operator()(const std::string& source) {
    {
      std::lock_guard lock(mutex);
      built.push_back(source);
    }
    if (source == "throws") throw std::runtime_error("the build broke");
    targets::BuildOutcome out;
    out.status = targets::BuildOutcome::Status::kBuilt;
    out.artifact.id = "built " + source;
    return out;
  }
  std::vector<std::string> calls() {
    std::lock_guard lock(mutex);
    return built;
  }
};

TEST(BuildAhead, EachSourceGetsItsOwnOutcomeAndUnwantedOnesAreNeverBuilt) {
  RecordingBuild build;
  {
    BuildAhead ahead({"a", "rejected", "c"}, {true, false, true},
                     [&](const std::string& s) { return build(s); });
    EXPECT_EQ(ahead.get(0).artifact.id, "built a");
    EXPECT_EQ(ahead.get(2).artifact.id, "built c");
  }
  const auto calls = build.calls();
  EXPECT_EQ(calls.size(), 2u);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "rejected"), 0);
}

TEST(BuildAhead, TheNextSourceBuildsWhileTheCallerHoldsTheOutcomeBeforeIt) {
  std::atomic<bool> second_started{false};
  std::atomic<bool> release{false};
  BuildSource build = [&](const std::string& s) {
    if (s == "second") {
      second_started = true;
      while (!release) std::this_thread::sleep_for(1ms);
    }
    targets::BuildOutcome out;
    out.status = targets::BuildOutcome::Status::kBuilt;
    out.artifact.id = s;
    return out;
  };
  BuildAhead ahead({"first", "second"}, {true, true}, build);
  EXPECT_EQ(ahead.get(0).artifact.id, "first");
  // The caller now checks "first"; "second" builds meanwhile, without being asked for.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!second_started && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(second_started);
  release = true;
  EXPECT_EQ(ahead.get(1).artifact.id, "second");
}

TEST(BuildAhead, ABuildThatThrowsThrowsFromItsOwnOutcomeOnly) {
  RecordingBuild build;
  BuildAhead ahead({"ok", "throws", "also ok"}, {true, true, true},
                   [&](const std::string& s) { return build(s); });
  EXPECT_EQ(ahead.get(0).artifact.id, "built ok");
  EXPECT_THROW(ahead.get(1), std::runtime_error);
  EXPECT_EQ(ahead.get(2).artifact.id, "built also ok");
}

TEST(BuildAhead, ARoundThatStopsEarlyWaitsForTheBuildItStarted) {
  std::atomic<int> finished{0};
  {
    BuildAhead ahead({"first", "slow"}, {true, true}, [&](const std::string& s) {
      if (s == "slow") std::this_thread::sleep_for(50ms);
      ++finished;
      targets::BuildOutcome out;
      out.status = targets::BuildOutcome::Status::kBuilt;
      return out;
    });
    ahead.get(0);  // starts "slow", which nobody asks for
  }
  EXPECT_EQ(finished, 2);
}

TEST(BuildAhead, OneWantedFlagPerSource) {
  EXPECT_THROW(
      BuildAhead({"a", "b"}, {true}, [](const std::string&) { return targets::BuildOutcome{}; }),
      std::logic_error);
}

}  // namespace
}  // namespace headway::loop
