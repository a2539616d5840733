#include "targets/cuda/runner/server.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/shared_memory.h"
#include "kernels/input_sets.h"
#include "kernels/verify.h"
#include "targets/cuda/device_args.h"
#include "targets/cuda/runner/checked_call.h"
#include "targets/cuda/runner/own_kernels.h"

namespace headway::cuda_runner {
namespace {

// The arms of a session over shared input sets; runner_main.cc's file comment has the protocol.
class Server {
 public:
  Server(Gpu& gpu, const KernelContract& kernel, const Options& o)
      : gpu_(gpu),
        kernel_(kernel),
        sets_(kernel, o.seed, o.sets, o.sets),
        host_writable_(sets_.new_writable_block(1)),
        base_writable_(sets_.new_writable_block(1)),
        secret_(std::random_device{}()),
        flush_(gpu, std::max<size_t>(2 * (static_cast<size_t>(gpu.info().l2_bytes) / 16 * 16),
                                     64u << 20)),
        flush_read_(gpu),
        timer_(gpu) {
    for (int s = 0; s < sets_.count(); ++s) {
      device_sets_.emplace_back(gpu, sets_.set_bytes());
      auto view = sets_.view(s, host_writable_->data());
      gpu.upload(device_sets_.back().address(), view->input_block(), sets_.set_bytes());
    }
    writable_bytes_ = sets_.view(0, host_writable_->data())->layout().writable_bytes;
  }

  // An error for the arm's module, or "".
  std::string add_arm(const std::string& path) {
    auto module = gpu_.load(path);
    if (!module) return module.error().message;
    Arm arm;
    arm.scratch = DeviceBuffer(gpu_, module.value().plan.scratch_bytes);
    arm.writable = DeviceBuffer(gpu_, writable_bytes_);
    arm.module = std::move(module).value();
    arms_.push_back(std::move(arm));
    return "";
  }

  int serve() {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line == "quit") return 0;
      if (line == "verify") {
        std::cout << verify_all() << std::endl;
        continue;
      }
      int arm = -1;
      char mode[16] = "";
      const int fields = std::sscanf(line.c_str(), "read %d %15s", &arm, mode);
      const bool paired = fields == 2 && std::string(mode) == "paired";
      if (fields < 1 || (fields == 2 && !paired) || arm < 0 ||
          arm >= static_cast<int>(arms_.size())) {
        std::cout << "error bad request '" << line << "'" << std::endl;
        continue;
      }
      try {
        std::cout << reading(arm, paired) << std::endl;
      } catch (const DriverFailure& e) {
        std::cout << "fail " << arm << " " << e.what() << std::endl;
        return 4;
      }
    }
    return 0;
  }

 private:
  struct Arm {
    Module module;
    DeviceBuffer writable, scratch;
    bool last_verified = false;  // the arm's last call was verified
    int last_set = -1;
    uint64_t last_patch = 0;
  };
  // The reading before this one, when it ended "ok": whose, on what, and what it wrote.
  struct LastReading {
    int arm = -1;
    int set = -1;
    uint64_t patch = 0;
    std::vector<std::byte> writes;
  };

  void upload_patch(int set) {
    const std::byte* host = sets_.view(set, host_writable_->data())->input_block();
    for (const auto& [offset, bytes] : sets_.patched_ranges())
      gpu_.upload(device_sets_[static_cast<size_t>(set)].address() + offset, host + offset, bytes);
  }

