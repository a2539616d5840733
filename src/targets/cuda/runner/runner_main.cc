// headway-cuda-runner: the process that holds the GPU for the cuda target (src/targets/cuda/).
// It runs no candidate code on the host: a candidate is a device module whose plan (hw_plan) this
// program launches, so the clock (CUDA events around the plan) and the checks are headway's.
//
//   headway-cuda-runner info
//   headway-cuda-runner check --kernel K [--spec FILE --shape-set S] --module FILE --seed N
//   headway-cuda-runner serve --kernel K [--spec FILE --shape-set S] --seed N [--sets S]
//                             --module FILE [--module FILE ...]
//   headway-cuda-runner facts [--readings N]
//
// K is a built-in kernel, or with --spec the kernel of that spec file at shape set S
// (runner_kernel.h: its reference and generator are built in the runner, under the build cache).
// info, check and facts print one JSON object. serve answers one line per request line on stdin:
//   read I   -> "ok SECONDS SM_MHZ THROTTLED COMPARED" (SM_MHZ 0 when unknown; COMPARED below),
//               "breach J REASON" (arm J broke a rule: a wrong timed output, a write into its
//               inputs) or "fail I REASON" (the device failed under arm I; the runner exits after
//               it: the context is lost). A reading is a warm-up launch of arm I's plan on
//               another set, then one timed launch on a set drawn at random and patched anew.
//   read I paired -> the same, on the set and patch of the reading just before when that was
//               another arm's and ended "ok": then the two calls' writes are compared element
//               by element, and where they differ by more than kAgreeShare of the tolerance the
//               reference judges both (a wrong one is a "breach" of its arm). COMPARED is 1 when
//               the comparison was made, else 0 (the reading was a fresh one).
//   verify   -> every arm's last timed call, unless it was verified already, is verified:
//               "verified" or "breach I REASON"
// Exit status: 0 done, 2 bad usage, 3 no usable GPU ("headway-cuda-runner: no GPU is present:
// WHY" on stderr), 4 a driver failure.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/cache_dir.h"
#include "common/rng.h"
#include "common/shared_memory.h"
#include "common/stats.h"
#include "kernels/contract.h"
#include "kernels/input_sets.h"
#include "kernels/verify.h"
#include "targets/cuda/device_args.h"
#include "targets/cuda/runner/gpu.h"
#include "targets/cuda/runner/own_kernels.h"
#include "targets/cuda/runner_kernel.h"

