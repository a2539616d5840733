// On the real cpu target: a server that speaks the OpenAI protocol answers with a correct kernel
// that is faster than the baseline (the design library's f16cvt design, as an agent might write
// it), and `headway optimize --agent` builds it, checks it in the sandbox and makes it the head
// through the acceptance test. Repeated answers are stored as duplicates, not tried twice.
#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "agents/test_http_server.h"
#include "cli/cli_test_support.h"
#include "common/file_io.h"
#include "store/test_temp_dir.h"
#include "targets/design_library.h"
#include "targets/registry/registry.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

std::string faster_attn_out() {
  const auto target = targets::make_target("cpu");
  for (const auto& d : targets::designs_for(*target, *builtin_kernel("attn_out"))) {
    if (d.name == "f16cvt") return d.render(d.defaults());
  }
  ADD_FAILURE() << "the library has no attn_out/f16cvt design";
  return "";
}

// `headway optimize --json` of one kernel in `ws` with the OpenAI-protocol agent at `base_url`
// (no confirming pairs after FASTER: these tests are of the agent's path, the gate's battery
// tests the confirmation).
CliRun optimize_with_agent(const std::string& ws, const std::string& kernel,
                           const std::string& base_url, int max_calls) {
  return run_headway(
      {"optimize", "--workspace", ws, "--kernels", kernel, "--budget", "5m", "--confirm-calls", "0",
       "--agent", "openai:kernel-writer", "--agent-base-url", base_url, "--agent-jobs", "1",
       "--max-calls", std::to_string(max_calls), "--json"},
      "", 600);
}

TEST(AgentCpuOptimize, AFasterKernelTheAgentWritesBecomesTheHead) {
  const std::string answer =
      "NAME: f16 convert\nWHY: decode with vcvtph2ps\n```cpp\n" + faster_attn_out() + "```\n";
  agents::testing::TestHttpServer server(
      "/v1/chat/completions", [&](int, const httplib::Request&, httplib::Response& res) {
        res.set_content(
            agents::testing::reply_body("openai", {answer, "kernel-writer", 4000, 2000, false}),
            "application/json");
      });
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  const CliRun run = optimize_with_agent(ws, "attn_out", server.base_url(), 2);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["accepted"], 1) << run.err;
  EXPECT_EQ(j["stopped"], "agent budget spent: --max-calls 2 (2 calls made)");
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_GT(j["kernels"][0]["speedup"].get<double>(), 1.5) << j.dump(2);

  const auto tree =
      nlohmann::json::parse(run_headway({"tree", "attn_out", "--workspace", ws, "--json"}).out);
  const auto& head = tree["nodes"][tree["head"].get<int>() - 1];
  EXPECT_EQ(head["design"], "agent/f16_convert");
  EXPECT_EQ(head["status"], "accepted");
  EXPECT_EQ(head["agent_call"]["model"], "kernel-writer");
  const auto usage =
      nlohmann::json::parse(run_headway({"agents", "usage", "--workspace", ws, "--json"}).out);
  EXPECT_EQ(usage["total"]["calls"], 2);
  EXPECT_EQ(usage["total"]["accepted"], 1);
  EXPECT_EQ(usage["total"]["outcomes"]["duplicate"], 1) << usage.dump(2);
}

// A kernel of the user's, from a spec: the prompt carries its argument table and its reference,
// and the faster kernel the agent answers becomes its head.
TEST(AgentCpuOptimize, AFasterKernelForASpecKernelBecomesItsHead) {
  const fs::path spec_dir = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/gemv_f8";
  const std::string design = file_text(spec_dir / "designs/lut_rows.cc");
  const std::string answer = "NAME: lut\nWHY: decode through a table\n```cpp\n" + design + "```\n";
  std::mutex mu;
  std::string first_prompt;
  agents::testing::TestHttpServer server(
      "/v1/chat/completions", [&](int, const httplib::Request& req, httplib::Response& res) {
        {
          std::lock_guard lock(mu);
          if (first_prompt.empty()) first_prompt = req.body;
        }
        res.set_content(
            agents::testing::reply_body("openai", {answer, "kernel-writer", 4000, 2000, false}),
            "application/json");
      });
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  // Without its [designs] table the library has nothing for it: the agent is the only proposer.
  fs::create_directories(tmp.path() / "spec");
  for (const char* f : {"gemv_f8_reference.c", "gemv_f8_inputs.c", "gemv_f8_cpu.cc"})
    fs::copy_file(spec_dir / f, tmp.path() / "spec" / f);
  std::string text = file_text(spec_dir / "gemv_f8.toml");
  write_file(tmp.path() / "spec/gemv_f8.toml", text.substr(0, text.find("\n# The design library")));
  ASSERT_EQ(
      run_headway({"kernel", "add", (tmp.path() / "spec/gemv_f8.toml").string(), "--workspace", ws},
                  "", 300)
          .exit_code,
      0);
  const CliRun run = optimize_with_agent(ws, "gemv_f8", server.base_url(), 1);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["accepted"], 1) << run.err;
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_GT(j["kernels"][0]["speedup"].get<double>(), 3.0) << j.dump(2);
  const auto tree =
      nlohmann::json::parse(run_headway({"tree", "gemv_f8", "--workspace", ws, "--json"}).out);
  EXPECT_EQ(tree["nodes"][tree["head"].get<int>() - 1]["design"], "agent/lut");
  // The prompt states the contract: the argument table, the tolerance and the reference.
  EXPECT_NE(first_prompt.find("`w`: weight, f8e4m3 [N, K]"), std::string::npos) << first_prompt;
  EXPECT_NE(first_prompt.find("decode (N = 2048, K = 3840)"), std::string::npos);
  EXPECT_NE(first_prompt.find("acc += w[r * k + c] * x[c];"), std::string::npos);
}

}  // namespace
}  // namespace headway::cli
