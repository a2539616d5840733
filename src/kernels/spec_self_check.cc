#include "kernels/spec_self_check.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>

#include "kernels/verify.h"

namespace headway {

namespace {

// Writes the expected values, rounded to each region's type, where the kernel would write them.
void write_expected(SharedBuffers& buffers, const std::vector<ExpectedOutput>& expected) {
  for (const auto& e : expected) {
    const ElementType type = buffers.specs()[e.region].element;
    std::byte* base = buffers.bytes(e.region).data();
    for (size_t i = 0; i < e.values.size(); ++i)
      write_element(type, base, e.first_element + i, e.values[i]);
  }
}

}  // namespace

Result<void> self_check(const KernelContract& kernel, uint64_t seed) {
  SharedBuffers buffers(kernel.regions());
  kernel.generate(seed, buffers);
  const std::vector<ExpectedOutput> expected = kernel.reference(buffers);
  size_t judged = 0;
  for (const auto& e : expected) {
    const std::string& region = buffers.specs()[e.region].name;
    for (size_t i = 0; i < e.values.size(); ++i) {
      if (!std::isfinite(e.values[i])) {
        return invalid_input(fmt::format("the reference gives `{}`[{}] = {}: it must be finite",
                                         region, e.first_element + i, e.values[i]));
      }
    }
    judged += e.values.size();
  }
  if (judged == 0) return invalid_input("the reference writes nothing that could be judged");
  const Snapshot before = take_snapshot(buffers);
  poison_outputs(buffers, expected);
  write_expected(buffers, expected);
  if (auto v = verify(kernel, buffers, before, expected)) {
    return invalid_input(fmt::format(
        "outputs holding the reference's own values, rounded to their types, fail: {} (the "
        "tolerance is tighter than the output type holds)",
        v->describe()));
  }
  // One element off by half the output's root mean square must fail: a tolerance that lets it
  // pass cannot tell a wrong kernel from a right one.
  const ExpectedOutput& first = expected.front();
  const ElementType type = buffers.specs()[first.region].element;
  const Tolerance tol = kernel.tolerance();
  double sum_sq = 0;
  for (const double v : first.values) sum_sq += v * v;
  const double rms = std::sqrt(sum_sq / static_cast<double>(first.values.size()));
  const double e = first.values.front();
  const double wrong = e + (rms > 0 ? 0.5 * rms : 1.0);
  write_element(type, buffers.bytes(first.region).data(), first.first_element, wrong);
  if (!verify(kernel, buffers, before, expected)) {
    return invalid_input(fmt::format(
        "a wrong output passes: `{}`[{}] = {:.6g} where the reference says {:.6g} (atol {}, rtol "
        "{})",
        buffers.specs()[first.region].name, first.first_element,
        read_element(type, buffers.bytes(first.region).data(), first.first_element), e, tol.atol,
        tol.rtol));
  }
  return {};
}

Result<void> self_check_in_child(const KernelContract& kernel, uint64_t seed,
                                 double timeout_seconds) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return environment_error("cannot make a pipe for the check");
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return environment_error("cannot fork to run the reference");
  }
  if (pid == 0) {
    close(fds[0]);
    const auto judged = self_check(kernel, seed);
    const std::string message = judged ? "" : judged.error().message;
    size_t at = 0;
    while (at < message.size()) {
      const ssize_t w = write(fds[1], message.data() + at, message.size() - at);
      if (w <= 0) break;
      at += static_cast<size_t>(w);
    }
    _exit(judged ? 0 : 1);
  }
  close(fds[1]);
  std::string message;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n <= 0) break;  // the child is done
    message.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return invalid_input(fmt::format("the reference ran past {:g} s", timeout_seconds));
  if (WIFSIGNALED(status)) {
    return invalid_input(fmt::format("the reference crashed: {}", strsignal(WTERMSIG(status))));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  return invalid_input(message.empty() ? "the check of the reference failed" : message);
}

}  // namespace headway