  // The arm's last call (set, patch) against the reference; its outputs are still on the device.
  // `check_inputs`: the set still holds the call's inputs on the device, so compare them too.
  std::string verify_last(Arm& arm, bool check_inputs) {
    arm.last_verified = true;
    auto view = sets_.view(arm.last_set, host_writable_->data());
    if (!check_inputs) sets_.prepare(arm.last_set, arm.last_patch, host_writable_->data());
    const auto expected = kernel_.reference(*view);
    const Snapshot before = take_snapshot(*view);
    std::string why;
    if (check_inputs) {
      std::vector<std::byte> device_inputs(sets_.set_bytes());
      gpu_.download(device_inputs.data(), device_sets_[static_cast<size_t>(arm.last_set)].address(),
                    sets_.set_bytes());
      if (std::string region = changed_input(*view, device_inputs.data()); !region.empty())
        why = "a timed call wrote into input `" + region + "`";
    }
    if (why.empty()) {
      gpu_.download(host_writable_->data(), arm.writable.address(), writable_bytes_);
      if (auto v = verify(kernel_, *view, before, expected)) why = "a timed call: " + v->describe();
    }
    if (!check_inputs) sets_.restore(arm.last_set, arm.last_patch);
    // The outputs downloaded above (cache rows included) must not reach a later call's upload.
    std::memcpy(host_writable_->data(), base_writable_->data(), writable_bytes_);
    return why;
  }

  // Why `writes`, left by a call on `set` patched with `patch`, are wrong, or "". The set must
  // hold that patch on the host (prepare); host_writable_ is left holding the given values.
  std::string wrong_writes(int set, uint64_t patch, const std::vector<std::byte>& writes) {
    sets_.prepare(set, patch, host_writable_->data());
    auto view = sets_.view(set, host_writable_->data());
    const auto expected = kernel_.reference(*view);
    std::memcpy(host_writable_->data(), writes.data(), writable_bytes_);
    const Snapshot snapshot = take_snapshot(*view);
    std::string why;
    if (auto v = verify(kernel_, *view, snapshot, expected)) why = v->describe();
    sets_.prepare(set, patch, host_writable_->data());
    return why;
  }

  // Compares arm i's call, whose writes are `mine`, with `last`'s on the same inputs; where they
  // disagree the reference judges both. A breach reply, or "".
  std::string compare_with(const LastReading& last, int i, const std::vector<std::byte>& mine) {
    std::vector<std::byte> theirs_block(writable_bytes_), mine_block(writable_bytes_);
    std::memcpy(theirs_block.data(), last.writes.data(), writable_bytes_);
    std::memcpy(mine_block.data(), mine.data(), writable_bytes_);
    const auto a = sets_.view(last.set, mine_block.data());
    const auto b = sets_.view(last.set, theirs_block.data());
    if (!disagreement(kernel_, *a, *b, kAgreeShare)) return "";
    using Call = std::pair<int, const std::vector<std::byte>*>;  // an arm and what it wrote
    for (const auto& [who, writes] : {Call{i, &mine}, Call{last.arm, &last.writes}}) {
      if (std::string why = wrong_writes(last.set, last.patch, *writes); !why.empty()) {
        return "breach " + std::to_string(who) +
               " a timed call's output is wrong (it disagreed with the other arm's call on the "
               "same inputs): " +
               why;
      }
    }
    return "";
  }

