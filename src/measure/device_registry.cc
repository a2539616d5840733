#include "measure/device_registry.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace headway::measure {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceFactoryMaker, std::less<>> makers;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_device_factory(std::string target, DeviceFactoryMaker maker) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.makers[std::move(target)] = std::move(maker);
}

std::optional<DeviceFactoryMaker> lookup_device_factory(std::string_view target) {
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    auto it = r.makers.find(target);
    if (it != r.makers.end()) return it->second;
  }
  if (target == "sim") return DeviceFactoryMaker(sim_device_factory);
  return std::nullopt;
}

std::vector<std::string> available_targets() {
  Registry& r = registry();
  std::vector<std::string> names{"sim"};
  {
    std::lock_guard lock(r.mutex);
    for (const auto& [name, maker] : r.makers) {
      if (name != "sim") names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

DeviceFactory sim_device_factory(const CalibrateRequest& request) {
  SimConfig base;
  base.noise = request.noise;
  base.cv = request.cv;
  base.effect_pct = request.effect_pct;
  if (auto error = validate(base)) throw std::invalid_argument(*error);
  const uint64_t seed = request.seed;
  return [base, seed](int decision_index) {
    SimConfig config = base;
    config.seed = mix_seed(seed, static_cast<uint64_t>(decision_index));
    return std::make_unique<SimDevice>(config);
  };
}

}  // namespace headway::measure