namespace headway::cuda_runner {
namespace {

using nlohmann::json;

struct Options {
  std::string mode;
  std::string kernel;
  std::string spec, shape_set;  // a spec kernel's file and shape set; empty: a built-in kernel
  std::vector<std::string> modules;
  uint64_t seed = 1;
  int sets = 4;
  int readings = 11;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "headway-cuda-runner: %s\n", why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("a mode is needed: info, check, serve or facts");
  o.mode = argv[1];
  for (int i = 2; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) usage(key + " needs a value");
    const std::string value = argv[i + 1];
    try {
      if (key == "--kernel")
        o.kernel = value;
      else if (key == "--spec")
        o.spec = value;
      else if (key == "--shape-set")
        o.shape_set = value;
      else if (key == "--module")
        o.modules.push_back(value);
      else if (key == "--seed")
        o.seed = std::stoull(value);
      else if (key == "--sets")
        o.sets = std::max(2, std::stoi(value));
      else if (key == "--readings")
        o.readings = std::max(3, std::stoi(value));
      else
        usage("unknown option " + key);
    } catch (const std::logic_error&) {
      usage(key + " takes a number, not '" + value + "'");
    }
  }
  return o;
}

cuda::LoadedKernel kernel_of(const Options& o) {
  auto loaded = cuda::load_runner_kernel(o.kernel, o.spec, o.shape_set, build_cache_dir());
  if (!loaded) usage(loaded.error().message);
  return std::move(loaded).value();
}

// The first region whose bytes differ between two input blocks of one layout, or "".
std::string changed_input(const SharedBuffers& expected, const std::byte* actual) {
  const auto& specs = expected.specs();
  for (size_t r = 0; r < specs.size(); ++r) {
    if (!expected.layout().in_inputs[r]) continue;
    const auto want = expected.bytes(r);
    if (std::memcmp(want.data(), actual + expected.layout().offset[r], want.size()) != 0)
      return specs[r].name;
  }
  return "";
}

// Checks one call on the device's copy of `host`: poisons the outputs, uploads both blocks,
// launches, downloads and verifies. Returns "" when correct, else the violation.
std::string checked_call(Gpu& gpu, const KernelContract& kernel, const Module& module,
                         SharedBuffers& host, DeviceBuffer& inputs, DeviceBuffer& writable,
                         DeviceBuffer& scratch) {
  const auto expected = kernel.reference(host);
  poison_outputs(host, expected);
  const Snapshot before = take_snapshot(host);
  const BufferLayout& layout = host.layout();
  gpu.upload(inputs.address(), host.input_block(), layout.input_bytes);
  gpu.upload(writable.address(), host.writable_block(), layout.writable_bytes);
  gpu.check(gpu.api().cuMemsetD8Async(scratch.address(), 0, scratch.bytes(), gpu.stream()),
            "cuMemsetD8Async");
  auto args = cuda::device_args(kernel, host, inputs.address(), writable.address());
  gpu.launch(module, args, scratch.address());
  gpu.synchronize();
  gpu.download(host.writable_block(), writable.address(), layout.writable_bytes);
  std::vector<std::byte> device_inputs(layout.input_bytes);
  gpu.download(device_inputs.data(), inputs.address(), layout.input_bytes);
  if (std::string region = changed_input(host, device_inputs.data()); !region.empty())
    return "wrote into input `" + region + "`";
  if (auto v = verify(kernel, host, before, expected)) return v->describe();
  return "";
}

int run_check(Gpu& gpu, const Options& o) {
  const cuda::LoadedKernel loaded = kernel_of(o);
  const KernelContract& kernel = *loaded.kernel;
  if (o.modules.size() != 1) usage("check takes one --module");
  json out = {{"seed", o.seed}, {"bytes_to_move", kernel.bytes_to_move()}};
  auto module = gpu.load(o.modules[0]);
  if (!module) {
    out["status"] = "unloadable";
    out["kind"] = "bad-module";
    out["description"] = module.error().message;
    std::cout << out.dump() << "\n";
    return 0;
  }
  SharedBuffers host(kernel.regions());
  DeviceBuffer inputs(gpu, host.layout().input_bytes);
  DeviceBuffer writable(gpu, host.layout().writable_bytes);
  DeviceBuffer scratch(gpu, module.value().plan.scratch_bytes);
  // The second call brings other weights at the same addresses: nothing kept from the first
  // call may be reused.
  const uint64_t seeds[] = {o.seed, mix_seed(o.seed, 0xc0ffee)};
  for (int call = 0; call < 2; ++call) {
    kernel.generate(seeds[call], host);
    std::string violation;
    try {
      violation = checked_call(gpu, kernel, module.value(), host, inputs, writable, scratch);
    } catch (const DriverFailure& e) {
      out["status"] = "crashed";
      out["kind"] = "device-fault";
      out["description"] = std::string("call ") + std::to_string(call + 1) + ": " + e.what();
      std::cout << out.dump() << "\n";
      return 0;
    }
    if (!violation.empty()) {
      out["status"] = "incorrect";
      out["kind"] = call == 0 ? "wrong-output" : "wrong-output-after-new-weights";
      out["description"] = std::string("call ") + std::to_string(call + 1) + ": " + violation;
      std::cout << out.dump() << "\n";
      return 0;
    }
  }
  out["status"] = "correct";
  out["kind"] = "correct";
  out["description"] = "two calls correct (the second with new weights at the same addresses)";
  std::cout << out.dump() << "\n";
  return 0;
}

// The arms of a session over shared input sets; see the file comment for the protocol.
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

json device_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"compute_capability", std::to_string(d.major) + "." + std::to_string(d.minor)},
          {"arch", "sm_" + std::to_string(d.major) + std::to_string(d.minor)},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"max_shared_per_block", d.max_shared_optin},
          {"sm_clock_mhz", d.sm_clock_khz / 1000},
          {"memory_clock_mhz", d.memory_clock_khz / 1000},
          {"bus_width_bits", d.bus_width_bits},
          {"memory_bytes", d.memory_bytes},
          {"driver_version", d.driver_version}};
}

json fact(const std::string& name, const std::vector<double>& values, const std::string& unit,
          const std::string& method) {
  return {{"name", name},
          {"value", median(values)},
          {"unit", unit},
          {"spread", values.size() > 1 ? 100.0 * coefficient_of_variation(values) : 0.0},
          {"method", method}};
}

