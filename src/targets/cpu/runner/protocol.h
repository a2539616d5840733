#pragma once
// The messages between headway and its runner processes (runner_main.cc beside this file). Every
// socket is a SOCK_SEQPACKET pair: one message per send, never split or merged.
//
// headway ──control──► host: a sandboxed process that runs no candidate code. For every reading
//   it forks a fresh child for one arm; the child maps the inputs read-only and its arm's
//   writable block, installs the system-call filter, loads the arm's object and then serves
//   calls on its own channel (a socket headway sends along with the spawn request).
// headway ◄─channel──► child: kPrepared once its buffers are mapped and their pages touched,
//   before any candidate code is in the process; the child then waits for kLoad (headway reads
//   the CPU time it has used meanwhile: the runner's own, not the candidate's). Then kReady once
//   loaded (or kLoadFailed), then one kDone per kCall or kPing. A kCall runs `count` calls back to
//   back: call k on input set `set + k`, writing into slot k of the arm's writable block (slots of
//   BufferLayout::writable_bytes rounded up to a page). headway times the request to the kernel's
//   stamp of the reply: nothing the child says is a measurement.
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "kernels/input_sets.h"

namespace headway::cpu::runner {

// Sends one message on a SOCK_SEQPACKET socket; false when it could not be sent whole.
inline bool send_message(int fd, const void* data, size_t n) {
  ssize_t w;
  do {
    w = send(fd, data, n, MSG_NOSIGNAL);
  } while (w < 0 && errno == EINTR);
  return w == static_cast<ssize_t>(n);
}

inline constexpr int kControlFd = 3;   // the host's end of the control socket
inline constexpr int kInputsFd = 4;    // the input sets, read-only
inline constexpr int kFirstArmFd = 5;  // per arm: writable block fd, then object fd

// An arm's writable block holds slots writable_slot_bytes apart (kernels/input_sets.h).
using headway::writable_slot_bytes;

enum class Op : uint32_t {
  kSpawn = 1,       // headway → host (with the child's channel fd)
  kSpawned = 2,     // host → headway
  kExited = 3,      // host → headway: a child ended
  kReady = 4,       // child → headway
  kLoadFailed = 5,  // child → headway
  kCall = 6,        // headway → child
  kPing = 7,        // headway → child: an empty call, for the round trip
  kDone = 8,        // child → headway
  kPrepared = 9,    // child → headway: mapped and touched, nothing loaded yet
  kLoad = 10,       // headway → child: load the object now
};

struct SpawnRequest {
  Op op = Op::kSpawn;
  uint32_t arm = 0;
  int32_t populate_first = 0;  // input sets whose pages the child maps and touches before loading
  int32_t populate_count = 0;
  // Non-zero: the child runs on one CPU (the one it starts on) and the harness runs the threads
  // of each hw_parallel_run one after another on the calling thread (one-core readings).
  int32_t one_core = 0;
};

struct ChildEvent {
  Op op = Op::kSpawned;
  uint32_t arm = 0;
  int32_t pid = 0;          // in the host's PID namespace
  int32_t wait_status = 0;  // kExited: as from waitpid
  int64_t cpu_ns = 0;       // kExited: user plus system time of the child's whole life
  int64_t max_rss_kib = 0;  // kExited
};

struct Command {
  Op op = Op::kCall;
  int32_t set = 0;
  int32_t count = 1;
  // After replying, the child polls for the next request for this long before it blocks, so that
  // a request that follows at once does not wait for an idle core to wake.
  int32_t poll_after_us = 0;
  // Non-zero: the harness's workers (harness_pool.h), where the candidate started them, spin from
  // before this request's reply until the reply of the next request; zero: they go to sleep
  // before this request's reply. Asked for by the warm-up call and by the ping just before a
  // timed request, so that the workers are hot when it comes (the child is stopped in between).
  // kStartWorkers: the same, the pool started first where the candidate has not started it yet
  // (the ping before the timed request of an arm that makes no warm-up call).
  int32_t hot_workers = 0;
};

inline constexpr int32_t kStartWorkers = 2;

struct Reply {
  Op op = Op::kDone;
  // Threads of the harness's pool (its workers and the calling thread) once it is started, else
  // 0. Said by the child, which could lie: headway uses it only to skip an arm's warm-up call,
  // which a lie would cost the arm itself.
  int32_t harness_threads = 0;
  int64_t runner_ns = 0;  // the child's own measure of the calls: a cross-check only
  char message[240] = {};
};

}  // namespace headway::cpu::runner
