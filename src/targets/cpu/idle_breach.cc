#include "targets/cpu/idle_breach.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "common/elapsed.h"

namespace headway::cpu {

namespace {

using Clock = std::chrono::steady_clock;

// A thread pool may spin a while after a call before its threads sleep (under a hypervisor a
// spin of a few thousand pauses can take milliseconds): a child has kIdleGrace to fall idle.
// A child with a thread still runnable then is watched for kIdleWindow, and on while a thread
// stays runnable, for at most kIdleWatch: using more than kBusyCpu of CPU in that watch is work
// outside the call. The watch is long because a
// runnable thread on a loaded machine may be waiting for a core, which uses no CPU: a thread
// going to sleep needs microseconds of a core once it gets one, a thread that spins uses every
// slice it gets, and even a small share of a loaded machine adds up to kBusyCpu well before
// kIdleWatch ends.
constexpr auto kIdleGrace = std::chrono::milliseconds(20);
constexpr auto kIdlePoll = std::chrono::microseconds(250);
constexpr auto kFirstIdlePoll = std::chrono::microseconds(20);
constexpr auto kIdleWindow = std::chrono::milliseconds(10);
constexpr auto kIdleWatch = std::chrono::milliseconds(250);
constexpr double kBusyCpu = 2.5e-3;

}  // namespace

std::optional<std::string> idle_breach(RunnerChild& child) {
  constexpr const char* kForged = "sent a message it was not asked for (a forged reply)";
  if (child.unexpected_message()) return kForged;
  const auto grace_end = Clock::now() + kIdleGrace;
  int runnable = 0;
  // Most children are idle within tens of microseconds of their reply: the first looks come
  // soon, then every kIdlePoll.
  auto poll = kFirstIdlePoll;
  while ((runnable = child.running_threads()) > 0 && Clock::now() < grace_end) {
    std::this_thread::sleep_for(poll);
    poll = std::min(2 * poll, std::chrono::duration_cast<decltype(poll)>(kIdlePoll));
  }
  const double before = runnable > 0 ? child.cpu_seconds() : -1.0;
  const auto t0 = Clock::now();
  auto watching = [&] {
    const auto watched = Clock::now() - t0;
    return watched < kIdleWindow || (watched < kIdleWatch && child.running_threads() > 0);
  };
  while (before >= 0 && watching()) {
    std::this_thread::sleep_for(kIdlePoll);
    const double used = child.cpu_seconds() - before;
    if (used > kBusyCpu) {
      return fmt::format(
          "left a thread running after its call returned ({:.1f} ms of CPU in the {:.1f} ms "
          "that followed a {} ms grace)",
          used * 1e3, seconds_since(t0) * 1e3, kIdleGrace.count());
    }
  }
  if (child.unexpected_message()) return kForged;
  return std::nullopt;
}

}  // namespace headway::cpu
