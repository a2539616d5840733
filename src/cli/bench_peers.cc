#include "cli/bench_peers.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "cli/cli_support.h"
#include "cli/floor_facts.h"
#include "cli/readings_view.h"
#include "common/cache_sizes.h"
#include "common/rng.h"
#include "common/stats.h"
#include "loop/library_proposer.h"
#include "peers/paired_verdict.h"
#include "peers/peer_libraries.h"
#include "targets/design_library.h"
#include "targets/fact_names.h"
#include "targets/floor_bracket.h"
#include "targets/floor_facts.h"
#include "targets/floors.h"
#include "targets/one_core_ties.h"

namespace headway::cli {

namespace {

// One timed arm of a kernel: a head candidate (a design or --source) or a peer.
struct PeersArm {
  std::string name;
  std::string kind;  // "design" (the fastest design is reported as "head"), "source" or "peer"
  std::string format;
  uint64_t bytes = 0;
  uint64_t copies = 0;  // peers: copies of the weights taken in turn
  std::vector<double> seconds;
};

struct PeersKernel {
  const KernelContract* kernel = nullptr;
  std::vector<targets::Artifact> artifacts;  // head candidates, the session's arms in order
  std::vector<PeersArm> arms;                // head candidates first, then the peers
  std::unique_ptr<targets::Session> session;
  std::vector<std::unique_ptr<peers::PeerRun>> peers;
  std::vector<double> floor_ms;  // the kernel's memory floor in each round
  bool workspace_head = false;   // arms[0] is the workspace's head
};

std::string peers_weight_format(const KernelContract& k) {
  return k.weight_format() == KernelContract::WeightFormat::kF8e4m3 ? "f8" : "nvfp4";
}

// The library's judgement of which designs can run here, as the loop makes it
// (LibraryProposer::unmet_requirements), from the isa.* facts every kernel's designs name,
// measured once.
loop::LibraryProposer library_gate(targets::Target& target,
                                   const std::vector<const KernelContract*>& kernels) {
  targets::FactOptions isa;
  for (const KernelContract* k : kernels) {
    for (const auto& d : targets::designs_for(target, *k)) {
      for (const auto& ext : d.requires_isa) isa.only.push_back(targets::isa_fact_name(ext));
    }
  }
  std::map<std::string, double> facts;
  if (!isa.only.empty()) {
    for (const auto& f : target.measure_facts(isa)) facts[f.name] = f.value;
  }
  return loop::LibraryProposer(target, [facts](const std::string& name) -> std::optional<double> {
    const auto it = facts.find(name);
    return it == facts.end() ? std::nullopt : std::optional<double>(it->second);
  });
}

// The kernel's head candidates, built and checked: `source`; or the workspace's head (when `ws`
// has one for the kernel) and the library's designs at their defaults that `library` lets run
// here and that pass the check (a failing one is left out with a warning).
void peers_add_heads(targets::Target& target, const loop::LibraryProposer& library,
                     const std::string& source, std::optional<store::Workspace>& ws,
                     PeersKernel& pk) {
  const KernelContract& k = *pk.kernel;
  const std::string format = peers_weight_format(k);
  if (!source.empty()) {
    pk.artifacts.push_back(build_or_throw(target, read_source_or_throw(source), source));
    pk.arms.push_back({source, "source", format, k.bytes_to_move(), 0, {}});
  } else {
    const auto head = ws ? workspace_head(*ws, std::string(k.name())) : std::nullopt;
    if (head && !head->baseline) {
      const std::string label = fmt::format("the {} head of the workspace", k.name());
      targets::Artifact a = build_or_throw(target, head->source, label);
      if (const targets::CheckOutcome c = target.check(k, a, {}); !c.correct())
        fail_with(environment_error(fmt::format("{} fails its check: {}", label, c.description)));
      pk.artifacts.push_back(std::move(a));
      pk.arms.push_back({fmt::format("{} #{}", head->design, head->node),
                         "workspace head",
                         format,
                         k.bytes_to_move(),
                         0,
                         {}});
      pk.workspace_head = true;
    }
    const auto& designs = targets::designs_for(target, k);
    fmt::print(stderr, "bench: building and checking the {} designs of {}\n", designs.size(),
               k.name());
    for (const auto& d : designs) {
      const std::string label = fmt::format("design {}/{}", k.name(), d.name);
      if (const std::string unmet = library.unmet_requirements(d); !unmet.empty()) {
        fmt::print(stderr, "bench: {} left out: {}\n", label, unmet);
        continue;
      }
      targets::Artifact a = build_or_throw(target, d.render(d.defaults()), label);
      const targets::CheckOutcome c = target.check(k, a, {});
      if (!c.correct()) {
        fmt::print(stderr, "bench: {} left out: {}\n", label, c.description);
        continue;
      }
      pk.artifacts.push_back(std::move(a));
      pk.arms.push_back({d.name, "design", format, k.bytes_to_move(), 0, {}});
    }
  }
  if (pk.artifacts.empty()) {
    pk.artifacts.push_back(build_or_throw(target, target.baseline_source(k),
                                          fmt::format("the {} baseline", k.name())));
    pk.arms.push_back({"baseline", "source", format, k.bytes_to_move(), 0, {}});
  }
}

// Rounds read first and dropped (the arms' first touches).
constexpr int kPeersWarmupRounds = 1;

// Designs whose medians lie within this of the fastest design's are ranked by one core.
constexpr double kPeersTiePct = 5.0;

// The kernel's head: the workspace's; else the fastest of its candidates, or, among the designs
// within kPeersTiePct of the fastest, the fastest on one core, as the loop's races choose
// (targets/one_core_ties.h).
std::pair<size_t, std::optional<targets::OneCoreTies>> peers_head(targets::Target& target,
                                                                  const PeersKernel& pk,
                                                                  uint64_t seed) {
  if (pk.workspace_head) return {0, std::nullopt};
  std::vector<double> medians;
  std::vector<int> ranking;
  for (size_t i = 0; i < pk.artifacts.size(); ++i) {
    medians.push_back(median(pk.arms[i].seconds));
    ranking.push_back(static_cast<int>(i));
  }
  std::stable_sort(ranking.begin(), ranking.end(), [&](int a, int b) {
    return medians[static_cast<size_t>(a)] < medians[static_cast<size_t>(b)];
  });
  auto ties = targets::time_ties_on_one_core(target, *pk.kernel, pk.artifacts, ranking, medians,
                                             kPeersTiePct, 5, seed + 1);
  const int head = ties ? targets::fastest_on_one_core(*ties) : ranking.front();
  return {static_cast<size_t>(head), std::move(ties)};
}

}  // namespace

int run_bench_peers(const BenchPeersArgs& args) {
  if (args.target != "cpu")
    throw UsageError(fmt::format(
        "--peers times libraries on this machine's CPU beside the cpu target's heads: it needs "
        "--target cpu, not '{}'",
        args.target));
  if (args.kernels.empty()) throw UsageError("--peers needs at least one kernel");
  std::optional<store::Workspace> ws;
  std::unique_ptr<targets::Target> target;
  if (!args.workspace.empty()) {
    if (!args.source.empty())
      throw UsageError("--source and a workspace both name the head: give one");
    if (!args.toolchain.empty())
      throw UsageError("--toolchain does not go with a workspace: its toolchain is its own");
    ws.emplace(open_workspace_or_throw(args.workspace));
    target = workspace_target_or_throw(*ws);
    if (target->name() != "cpu")
      throw UsageError(fmt::format(
          "--peers times libraries on this machine's CPU beside the cpu target's heads: the "
          "workspace's target is {}",
          target->name()));
  } else {
    target = target_or_throw(args.target, args.toolchain);
  }

  const uint64_t seed = fresh_seed();
  const uint64_t cold_bytes = 2 * last_level_cache_bytes();
  std::vector<PeersKernel> kernels;
  const loop::LibraryProposer library = library_gate(*target, args.kernels);
  for (const KernelContract* k : args.kernels) {
    PeersKernel pk;
    pk.kernel = k;
    peers_add_heads(*target, library, args.source, ws, pk);
    kernels.push_back(std::move(pk));
  }
  // Peers the libraries cannot run on this machine are left out, each with its reason.
  std::vector<peers::PeerLibrary> runnable;
  nlohmann::json left_out = nlohmann::json::array();
  for (const peers::PeerLibrary peer : peers::all_peer_libraries()) {
    if (const auto why = peers::peer_unavailable(peer)) {
      fmt::print(stderr, "bench: {} left out: {}\n", peers::peer_name(peer), *why);
      left_out.push_back({{"name", peers::peer_name(peer)}, {"reason", *why}});
    } else {
      runnable.push_back(peer);
    }
  }
  fmt::print(stderr, "bench: preparing the peers' weights ({} MiB of cold rotation each)\n",
             cold_bytes >> 20);
  for (auto& pk : kernels) {
    const auto products = value_or_fail(peers::kernel_matvecs(pk.kernel->name()));
    pk.session = value_or_fail(target->start_session(*pk.kernel, pk.artifacts, seed),
                               fmt::format("{} session", pk.kernel->name()));
    for (const peers::PeerLibrary peer : runnable) {
      auto run = value_or_fail(peers::PeerRun::start(peer, products, cold_bytes, seed),
                               std::string(peers::peer_name(peer)));
      pk.arms.push_back({std::string(peers::peer_name(peer)),
                         "peer",
                         std::string(peers::peer_format(peer)),
                         peers::peer_bytes(peer, products),
                         run->copies(),
                         {}});
      pk.peers.push_back(std::move(run));
    }
  }

  // Every arm of every kernel in one rotation: a round takes one reading of each.
  std::vector<peers::InterleavedArm> arms;
  std::vector<std::pair<size_t, size_t>> where;  // arms[i] is kernels[first].arms[second]
  for (size_t ki = 0; ki < kernels.size(); ++ki) {
    PeersKernel& pk = kernels[ki];
    const size_t heads = pk.artifacts.size();
    for (size_t ai = 0; ai < pk.arms.size(); ++ai) {
      const std::string name = fmt::format("{} {}", pk.kernel->name(), pk.arms[ai].name);
      if (ai < heads) {
        targets::Session* session = pk.session.get();
        const int arm = static_cast<int>(ai);
        arms.push_back({name, [session, arm] { return session->reading(arm); }});
      } else {
        peers::PeerRun* run = pk.peers[ai - heads].get();
        arms.push_back({name, [run] { return run->reading(); }});
      }
      where.emplace_back(ki, ai);
    }
  }
  // The memory floor facts are measured once a round too, between the arms' readings: every
  // arm is judged against the floor of its own round, which a spell moves with it.
  std::vector<std::map<std::string, double>> round_facts;
  const std::vector<std::string> memory_facts = target->memory_floor_facts();
  arms.push_back({"the floor", [&]() -> Result<double> {
                    auto facts =
                        targets::measure_floor_facts(*target, memory_facts, kRoundFloorReadings);
                    if (!facts) return facts.error();
                    round_facts.push_back(std::move(facts->values));
                    return 0.0;
                  }});
  fmt::print(stderr, "bench: {} rounds of {} readings, interleaved\n", args.readings + 1,
             arms.size());
  // The rounds between two measurements of the floor facts (targets/floor_bracket.h), shown for
  // what the chip read around them: the arms are judged by their rounds' floors, so a floor that
  // moved between the two is no reason to read the rounds again.
  Result<std::vector<std::vector<double>>> readings = std::vector<std::vector<double>>{};
  targets::FloorBracketOptions once;
  once.max_timings = 1;
  targets::FloorBracket bracket(*target, once);
  const targets::BracketedFloor floor = value_or_fail(bracket.around(args.kernels, [&] {
    round_facts.clear();
    readings = peers::read_interleaved(arms, args.readings, kPeersWarmupRounds);
    return readings.ok();
  }));
  if (!readings) fail_with(readings.error());
  round_facts.erase(round_facts.begin(), round_facts.begin() + kPeersWarmupRounds);
  for (auto& pk : kernels) {
    for (const auto& facts : round_facts)
      pk.floor_ms.push_back(target->floors(*pk.kernel, facts).memory_ms);
  }
  for (size_t i = 0; i < where.size(); ++i)
    kernels[where[i].first].arms[where[i].second].seconds = std::move(readings.value()[i]);
  for (const auto& pk : kernels) {
    if (auto breach = pk.session->verify_arms()) {
      print_error(fmt::format("{} {} broke a rule of timing: {}", pk.kernel->name(),
                              pk.arms[static_cast<size_t>(breach->arm)].name, breach->reason));
      return kExitNegative;
    }
  }

  const peers::PeerRuntime rt = peers::peer_runtime();
  nlohmann::json out = {{"target", target->name()},
                        {"workspace", ws ? nlohmann::json(ws->root().string()) : nlohmann::json()},
                        {"toolchain", target->identity().id},
                        {"readings", args.readings},
                        {"cold_bytes", cold_bytes},
                        {"runtime",
                         {{"onednn_version", rt.onednn_version},
                          {"onednn_runtime", rt.onednn_runtime},
                          {"onednn_threads", rt.onednn_threads},
                          {"openblas_config", rt.openblas_config},
                          {"openblas_core", rt.openblas_core},
                          {"openblas_threads", rt.openblas_threads}}},
                        {"peers_left_out", left_out},
                        {"kernels", nlohmann::json::array()}};
  add_floor(floor, !args.json, &out, /*by_round=*/true);
  add_round_floors(round_facts,
                   fmt::format("in each of the {} rounds between the readings", round_facts.size()),
                   "an arm", !args.json, &out);
  if (!args.json) {
    fmt::print("oneDNN {} ({}, {} threads); OpenBLAS {} ({}, {} threads)\n", rt.onednn_version,
               rt.onednn_runtime, rt.onednn_threads, rt.openblas_config, rt.openblas_core,
               rt.openblas_threads);
    for (const auto& peer : left_out)
      fmt::print("{} left out: {}\n", peer["name"].get<std::string>(),
                 peer["reason"].get<std::string>());
    fmt::print("{:<9} {:<20} {:<6} {:>11} {:>10} {:>10} {:>20} {:>7} {:>8} {:>6}\n", "kernel",
               "arm", "format", "bytes", "floor ms", "median ms", "95% interval ms", "GB/s",
               "x floor", "cv %");
  }
  for (const auto& pk : kernels) {
    const KernelContract& k = *pk.kernel;
    const auto [head, ties] = peers_head(*target, pk, seed);
    double head_ratio = 0.0, best_peer_ratio = 0.0;
    std::string best_peer;
    nlohmann::json arms_json = nlohmann::json::array();
    for (size_t i = 0; i < pk.arms.size(); ++i) {
      const PeersArm& arm = pk.arms[i];
      const bool is_peer = arm.kind == "peer";
      const double median_ms = median(arm.seconds) * 1e3;
      std::vector<double> floors_ms, ratios;  // by round
      for (size_t r = 0; r < arm.seconds.size(); ++r) {
        floors_ms.push_back(is_peer ? static_cast<double>(arm.bytes) /
                                          (round_facts[r].at(targets::kReadBandwidth) * 1e9) * 1e3
                                    : pk.floor_ms[r]);
        ratios.push_back(arm.seconds[r] * 1e3 / floors_ms.back());
      }
      const double floor_ms = median(floors_ms);
      const double ratio = median(ratios);
      const double gbs = static_cast<double>(arm.bytes) / (median_ms * 1e-3) / 1e9;
      const std::string kind = i == head ? "head" : arm.kind;
      if (i == head) head_ratio = ratio;
      if (is_peer && (best_peer.empty() || ratio < best_peer_ratio)) {
        best_peer = arm.name;
        best_peer_ratio = ratio;
      }
      const std::vector<double> readings_ms = to_ms(arm.seconds);
      nlohmann::json j = readings_json(readings_ms);
      j.update({{"name", arm.name},
                {"kind", kind},
                {"format", arm.format},
                {"bytes", arm.bytes},
                {"floor_ms", floor_ms},
                {"floor_ms_by_round", floors_ms},
                {"gb_per_s", gbs},
                {"ratio_to_floor", ratio},
                {"below_floor", targets::below_floor(ratio)},
                {"cv", coefficient_of_variation(arm.seconds)},
                {"readings", arm.seconds.size()},
                {"copies", is_peer ? nlohmann::json(arm.copies) : nlohmann::json(nullptr)}});
      arms_json.push_back(std::move(j));
      if (!args.json) {
        const std::string label = kind == "head" ? fmt::format("{} (head)", arm.name) : arm.name;
        fmt::print(
            "{:<9} {:<20} {:<6} {:>11} {:>10.3f} {:>10.3f} {:>20} {:>7.1f} {:>8.2f} {:>6.1f}{}\n",
            k.name(), label, arm.format, arm.bytes, floor_ms, median_ms, interval_text(readings_ms),
            gbs, ratio, 100 * coefficient_of_variation(arm.seconds),
            reading_notes(readings_ms, ratio));
      }
    }
    // A head below its floor claims nothing against the peers: its floor is what is wrong.
    const bool head_below_floor = targets::below_floor(head_ratio);
    // Closer, level or not, by the rounds that paired the head with each peer.
    std::optional<peers::PeersJudgement> judged;
    std::vector<peers::PairedArm> peer_arms;
    for (const PeersArm& arm : pk.arms)
      if (arm.kind == "peer") peer_arms.push_back({arm.name, arm.bytes, arm.seconds});
    if (!peer_arms.empty()) {
      const PeersArm& h = pk.arms[head];
      judged = peers::judge_against_peers({h.name, h.bytes, h.seconds}, peer_arms);
    }
    const bool closer = judged && judged->verdict == peers::PeersVerdict::kHeadCloser;
    nlohmann::json paired = nullptr;
    if (judged) {
      const peers::PairedRatio& p = judged->hardest;
      paired = {{"peer", p.peer},
                {"median", p.median},
                {"interval", {p.interval.low, p.interval.high}},
                {"interval_coverage", p.interval.coverage},
                {"verdict", peers::verdict_name(judged->verdict)}};
    }
    nlohmann::json head_one_core = nullptr;
    if (ties) {
      head_one_core = nlohmann::json::array();
      for (size_t t = 0; t < ties->tied.size(); ++t) {
        head_one_core.push_back({{"name", pk.arms[static_cast<size_t>(ties->tied[t])].name},
                                 {"one_core_median_ms", ties->seconds[t] * 1e3}});
      }
    }
    out["kernels"].push_back(
        {{"name", k.name()},
         {"head", pk.arms[head].name},
         {"head_from", pk.workspace_head      ? "workspace"
                       : !args.source.empty() ? "source"
                                              : "library"},
         {"head_one_core", head_one_core},
         {"head_ratio_to_floor", head_ratio},
         {"best_peer", best_peer},
         {"best_peer_ratio_to_floor", best_peer_ratio},
         {"head_below_floor", head_below_floor},
         {"paired_with_peers", paired},
         {"head_closer_than_every_peer",
          head_below_floor || !judged ? nlohmann::json(nullptr) : nlohmann::json(closer)},
         {"arms", arms_json}});
    if (!args.json) {
      if (!judged) {
        fmt::print("{}: head {} at {:.2f}x its floor; no peer ran\n", k.name(), pk.arms[head].name,
                   head_ratio);
      } else {
        const peers::PairedRatio& p = judged->hardest;
        fmt::print(
            "{}: head {} at {:.2f}x its floor, best peer {} at {:.2f}x its own; round by round "
            "against {}: {:.2f}x [{:.2f}, {:.2f}] ({:.0f}% interval): {}\n",
            k.name(), pk.arms[head].name, head_ratio, best_peer, best_peer_ratio, p.peer, p.median,
            p.interval.low, p.interval.high, 100 * p.interval.coverage,
            head_below_floor ? "the head is below its floor: a floor to fix, not a result"
                             : peers::verdict_text(*judged));
      }
      if (ties) {
        std::string list;
        for (size_t t = 0; t < ties->tied.size(); ++t) {
          list +=
              fmt::format("{}{} {:.3f} ms", t ? ", " : "",
                          pk.arms[static_cast<size_t>(ties->tied[t])].name, ties->seconds[t] * 1e3);
        }
        fmt::print(
            "{}: designs within {:.0f}% of the fastest, on one core: {}; the head is the "
            "fastest there\n",
            k.name(), kPeersTiePct, list);
      }
    }
  }
  if (args.json) fmt::print("{}\n", out.dump(2));
  return 0;
}

}  // namespace headway::cli
