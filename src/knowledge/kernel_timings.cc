#include "knowledge/kernel_timings.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "store/transaction.h"
#include "targets/floors.h"

namespace headway::knowledge {

namespace {
// The method of a baseline's and a head's timings taken in turn in one session.
constexpr const char* kInTurnMethod = "baseline and head interleaved in one session";
}  // namespace

namespace {

constexpr const char* kTimingColumns =
    "id, kernel, toolchain, node_id, role, median_ms, cv, readings, method, measured_at, "
    "readings_ms_json, shape, floor_ms, decode_floor_ms, device_model";

KernelTiming read_timing(const store::Statement& s) {
  KernelTiming t;
  t.id = s.int64(0);
  t.kernel = s.text(1);
  t.toolchain = s.text(2);
  t.node_id = s.int64(3);
  t.role = s.text(4);
  t.median_ms = s.real(5);
  t.cv = s.optional_real(6);
  t.readings = static_cast<int>(s.int64(7));
  t.method = s.text(8);
  t.measured_at = s.text(9);
  if (const auto json = s.optional_text(10)) {
    t.readings_ms = nlohmann::json::parse(*json).get<std::vector<double>>();
  }
  t.shape = s.text(11);
  t.floor_ms = s.optional_real(12);
  t.decode_floor_ms = s.optional_real(13);
  t.device_model = s.text(14);
  return t;
}

}  // namespace

void record_kernel_timing(store::Workspace& ws, const KernelTiming& timing) {
  auto s = ws.db().prepare(
      "INSERT INTO kernel_timings(kernel, toolchain, node_id, role, median_ms, cv, readings, "
      "method, readings_ms_json, shape, floor_ms, decode_floor_ms, device_model) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  s.bind(1, timing.kernel).bind(2, timing.toolchain).bind(3, timing.node_id).bind(4, timing.role);
  s.bind(5, timing.median_ms).bind(6, timing.cv).bind(7, timing.readings).bind(8, timing.method);
  if (timing.readings_ms.empty()) {
    s.bind(9, std::optional<std::string>());
  } else {
    s.bind(9, nlohmann::json(timing.readings_ms).dump());
  }
  s.bind(10, timing.shape).bind(11, timing.floor_ms).bind(12, timing.decode_floor_ms);
  s.bind(13, timing.device_model);
  s.run();
}

std::optional<KernelTiming> latest_kernel_timing(store::Workspace& ws, std::string_view kernel,
                                                 std::string_view toolchain, std::string_view role,
                                                 std::string_view shape) {
  auto s = ws.db().prepare(fmt::format(
      "SELECT {} FROM kernel_timings WHERE kernel = ?1 AND toolchain = ?2 AND role = ?3 "
      "AND shape = ?4 ORDER BY id DESC LIMIT 1",
      kTimingColumns));
  s.bind(1, kernel).bind(2, toolchain).bind(3, role).bind(4, shape);
  if (!s.step()) return std::nullopt;
  return read_timing(s);
}

std::vector<KernelTiming> kernel_timings(store::Workspace& ws, std::string_view kernel) {
  auto s = ws.db().prepare(
      fmt::format("SELECT {} FROM kernel_timings WHERE kernel = ?1 AND shape = '' ORDER BY id",
                  kTimingColumns));
  s.bind(1, kernel);
  std::vector<KernelTiming> out;
  while (s.step()) out.push_back(read_timing(s));
  return out;
}

std::optional<MedianInterval> median_interval_of(const KernelTiming& timing) {
  if (timing.readings_ms.empty()) return std::nullopt;
  return median_interval(timing.readings_ms);
}

Bimodality bimodality_of(const KernelTiming& timing) { return test_bimodality(timing.readings_ms); }

std::optional<KernelTiming> current_head_timing(store::Workspace& ws, const trees::DesignTree& tree,
                                                std::string_view toolchain) {
  const trees::HeadRecord head = tree.head();
  if (auto t = latest_kernel_timing(ws, tree.kernel(), toolchain, kHeadRole);
      t && t->node_id == head.node_id && t->measured_at >= head.since) {
    return t;
  }
  return std::nullopt;
}

std::optional<KernelTiming> current_baseline_timing(store::Workspace& ws,
                                                    const trees::DesignTree& tree,
                                                    std::string_view toolchain) {
  return latest_kernel_timing(ws, tree.kernel(), toolchain, kBaselineRole);
}

std::string SpeedupSupport::verdict() const {
  if (interval.above_one()) return "faster";
  if (interval.below_one()) return "slower";
  return "unresolved";
}

std::optional<SpeedupSupport> speedup_support(const KernelTiming& baseline,
                                              const KernelTiming& head) {
  const auto b = median_interval_of(baseline);
  const auto h = median_interval_of(head);
  if (!b || !h) return std::nullopt;
  // remeasure_baseline_and_head times both in one session, in turn, and says so in the method.
  const bool in_turn = baseline.method == head.method &&
                       baseline.method.find(kInTurnMethod) != std::string::npos &&
                       baseline.readings_ms.size() == head.readings_ms.size();
  if (in_turn)
    return SpeedupSupport{paired_ratio_interval(baseline.readings_ms, head.readings_ms), true};
  return SpeedupSupport{ratio_interval(*b, *h), false};
}

std::optional<double> current_head_ms(store::Workspace& ws, const trees::DesignTree& tree,
                                      std::string_view toolchain) {
  if (auto t = current_head_timing(ws, tree, toolchain)) return t->median_ms;
  return tree.head().median_ms;
}

std::optional<double> current_baseline_ms(store::Workspace& ws, const trees::DesignTree& tree,
                                          std::string_view toolchain) {
  if (auto t = current_baseline_timing(ws, tree, toolchain)) return t->median_ms;
  return tree.record().baseline_ms;
}

namespace {

// How the timing's floor was measured, for its method line.
std::string floor_method(const targets::BracketedFloor& floor,
                         const std::vector<std::string>& names) {
  const std::string movement = floor.movement();
  return "floor from the floor facts measured around the readings: " + floor.text(names) +
         (movement.empty() ? "" : " (" + movement + ")");
}

}  // namespace

Remeasured remeasure_baseline_and_head(store::Workspace& ws, trees::DesignTree& tree,
                                       const KernelContract& kernel, targets::Target& target,
                                       const std::filesystem::path& cache_dir, int readings,
                                       targets::FloorBracket* floor) {
  const targets::ToolchainInfo identity = target.identity();
  Remeasured out;
  out.kernel = tree.kernel();
  out.baseline_node = tree.root().id;
  out.head_node = tree.head().node_id;
  const bool same = out.baseline_node == out.head_node;

  std::vector<targets::Artifact> artifacts;
  for (const int64_t node : same ? std::vector<int64_t>{out.baseline_node}
                                 : std::vector<int64_t>{out.baseline_node, out.head_node}) {
    const auto source = tree.source(node);
    if (!source) {
      out.failure = fmt::format("node {} has no source", node);
      return out;
    }
    const auto built = target.build(*source, cache_dir);
    if (!built.built()) {
      out.failure = fmt::format("node {} does not build", node);
      return out;
    }
    artifacts.push_back(built.artifact);
  }
  const std::string readings_method =
      fmt::format("median of {} readings after 2 warm-ups, {}", readings,
                  same ? "one session (the head is the baseline)" : kInTurnMethod);
  auto timing = [&](const targets::Timing& r, int64_t node, const char* role,
                    const std::string& method) {
    KernelTiming t;
    t.kernel = out.kernel;
    t.toolchain = identity.id;
    t.node_id = node;
    t.role = role;
    t.median_ms = r.median_seconds * 1e3;
    t.cv = r.cv;
    t.readings = static_cast<int>(r.seconds.size());
    t.method = method;
    for (const double sec : r.seconds) t.readings_ms.push_back(sec * 1e3);
    t.device_model = r.device_model.empty() ? target.device_model() : r.device_model;
    return t;
  };
  // The kernel's own shape set first, then the other timed ones, each stored under its name.
  const auto shapes = timed_shape_sets(kernel);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const KernelContract& at = i == 0 ? kernel : *shapes[i];
    std::vector<targets::Timing> timed;
    const auto time_them = [&] {
      timed = target.time_side_by_side(at, artifacts, readings, 1);
      return timed.front().ok() && timed.back().ok();
    };
    // A head or baseline read below its floor read in a spell the measurements around it missed.
    const auto beaten = [&](const targets::FloorFacts& facts) {
      const double floor_ms = target.floors(at, facts.values).memory_ms;
      return std::any_of(timed.begin(), timed.end(), [&](const targets::Timing& t) {
        return t.ok() && floor_ms > 0 && targets::below_floor(t.median_seconds * 1e3 / floor_ms);
      });
    };
    std::optional<targets::BracketedFloor> bracketed;
    if (floor) {
      auto around = floor->around({&at}, time_them, beaten);
      if (!around) {
        out.failure = "floor facts: " + around.error().message;
        if (i == 0) return out;
        break;
      }
      bracketed = std::move(around).value();
      if (i == 0) out.floor = bracketed;
    } else {
      time_them();
    }
    if (!timed.front().ok() || !timed.back().ok()) {
      const std::string why = timed.front().ok() ? timed.back().failure : timed.front().failure;
      if (i == 0) {
        out.failure = "timing failed: " + why;
        return out;
      }
      out.failure = fmt::format("timing at shape set {} failed: {}", at.shape_set_name(), why);
      break;
    }
    const std::string method =
        bracketed ? readings_method + "; " + floor_method(*bracketed, target.floor_facts())
                  : readings_method;
    KernelTiming baseline = timing(timed.front(), out.baseline_node, kBaselineRole, method);
    KernelTiming head = timing(timed.back(), out.head_node, kHeadRole, method);
    if (i > 0) baseline.shape = head.shape = at.shape_set_name();
    if (bracketed) {
      const targets::KernelFloors floors = target.floors(at, bracketed->facts.values);
      baseline.floor_ms = head.floor_ms = floors.memory_ms;
      baseline.decode_floor_ms = head.decode_floor_ms = floors.instruction_ms;
    }
    store::Transaction txn(ws.db());
    record_kernel_timing(ws, baseline);
    record_kernel_timing(ws, head);
    txn.commit();
  }
  out.baseline = latest_kernel_timing(ws, out.kernel, identity.id, kBaselineRole);
  out.head = latest_kernel_timing(ws, out.kernel, identity.id, kHeadRole);
  return out;
}

}  // namespace headway::knowledge
