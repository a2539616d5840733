#include "targets/registry/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "targets/command/command_target.h"
#include "targets/cpu/cpu_target.h"
#include "targets/cuda/cuda_target.h"
#include "targets/sim/sim_target.h"

namespace headway::targets {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, TargetMaker, std::less<>> makers;
  Registry() {
    makers["cpu"] = [](const std::string& spec) { return std::make_unique<cpu::CpuTarget>(spec); };
    makers["sim"] = [](const std::string& spec) { return std::make_unique<sim::SimTarget>(spec); };
    // The command target's toolchain spec is its manifest's path.
    makers["cuda"] = [](const std::string& spec) {
      return std::make_unique<cuda::CudaTarget>(spec);
    };
    makers["command"] = [](const std::string& spec) {
      return std::make_unique<command::CommandTarget>(spec);
    };
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_target(std::string name, TargetMaker maker) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.makers[std::move(name)] = std::move(maker);
}

std::unique_ptr<Target> make_target(std::string_view name, const std::string& toolchain_spec) {
  TargetMaker maker;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.makers.find(name);
    if (it == r.makers.end()) return nullptr;
    maker = it->second;
  }
  return maker(toolchain_spec);
}

std::vector<std::string> target_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, maker] : r.makers) names.push_back(name);
  return names;  // a std::map iterates in order
}

std::string target_names_text() {
  std::string out;
  for (const auto& n : target_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Result<statistics::CalibrateResult> calibrate_on_target(
    const statistics::CalibrateRequest& request) {
  if (auto valid = statistics::validate(request); !valid) return valid.error();
  std::unique_ptr<Target> target = make_target(request.target);
  if (!target) {
    return not_found(fmt::format("target '{}' is not available in this build (available: {})",
                                 request.target, target_names_text()));
  }
  return calibrate_on_target(request, *target);
}

Result<statistics::CalibrateResult> calibrate_on_target(const statistics::CalibrateRequest& request,
                                                        Target& target) {
  if (auto valid = statistics::validate(request); !valid) return valid.error();
  Target* t = &target;
  return statistics::calibrate(
      request, [t](const statistics::CalibrateRequest& r) { return t->calibration_devices(r); },
      t->known_s0(request));
}

}  // namespace headway::targets