  std::string reading(int i, bool paired) {
    Arm& arm = arms_[static_cast<size_t>(i)];
    std::optional<LastReading> same;
    if (paired && last_ && last_->arm != i) same = std::move(last_);
    last_.reset();
    const int set =
        same ? same->set : static_cast<int>(secret_() % static_cast<uint64_t>(sets_.count()));
    const uint64_t patch = same ? same->patch : secret_();
    // The warm-up: one untimed launch on the next set (its own draw, unpatched), so that the
    // timed launch meets a loaded module and a running clock, not a first call.
    const int warm_set = (set + 1) % sets_.count();
    {
      std::memcpy(host_writable_->data(), base_writable_->data(), writable_bytes_);
      gpu_.upload(arm.writable.address(), host_writable_->data(), writable_bytes_);
      auto view = sets_.view(warm_set, host_writable_->data());
      auto args =
          cuda::device_args(kernel_, *view, device_sets_[static_cast<size_t>(warm_set)].address(),
                            arm.writable.address());
      gpu_.launch(arm.module, args, arm.scratch.address());
    }
    sets_.prepare(set, patch, host_writable_->data());
    upload_patch(set);
    gpu_.upload(arm.writable.address(), host_writable_->data(), writable_bytes_);
    auto view = sets_.view(set, host_writable_->data());
    auto args = cuda::device_args(kernel_, *view, device_sets_[static_cast<size_t>(set)].address(),
                                  arm.writable.address());
    // Outside the timed span: clear the scratch, and read a buffer twice the L2's size so that
    // no input is in the L2 when the plan starts and no dirty line is either (own_kernels.h).
    gpu_.check(
        gpu_.api().cuMemsetD8Async(arm.scratch.address(), 0, arm.scratch.bytes(), gpu_.stream()),
        "cuMemsetD8Async");
    flush_read_.launch(flush_.address(), flush_.bytes());
    timer_.start();
    gpu_.launch(arm.module, args, arm.scratch.address());
    const double seconds = timer_.stop();
    const auto clock = gpu_.clock();
    arm.last_set = set;
    arm.last_patch = patch;
    arm.last_verified = false;
    std::vector<std::byte> writes(writable_bytes_);
    gpu_.download(writes.data(), arm.writable.address(), writable_bytes_);
    // A paired call is compared with the other arm's; about one call in eight is also verified
    // at once, and verify_all() verifies each arm's last call, so an arm that turns wrong after
    // some unpaired calls is caught at the end of the session.
    std::string breach;
    if (same) breach = compare_with(*same, i, writes);
    if (breach.empty() && secret_() % 8 == 0) {
      if (std::string why = verify_last(arm, true); !why.empty())
        breach = "breach " + std::to_string(i) + " " + why;
    }
    sets_.restore(set, patch);
    upload_patch(set);
    std::memcpy(host_writable_->data(), base_writable_->data(), writable_bytes_);
    if (!breach.empty()) return breach;
    if (!same) last_ = LastReading{i, set, patch, std::move(writes)};
    char reply[128];
    std::snprintf(reply, sizeof reply, "ok %.9g %u %d %d", seconds, clock ? clock->mhz : 0u,
                  clock && clock->throttled ? 1 : 0, same ? 1 : 0);
    return reply;
  }

  std::string verify_all() {
    for (size_t i = 0; i < arms_.size(); ++i) {
      Arm& arm = arms_[i];
      if (arm.last_verified || arm.last_set < 0) continue;
      if (std::string why = verify_last(arm, false); !why.empty())
        return "breach " + std::to_string(i) + " " + why;
    }
    return "verified";
  }

  Gpu& gpu_;
  const KernelContract& kernel_;
  InputSets sets_;
  std::unique_ptr<SharedMemory> host_writable_;
  std::unique_ptr<SharedMemory> base_writable_;  // the base draw's writable block, never written
  size_t writable_bytes_ = 0;
  std::mt19937_64 secret_;
  std::vector<DeviceBuffer> device_sets_;
  std::vector<Arm> arms_;
  std::optional<LastReading> last_;
  DeviceBuffer flush_;
  ReadStream flush_read_;
  EventTimer timer_;
};

}  // namespace

int run_serve(Gpu& gpu, const Options& o) {
  const cuda::LoadedKernel loaded = kernel_of(o);
  const KernelContract& kernel = *loaded.kernel;
  if (o.modules.empty()) usage("serve takes at least one --module");
  Server server(gpu, kernel, o);
  for (size_t i = 0; i < o.modules.size(); ++i) {
    if (std::string why = server.add_arm(o.modules[i]); !why.empty()) {
      std::cout << "unloadable " << i << " " << why << std::endl;
      return 0;
    }
  }
  std::cout << "ready " << o.modules.size() << std::endl;
  return server.serve();
}

}  // namespace headway::cuda_runner
