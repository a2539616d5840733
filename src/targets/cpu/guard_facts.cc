#include "targets/cpu/guard_facts.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/cache_flush.h"
#include "common/stats.h"

namespace headway::cpu {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The set a reading flushes is mostly out of the caches already, with the lines it read or
// patched in them: the buffer is read whole before every flush, so that its last part (as much
// as the caches hold) is cached.
double flush_gbps(std::vector<std::byte>& buffer, FlushInstruction instruction, int readings) {
  std::vector<double> rates;
  volatile uint64_t sink = 0;
  for (int r = 0; r < readings; ++r) {
    uint64_t sum = 0;
    for (size_t i = 0; i < buffer.size(); i += 64) sum += static_cast<uint8_t>(buffer[i]);
    sink = sink + sum;
    const auto t = Clock::now();
    flush_lines(buffer.data(), buffer.size(), instruction);
    rates.push_back(static_cast<double>(buffer.size()) / seconds_since(t) / 1e9);
  }
  return median(rates);
}

pid_t fork_or_throw() {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  return pid;
}

double fork_wait_seconds() {
  const auto t = Clock::now();
  const pid_t pid = fork_or_throw();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return seconds_since(t);
}

// One child spins while the parent stops and resumes it `readings` times.
std::vector<double> stop_resume_seconds(int readings) {
  const pid_t pid = fork_or_throw();
  if (pid == 0) {
    volatile uint64_t spins = 0;
    for (;;) spins = spins + 1;
  }
  std::vector<double> out;
  for (int r = 0; r < readings; ++r) {
    int status = 0;
    const auto t = Clock::now();
    kill(pid, SIGSTOP);
    waitpid(pid, &status, WUNTRACED);
    kill(pid, SIGCONT);
    waitpid(pid, &status, WCONTINUED);
    out.push_back(seconds_since(t));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

}  // namespace

GuardFacts measure_guard_facts(int readings) {
  readings = std::max(readings, 3);
  GuardFacts facts;
  facts.flush_bytes = 64ull << 20;
  std::vector<std::byte> buffer(facts.flush_bytes, std::byte{1});
  facts.clflush_gbps = flush_gbps(buffer, FlushInstruction::kClflush, readings);
  if (cpu_has(FlushInstruction::kClflushopt))
    facts.clflushopt_gbps = flush_gbps(buffer, FlushInstruction::kClflushopt, readings);
  facts.flush_used = std::string(to_string(best_flush_instruction()));
  std::vector<double> forks;
  for (int r = 0; r < readings; ++r) forks.push_back(fork_wait_seconds());
  facts.fork_wait_ms = 1e3 * median(forks);
  facts.stop_resume_ms = 1e3 * median(stop_resume_seconds(readings));
  facts.method = fmt::format(
      "medians of {} readings: a {} MiB buffer read whole, then flushed line by line with a "
      "fence after the last; fork, _exit and waitpid of a child of a {} MiB process; SIGSTOP to a "
      "spinning child until waitpid sees it stopped, then SIGCONT until it sees it running",
      readings, facts.flush_bytes >> 20, facts.flush_bytes >> 20);
  return facts;
}

}  // namespace headway::cpu
