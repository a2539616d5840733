#include "targets/cpu/runner_child.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "common/wait_readable.h"
#include "targets/cpu/runner_host.h"

namespace headway::cpu {

using Clock = std::chrono::steady_clock;

RunnerChild::~RunnerChild() {
  if (alive_) finish();
  close(channel_);
}

CallResult RunnerChild::collect_death(bool timed_out) {
  // The host reports the exit of its child; the kill makes sure there is one to report.
  if (pid_ > 0) kill(pid_, SIGKILL);
  alive_ = false;
  const auto event = host_.wait_exit(ns_pid_, 5.0);
  CallResult r;
  if (event) {
    fate_ = {true, event->wait_status, static_cast<double>(event->cpu_ns) * 1e-9,
             static_cast<uint64_t>(event->max_rss_kib) * 1024};
  }
  const int status = fate_.wait_status;
  const uint64_t limit = host_.spec_.limits.memory_limit_bytes;
  if (timed_out) {
    r.status = CallResult::Status::kTimedOut;
    r.message = fmt::format("timed out after {:g} s and was killed",
                            host_.spec_.limits.call_timeout_seconds);
  } else if (!event) {
    r.status = CallResult::Status::kCrashed;
    r.signal = SIGKILL;
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
    r.status = CallResult::Status::kForbiddenCall;
  } else if (fate_.max_rss_bytes >= limit * 9 / 10) {
    r.status = CallResult::Status::kMemoryExceeded;
    r.message = fmt::format("exceeded the memory limit of {} MiB (peak resident {} MiB)",
                            limit >> 20, fate_.max_rss_bytes >> 20);
  } else if (WIFSIGNALED(status)) {
    r.status = CallResult::Status::kCrashed;
    r.signal = WTERMSIG(status);
  } else {
    r.status = CallResult::Status::kExited;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  death_ = r;
  return r;
}

namespace {

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// The receive timestamp the kernel put on the message just read (SCM_TIMESTAMPNS), or -1.
int64_t stamp_of(msghdr& msg) {
  for (cmsghdr* h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h)) {
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_TIMESTAMPNS) {
      timespec ts;
      std::memcpy(&ts, CMSG_DATA(h), sizeof ts);
      return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
    }
  }
  return -1;
}

// How far the stamped duration may exceed the steady clock's bracket around it before the
// stamp is not believed (a step of the wall clock during the call).
constexpr double kStampSlackSeconds = 200e-6;

}  // namespace

CallResult RunnerChild::exchange(const runner::Command& command) {
  if (!alive_) return death_;
  const auto t0 = Clock::now();
  const int64_t sent_ns = realtime_ns();
  if (!runner::send_message(channel_, &command, sizeof command)) return collect_death(false);
  const int ready =
      wait_readable(channel_, poll_timeout_ms(host_.spec_.limits.call_timeout_seconds));
  runner::Reply reply;
  iovec iov{&reply, sizeof reply};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec)) + CMSG_SPACE(sizeof(ucred))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  ssize_t r = -1;
  if (ready == 1) {
    do {
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      r = recvmsg(channel_, &msg, 0);
    } while (r < 0 && errno == EINTR);
  }
  const auto t1 = Clock::now();
  if (ready == 0) return collect_death(true);
  if (r <= 0) return collect_death(false);
  CallResult result;
  if (r != sizeof reply || reply.op != runner::Op::kDone) {
    collect_death(false);
    result.status = CallResult::Status::kCrashed;
    result.signal = SIGKILL;
    result.message = "sent a reply that is not one (a forged or corrupted message)";
    death_ = result;
    return result;
  }
  const double bracket = std::chrono::duration<double>(t1 - t0).count();
  const int64_t stamp = stamp_of(msg);
  const double stamped = static_cast<double>(stamp - sent_ns) * 1e-9;
  result.stamped = stamp > 0 && stamped >= 0 && stamped <= bracket + kStampSlackSeconds;
  result.seconds = result.stamped ? stamped : bracket;
  result.runner_seconds = static_cast<double>(reply.runner_ns) * 1e-9;
  harness_threads_ = reply.harness_threads;
  result.start_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count();
  return result;
}

CallResult RunnerChild::call(int set, int next_within_us, int count, bool hot_workers) {
  return exchange({runner::Op::kCall, set, count, next_within_us, hot_workers ? 1 : 0});
}
CallResult RunnerChild::ping(int next_within_us, bool hot_workers, bool start_workers) {
  const int32_t workers = start_workers ? runner::kStartWorkers : int32_t{hot_workers};
  return exchange({runner::Op::kPing, -1, 1, next_within_us, workers});
}

bool RunnerChild::unexpected_message() const {
  pollfd p{channel_, POLLIN, 0};
  return alive_ && poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

std::string RunnerChild::thread_states() const {
  if (!alive_ || pid_ <= 0) return {};
  const std::string dir = fmt::format("/proc/{}/task", pid_);
  DIR* d = opendir(dir.c_str());
  if (!d) return {};
  std::string states;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream stat(dir + "/" + e->d_name + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close_paren = line.rfind(')');
    if (close_paren != std::string::npos && close_paren + 2 < line.size())
      states += line[close_paren + 2];
  }
  closedir(d);
  return states;
}

int RunnerChild::running_threads() const {
  const std::string states = thread_states();
  if (states.empty()) return -1;
  return static_cast<int>(
      std::count_if(states.begin(), states.end(), [](char c) { return c == 'R' || c == 'D'; }));
}

bool RunnerChild::pause(double timeout_seconds) {
  if (!alive_ || pid_ <= 0 || kill(pid_, SIGSTOP) != 0) return false;
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    const std::string states = thread_states();
    if (!states.empty() && states.find_first_not_of("Tt") == std::string::npos) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void RunnerChild::resume() {
  if (alive_ && pid_ > 0) kill(pid_, SIGCONT);
}

int RunnerChild::thread_count() const {
  if (!alive_ || pid_ <= 0) return -1;
  std::error_code ec;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid_), ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return ec ? -1 : n;
}

double RunnerChild::cpu_seconds() const {
  clockid_t clock;
  timespec ts{};
  if (!alive_ || pid_ <= 0 || clock_getcpuclockid(pid_, &clock) != 0 ||
      clock_gettime(clock, &ts) != 0)
    return -1.0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

ChildFate RunnerChild::finish() {
  if (alive_) collect_death(false);
  return fate_;
}

}  // namespace headway::cpu
