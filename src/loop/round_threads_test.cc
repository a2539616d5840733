#include "loop/round_threads.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace headway::loop {
namespace {

// Waits until `n` rounds have ended, taking them.
std::vector<EndedRound> take(RoundThreads& rounds, std::recursive_mutex& mu, size_t n) {
  std::unique_lock lock(mu);
  std::vector<EndedRound> all;
  for (;;) {
    for (auto& e : rounds.take_ended()) all.push_back(std::move(e));
    if (all.size() >= n) return all;
    rounds.wait(lock);
  }
}

TEST(RoundThreads, EachRoundEndsWithWhatItDecidedOrThrew) {
  std::recursive_mutex mu;
  RoundThreads rounds(mu);
  {
    std::lock_guard lock(mu);
    rounds.start("qkv", [] {
      RoundCounts c;
      c.tests = 2;
      c.accepted = 1;
      return std::optional<RoundCounts>(c);
    });
    rounds.start("ffn", [] { return std::optional<RoundCounts>(); });
    rounds.start("attn", []() -> std::optional<RoundCounts> { throw std::runtime_error("no"); });
    EXPECT_TRUE(rounds.in_flight("qkv"));
    EXPECT_THROW(rounds.start("qkv", [] { return std::optional<RoundCounts>(); }),
                 std::logic_error);
  }
  const std::vector<EndedRound> ended = take(rounds, mu, 3);
  ASSERT_EQ(ended.size(), 3u);
  std::map<std::string, const EndedRound*> by_kernel;
  for (const auto& e : ended) by_kernel[e.kernel] = &e;
  ASSERT_TRUE(by_kernel["qkv"]->counts);
  EXPECT_EQ(by_kernel["qkv"]->counts->tests, 2);
  EXPECT_EQ(by_kernel["qkv"]->counts->accepted, 1);
  EXPECT_FALSE(by_kernel["ffn"]->counts);
  EXPECT_FALSE(by_kernel["ffn"]->error);
  ASSERT_TRUE(by_kernel["attn"]->error);
  EXPECT_THROW(std::rethrow_exception(by_kernel["attn"]->error), std::runtime_error);
  std::lock_guard lock(mu);
  EXPECT_TRUE(rounds.empty());
  EXPECT_FALSE(rounds.in_flight("qkv"));
}

TEST(RoundThreads, ARoundThatHasNotEndedStaysInFlight) {
  std::recursive_mutex mu;
  RoundThreads rounds(mu);
  std::mutex gate_mu;
  std::condition_variable gate;
  bool open = false;
  {
    std::lock_guard lock(mu);
    rounds.start("qkv", [&] {
      std::unique_lock g(gate_mu);
      gate.wait(g, [&] { return open; });
      return std::optional<RoundCounts>(RoundCounts{});
    });
    EXPECT_TRUE(rounds.take_ended().empty());
    EXPECT_EQ(rounds.count(), 1);
  }
  {
    std::lock_guard g(gate_mu);
    open = true;
  }
  gate.notify_all();
  EXPECT_EQ(take(rounds, mu, 1).size(), 1u);
}

TEST(RoundThreads, TheHooksOfARoundOnAThreadRunHoldingTheRunsLock) {
  std::recursive_mutex mu;
  // Whether another thread could take the run's lock while the hook ran.
  const auto free_elsewhere = [&mu] {
    bool free = false;
    std::thread([&] {
      free = mu.try_lock();
      if (free) mu.unlock();
    }).join();
    return free;
  };
  bool failure_saw_free = true;
  OptimizeOptions options;
  options.on_screen_failure = [&](const std::string&, int64_t) {
    failure_saw_free = free_elsewhere();
  };
  const OptimizeOptions locked = with_hooks_locked(options, mu);
  EXPECT_FALSE(locked.lint);  // none given, none made
  locked.on_screen_failure("qkv", 3);
  EXPECT_FALSE(failure_saw_free);
  EXPECT_TRUE(free_elsewhere());
}

}  // namespace
}  // namespace headway::loop
