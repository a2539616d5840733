// `headway bench --peers` as a user runs it: what it refuses before it measures anything.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_support.h"
#include "common/subprocess.h"
#include "kernels/contract.h"
#include "loop/kernel_registration.h"
#include "peers/peer_libraries.h"
#include "targets/cpu/isa_facts.h"
#include "targets/design_library.h"
#include "targets/registry/registry.h"
#include "trees/design_tree.h"

namespace headway {
namespace {

ProcessResult headway_bench(std::vector<std::string> args) {
  args.insert(args.begin(), {HEADWAY_BINARY, "bench"});
  return run_process(args, 120.0);
}

TEST(BenchPeers, NeedsTheCpuTarget) {
  const auto r = headway_bench({"--peers", "--target", "sim", "--kernel", "qkv"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--peers times libraries on this machine's CPU"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("not 'sim'"), std::string::npos) << r.output;
}

TEST(BenchPeers, SourceNeedsAKernel) {
  const auto r = headway_bench({"--peers", "--source", "whatever.cc"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--source needs --kernel"), std::string::npos) << r.output;
}

// One whole run on the smallest kernel, its head the baseline (one build, no design library): the
// arms, their bytes and each ratio against the one bandwidth fact. Timings are not asserted.
TEST(BenchPeers, TimesTheHeadAndEveryPeerAgainstTheBandwidthOfEachRound) {
  store::TestTempDir cache;
  setenv("HEADWAY_CACHE_DIR", cache.path().c_str(), 1);
  const std::string baseline =
      (std::filesystem::path(HEADWAY_SOURCE_DIR) / "kernels/baselines/attn_out.cc").string();
  const cli::CliRun r = cli::run_split(HEADWAY_BINARY,
                                       {"bench", "--peers", "--kernel", "attn_out", "--source",
                                        baseline, "--readings", "2", "--json"},
                                       "", 300.0);
  ASSERT_EQ(r.exit_code, 0) << r.problem << r.err;
  const auto j = nlohmann::json::parse(r.out);
  double bandwidth = 0;
  for (const auto& f : j["facts"])
    if (f["name"] == "read_bandwidth") bandwidth = f["value"];
  ASSERT_GT(bandwidth, 0.0);
  // The cpu target times on this machine's shared cores: the floor is measured around the readings.
  EXPECT_TRUE(j["floor"]["around"]);
  EXPECT_GE(j["floor"]["timings"].get<int>(), 1);
  EXPECT_LE(j["floor"]["timings"].get<int>(), 3);
  EXPECT_GE(j["runtime"]["openblas_threads"].get<int>(), 1);
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "attn_out");
  EXPECT_EQ(k["head"], baseline);
  const uint64_t elements = 3840ull * 4096 + 4096 + 3840;
  // The peers this machine's libraries cannot run are left out with their reasons, the others
  // timed.
  std::vector<std::pair<std::string, uint64_t>> expected{{baseline, 15767552}};
  nlohmann::json left_out = nlohmann::json::array();
  for (const auto& [peer, bytes] : std::vector<std::pair<peers::PeerLibrary, uint64_t>>{
           {peers::PeerLibrary::kOnednnBf16, elements * 2},
           {peers::PeerLibrary::kOnednnF32, elements * 4},
           {peers::PeerLibrary::kOpenblasSgemv, elements * 4}}) {
    if (const auto why = peers::peer_unavailable(peer)) {
      left_out.push_back({{"name", peers::peer_name(peer)}, {"reason", *why}});
      EXPECT_NE(r.err.find(fmt::format("bench: {} left out: {}", peers::peer_name(peer), *why)),
                std::string::npos)
          << r.err;
    } else {
      expected.emplace_back(peers::peer_name(peer), bytes);
    }
  }
  EXPECT_EQ(j["peers_left_out"], left_out);
  ASSERT_EQ(k["arms"].size(), expected.size());
  double best_peer = 1e300;
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& arm = k["arms"][i];
    SCOPED_TRACE(expected[i].first);
    EXPECT_EQ(arm["name"], expected[i].first);
    EXPECT_EQ(arm["kind"], i == 0 ? "head" : "peer");
    EXPECT_EQ(arm["bytes"].get<uint64_t>(), expected[i].second);
    EXPECT_EQ(arm["readings"], 2);
    ASSERT_EQ(arm["readings_ms"].size(), 2u);
    EXPECT_NEAR(double(arm["median_ms"]),
                (double(arm["readings_ms"][0]) + double(arm["readings_ms"][1])) / 2, 1e-9);
    // Each round's floor from the bandwidth measured in that round; the arm's floor and ratio
    // are the medians over its rounds.
    const auto& rounds = j["round_read_bandwidth_gbps"];
    ASSERT_EQ(rounds.size(), 2u);
    ASSERT_EQ(arm["floor_ms_by_round"].size(), 2u);
    std::vector<double> floors, ratios;
    for (size_t round = 0; round < 2; ++round) {
      floors.push_back(double(expected[i].second) / (double(rounds[round]) * 1e9) * 1e3);
      EXPECT_NEAR(double(arm["floor_ms_by_round"][round]), floors.back(), 1e-9);
      ratios.push_back(double(arm["readings_ms"][round]) / floors.back());
    }
    EXPECT_NEAR(double(arm["floor_ms"]), (floors[0] + floors[1]) / 2, 1e-9);
    EXPECT_NEAR(double(arm["ratio_to_floor"]), (ratios[0] + ratios[1]) / 2, 1e-9);
    EXPECT_EQ(arm["below_floor"], double(arm["ratio_to_floor"]) < 0.97);
    if (i > 0) {
      EXPECT_GE(arm["copies"].get<int>(), 2);
      best_peer = std::min(best_peer, double(arm["ratio_to_floor"]));
    }
  }
  EXPECT_DOUBLE_EQ(double(k["best_peer_ratio_to_floor"]), best_peer);
  EXPECT_EQ(k["head_below_floor"], double(k["head_ratio_to_floor"]) < 0.97);
  if (k["head_below_floor"] == true) {
    EXPECT_TRUE(k["head_closer_than_every_peer"].is_null()) << "a floor to fix claims nothing";
  }
  // Round by round: the head's time a byte over each peer's; the peer named is one of them, with
  // its median, and for "closer" (every peer's interval below 1) the one the head is least ahead
  // of.
  const auto& paired = k["paired_with_peers"];
  ASSERT_TRUE(paired.is_object()) << k.dump();
  std::map<std::string, double> paired_median;
  std::string least_ahead;
  for (size_t i = 1; i < k["arms"].size(); ++i) {
    const auto& head = k["arms"][0];
    const auto& peer = k["arms"][i];
    std::vector<double> q;
    for (size_t round = 0; round < 2; ++round)
      q.push_back(double(head["readings_ms"][round]) / double(head["bytes"]) /
                  (double(peer["readings_ms"][round]) / double(peer["bytes"])));
    const std::string name = peer["name"];
    paired_median[name] = (q[0] + q[1]) / 2;
    if (least_ahead.empty() || paired_median[name] > paired_median[least_ahead]) least_ahead = name;
  }
  ASSERT_TRUE(paired_median.count(paired["peer"])) << paired.dump();
  EXPECT_NEAR(double(paired["median"]), paired_median[paired["peer"]], 1e-9);
  if (paired["verdict"] == "closer") {
    EXPECT_EQ(paired["peer"], least_ahead);
    EXPECT_LT(double(paired["interval"][1]), 1.0);
  }
  EXPECT_LE(double(paired["interval"][0]), double(paired["median"]));
  EXPECT_GE(double(paired["interval"][1]), double(paired["median"]));
  if (k["head_below_floor"] != true) {
    EXPECT_EQ(k["head_closer_than_every_peer"], paired["verdict"] == "closer");
  }
  EXPECT_TRUE(k["head_one_core"].is_null()) << "one head candidate: no tie to break";
}

// Without --source the library's designs are the head candidates: the head is the fastest, or,
// where designs lie within 5% of the fastest, the one of them fastest on one core.
TEST(BenchPeers, TheHeadIsTheFastestDesignOrTheFastestOnOneCoreOfThoseTied) {
  store::TestTempDir cache;
  setenv("HEADWAY_CACHE_DIR", cache.path().c_str(), 1);
  const cli::CliRun r = cli::run_split(
      HEADWAY_BINARY, {"bench", "--peers", "--kernel", "attn_out", "--readings", "3", "--json"}, "",
      600.0);
  ASSERT_EQ(r.exit_code, 0) << r.problem << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& k = j["kernels"][0];
  std::map<std::string, double> designs;  // name -> median ms
  for (const auto& arm : k["arms"]) {
    if (arm["kind"] != "peer") designs[arm["name"]] = arm["median_ms"];
  }
  // perm_bf16 needs AVX-512 BW, VBMI and BF16: timed only where the chip reports all three.
  const bool perm_bf16_runs =
      cpu::chip_has("avx512bw") && cpu::chip_has("avx512vbmi") && cpu::chip_has("avx512bf16");
  EXPECT_EQ(designs.count("perm_bf16"), perm_bf16_runs ? 1u : 0u) << r.out;
  if (!perm_bf16_runs) {
    EXPECT_NE(r.err.find("design attn_out/perm_bf16 left out: needs"), std::string::npos) << r.err;
  }
  ASSERT_GE(designs.size(), 2u) << r.out;
  double fastest = 1e300;
  std::string fastest_name;
  for (const auto& [name, ms] : designs) {
    if (ms < fastest) fastest = ms, fastest_name = name;
  }
  const std::string head = k["head"];
  if (k["head_one_core"].is_null()) {
    EXPECT_EQ(head, fastest_name);
    return;
  }
  ASSERT_GE(k["head_one_core"].size(), 2u);
  double best_one_core = 1e300;
  std::string best_name;
  for (const auto& t : k["head_one_core"]) {
    const std::string name = t["name"];
    ASSERT_TRUE(designs.count(name)) << name;
    EXPECT_LE(designs[name], fastest * 1.05) << name << " is not within 5% of the fastest";
    if (double(t["one_core_median_ms"]) < best_one_core)
      best_one_core = t["one_core_median_ms"], best_name = name;
  }
  EXPECT_EQ(head, best_name);
}

// In a workspace the head is the loop's: the kernel's head there, timed beside the library's
// designs at their defaults and the peers; while the kernel's head is its baseline, the
// library's rule names the head.
TEST(BenchPeers, InAWorkspaceTheHeadIsTheWorkspacesHead) {
  store::TestTempDir tmp;
  setenv("HEADWAY_CACHE_DIR", (tmp.path() / "cache").c_str(), 1);
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(cli::run_split(HEADWAY_BINARY, {"init", ws}, "", 120.0).exit_code, 0);
  int64_t head_id = 0;
  {
    auto w = store::Workspace::open(ws).value();
    auto target = targets::make_target("cpu");
    const KernelContract& attn_out = *builtin_kernel("attn_out");
    auto tree = loop::register_kernel(
        w, *target, attn_out,
        [&](const std::string& src) { return target->build(src, tmp.path() / "builds"); }, 3);
    ASSERT_TRUE(tree);
    // Its head still the baseline: the library's rule names the head.
    const cli::CliRun before = cli::run_split(
        HEADWAY_BINARY, {"bench", "--peers", "--kernel", "attn_out", "--readings", "1", "--json"},
        ws, 600.0);
    ASSERT_EQ(before.exit_code, 0) << before.problem << before.err;
    const auto b = nlohmann::json::parse(before.out)["kernels"][0];
    EXPECT_EQ(b["head_from"], "library");
    for (const auto& arm : b["arms"]) EXPECT_NE(arm["kind"], "workspace head") << arm.dump();
    const targets::Design* sext = nullptr;
    for (const auto& d : targets::designs_for(*target, attn_out))
      if (d.name == "sext_static") sext = &d;
    ASSERT_NE(sext, nullptr);
    targets::Params params = sext->defaults();
    params["P_THREADS"] = 1;  // not the defaults: the workspace's own head, not a design's
    trees::NewNode n;
    n.design = "sext_static";
    n.source = sext->render(params);
    n.proposer = "test";
    const auto added = tree->add(n);
    ASSERT_TRUE(added) << added.error().message;
    head_id = added->node.id;
    ASSERT_TRUE(tree->set_head(head_id, std::nullopt, std::nullopt, "test"));
  }
  const std::string head = fmt::format("sext_static #{}", head_id);
  const cli::CliRun r = cli::run_split(
      HEADWAY_BINARY, {"bench", "--peers", "--kernel", "attn_out", "--readings", "2", "--json"}, ws,
      600.0);
  ASSERT_EQ(r.exit_code, 0) << r.problem << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["workspace"], std::filesystem::canonical(ws).string());
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["head"], head);
  EXPECT_EQ(k["head_from"], "workspace");
  EXPECT_TRUE(k["head_one_core"].is_null()) << "the workspace's head is not chosen by a race";
  ASSERT_GE(k["arms"].size(), 3u);
  EXPECT_EQ(k["arms"][0]["name"], head);
  EXPECT_EQ(k["arms"][0]["kind"], "head");
  int designs = 0;
  for (const auto& arm : k["arms"]) designs += arm["kind"] == "design";
  EXPECT_GE(designs, 1) << "the library's designs are timed beside it: " << r.out;

  // --source names the head another way; a workspace of another target has no cpu heads.
  const auto both =
      headway_bench({"--peers", "--kernel", "attn_out", "--workspace", ws, "--source", "x.cc"});
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_NE(both.output.find("--source and a workspace both name the head"), std::string::npos)
      << both.output;
  const std::string sim = (tmp.path() / "sim").string();
  ASSERT_EQ(cli::run_split(HEADWAY_BINARY, {"init", sim, "--target", "sim"}, "", 120.0).exit_code,
            0);
  const auto other = headway_bench({"--peers", "--workspace", sim});
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("the workspace's target is sim"), std::string::npos) << other.output;
}

}  // namespace
}  // namespace headway