int run_facts(Gpu& gpu, const Options& o) {
  const DeviceInfo& d = gpu.info();
  json facts = json::array();
  auto attribute = [&](const std::string& name, double value, const std::string& unit,
                       const std::string& what) {
    facts.push_back({{"name", name}, {"value", value}, {"unit", unit}, {"method", what}});
  };
  attribute("device.sm_count", d.sm_count, "SMs", "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT");
  attribute("cache.l2", d.l2_bytes / 1024.0, "KiB", "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE");
  attribute("device.sm_clock_max", d.sm_clock_khz / 1000.0, "MHz",
            "CU_DEVICE_ATTRIBUTE_CLOCK_RATE");
  attribute("device.memory", static_cast<double>(d.memory_bytes) / (1u << 30), "GiB",
            "cuDeviceTotalMem");

  EventTimer timer(gpu);
  // Copy bandwidth: device-to-device copies of 1 GiB (less on a small card), bytes read and
  // written both counted: the rate at which a kernel moves its bytes at best.
  const size_t big = std::min<size_t>(1u << 30, d.memory_bytes / 8 / 16 * 16);
  {
    DeviceBuffer a(gpu, big), b(gpu, big);
    std::vector<double> gbps;
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      gpu.check(gpu.api().cuMemcpyDtoDAsync(b.address(), a.address(), big, gpu.stream()), "copy");
      const double s = timer.stop();
      if (r >= 0) gbps.push_back(2.0 * static_cast<double>(big) / s / 1e9);
    }
    facts.push_back(fact("copy_bandwidth", gbps, "GB/s",
                         "cuMemcpyDtoDAsync of " + std::to_string(big >> 20) +
                             " MiB timed by CUDA events, bytes read plus written, median"));
    // Read bandwidth: the runner's read-only stream over the same buffer, bytes read counted.
    ReadStream read(gpu);
    gbps.clear();
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      read.launch(a.address(), big);
      const double s = timer.stop();
      if (r >= 0) gbps.push_back(static_cast<double>(big) / s / 1e9);
    }
    facts.push_back(fact("read_bandwidth", gbps, "GB/s",
                         "a read-only stream of " + std::to_string(big >> 20) +
                             " MiB (16-byte loads) timed by CUDA events, bytes read, median"));
  }
  // L2 bandwidth: the same copy over a quarter of the L2, 20 times between one pair of events.
  {
    const size_t small = std::max<size_t>(static_cast<size_t>(d.l2_bytes) / 4, 1u << 20);
    DeviceBuffer a(gpu, small), b(gpu, small);
    std::vector<double> gbps;
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      for (int k = 0; k < 20; ++k) {
        gpu.check(gpu.api().cuMemcpyDtoDAsync(b.address(), a.address(), small, gpu.stream()),
                  "copy");
      }
      const double s = timer.stop();
      if (r >= 0) gbps.push_back(40.0 * static_cast<double>(small) / s / 1e9);
    }
    facts.push_back(fact("l2_copy_bandwidth", gbps, "GB/s",
                         "20 device-to-device copies of a quarter of the L2, read plus written"));
  }
  // Launch overhead: back-to-back launches of an empty kernel on the device's timeline.
  {
    EmptyKernel empty(gpu);
    std::vector<double> us;
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      for (int k = 0; k < 1000; ++k) {
        empty.launch();
      }
      const double s = timer.stop();
      if (r >= 0) us.push_back(s / 1000.0 * 1e6);
    }
    facts.push_back(fact("launch_overhead", us, "us",
                         "1000 back-to-back launches of an empty kernel between two events"));
  }
  if (auto c = gpu.clock())
    attribute("device.sm_clock", c->mhz, "MHz", "NVML, after the benchmarks");
  std::cout << json{{"device", device_json(d)}, {"facts", facts}}.dump() << "\n";
  return 0;
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.mode != "info" && o.mode != "check" && o.mode != "serve" && o.mode != "facts")
    usage("unknown mode '" + o.mode + "' (info, check, serve or facts)");
  Gpu gpu;
  if (std::string why = gpu.open(); !why.empty()) {
    std::fprintf(stderr, "headway-cuda-runner: no GPU is present: %s\n", why.c_str());
    return 3;
  }
  try {
    if (o.mode == "info") {
      std::cout << device_json(gpu.info()).dump() << "\n";
      return 0;
    }
    if (o.mode == "check") return run_check(gpu, o);
    if (o.mode == "serve") return run_serve(gpu, o);
    return run_facts(gpu, o);
  } catch (const DriverFailure& e) {
    std::fprintf(stderr, "headway-cuda-runner: %s\n", e.what());
    return 4;
  }
}

}  // namespace
}  // namespace headway::cuda_runner

int main(int argc, char** argv) { return headway::cuda_runner::run(argc, argv); }
