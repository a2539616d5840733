#include "agents/kernel_prompt.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "agents/prompt_template.h"
#include "targets/registry/registry.h"
#include "targets/registry/test_targets.h"

namespace headway::agents {
namespace {

loop::ProposalContext context(std::string head_source) {
  loop::ProposalContext ctx;
  ctx.kernel = builtin_kernel("attn_out");
  ctx.head_source = std::move(head_source);
  ctx.head_design = "shift_pool";
  ctx.head_ms = 1.23456;
  ctx.floor_ms = 0.5;
  return ctx;
}

TEST(CutTo, KeepsShortTextAndSaysHowMuchWasCut) {
  EXPECT_EQ(cut_to("abc", 3), "abc");
  const std::string text(1000, 'x');
  const std::string cut = cut_to(text, 200);
  EXPECT_LE(cut.size(), 200u);
  const size_t kept = cut.find('\n');
  ASSERT_NE(kept, std::string::npos);
  EXPECT_NE(cut.find(fmt::format("[... {} characters cut ...]", 1000 - kept)), std::string::npos)
      << cut;
}

TEST(HeadersData, KeepsEveryHeaderWholeUnderTheLimitAndCutsTheRestToIt) {
  const auto headers = targets::test_cpu_target().candidate_headers();
  ASSERT_GE(headers.size(), 2u);
  size_t total = 0;
  for (const auto& h : headers) total += h.text.size();

  const auto whole = headers_data(targets::test_cpu_target(), total);
  ASSERT_EQ(whole.size(), headers.size());
  for (size_t i = 0; i < headers.size(); ++i) {
    EXPECT_EQ(whole[i]["path"], headers[i].path);
    EXPECT_EQ(whole[i]["text"], headers[i].text);
  }

  // A limit that ends inside the second header: the first whole, the second cut, no third.
  const size_t limit = headers[0].text.size() + 200;
  ASSERT_GT(headers[1].text.size(), 200u);
  const auto cut = headers_data(targets::test_cpu_target(), limit);
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_EQ(cut[0]["text"], headers[0].text);
  const std::string second = cut[1]["text"].get<std::string>();
  EXPECT_LE(second.size(), 200u);
  EXPECT_NE(second.find("characters cut"), std::string::npos) << second;
}

TEST(KernelPrompt, CarriesTheHeadTheFiguresTheHeadersAndWhatWasTried) {
  auto ctx = context("extern \"C\" void hw_attn_out(const hw_attn_out_args* a) {}");
  ctx.tried = {{"lut", "library", "rejected", "SLOWER: +4.1%"},
               {"agent/x", "openai:m variant", "build-failed", "error: 'foo' was not declared"}};
  const auto data = kernel_prompt_data(ctx, targets::test_cpu_target(),
                                       "## Chip facts\nmemory.read_bandwidth 50");
  EXPECT_EQ(data["kernel"], "attn_out");
  EXPECT_EQ(data["target"], "cpu");
  EXPECT_EQ(data["head_ms"], "1.235");
  EXPECT_EQ(data["floor_ms"], "0.500");
  EXPECT_EQ(data["head_source"], ctx.head_source);
  ASSERT_EQ(data["headers"].size(), 5u);
  EXPECT_EQ(data["headers"][0]["path"], "headway_kernel.h");
  EXPECT_EQ(data["headers"][2]["path"], "headway_rows.h");
  EXPECT_NE(data["headers"][2]["text"].get<std::string>().find("attn_out_rows"), std::string::npos)
      << "the drivers a design may reuse are shown whole, not cut";
  EXPECT_EQ(data["headers"][3]["path"], "headway_decoders.h");
  EXPECT_EQ(data["headers"][3]["text"].get<std::string>().find("characters cut"), std::string::npos)
      << "the decoders the designs use are shown whole, not cut";
  EXPECT_EQ(data["headers"][4]["path"], "headway_attn.h");
  EXPECT_EQ(data["headers"][4]["text"].get<std::string>().find("characters cut"), std::string::npos)
      << "the attention driver is shown whole, not cut";
  EXPECT_NE(data["headers"][0]["text"].get<std::string>().find("hw_attn_out_args"),
            std::string::npos)
      << "the ABI header declares the kernel's arguments";
  EXPECT_TRUE(data["has_tried"].get<bool>());
  ASSERT_EQ(data["tried"].size(), 2u);
  EXPECT_EQ(data["tried"][1]["reason"], "error: 'foo' was not declared");

  const std::string prompt = render_template(load_template("", "variant"), data, "");
  EXPECT_NE(prompt.find("1.235 ms"), std::string::npos);
  EXPECT_NE(prompt.find("agent/x (openai:m variant): build-failed: error: 'foo' was not declared"),
            std::string::npos)
      << prompt;
}

TEST(KernelPrompt, StatesTheKernelLanguagesCommentAndWhetherItHasAPreprocessor) {
  const auto cpu = kernel_prompt_data(context("int x;"), targets::test_cpu_target(), "");
  const std::string c_prompt = render_template(load_template("", "variant"), cpu, "");
  EXPECT_NE(c_prompt.find("A line comment starts with `//`. Answer in"), std::string::npos)
      << c_prompt;
  auto python = targets::make_target(
      "command",
      (std::filesystem::path(HEADWAY_SOURCE_DIR) / "packs/standin-py/target.toml").string());
  ASSERT_TRUE(python && python->identity().found) << (python ? python->identity().error : "");
  const auto data = kernel_prompt_data(context("x = 1"), *python, "");
  EXPECT_EQ(data["comment"], "#");
  EXPECT_TRUE(data["no_preprocessor"].get<bool>());
  const std::string prompt = render_template(load_template("", "variant"), data, "");
  EXPECT_NE(prompt.find("A line comment starts with `#`; the language has no C preprocessor"),
            std::string::npos)
      << prompt;
}

TEST(KernelPrompt, EverySectionIsBoundedAndTheWholePromptWithIt) {
  ContextLimits limits;
  limits.head_source = 2000;
  limits.headers = 1500;
  limits.cheat_sheet = 1000;
  limits.tried = 600;
  auto ctx = context(std::string(50000, 's'));
  for (int i = 0; i < 100; ++i)
    ctx.tried.push_back({"d" + std::to_string(i), "library", "rejected", std::string(40, 'r')});
  const auto data =
      kernel_prompt_data(ctx, targets::test_cpu_target(), std::string(30000, 'c'), limits);
  EXPECT_LE(data["head_source"].get<std::string>().size(), 2000u);
  EXPECT_LE(data["cheat_sheet"].get<std::string>().size(), 1000u);
  size_t headers = 0;
  for (const auto& h : data["headers"]) headers += h["text"].get<std::string>().size();
  EXPECT_LE(headers, 1500u);
  EXPECT_GT(data["tried"].size(), 0u);
  EXPECT_LT(data["tried"].size(), 100u);
  EXPECT_EQ(data["tried"][0]["design"], "d0") << "the most recent entries are kept";

  const auto tmpl = load_template("", "variant");
  const std::string prompt = render_template(tmpl, data, "");
  const size_t templates = tmpl.text.size() + load_template("", "context").text.size();
  EXPECT_LE(prompt.size(), templates + 2000 + 1500 + 1000 + 600 + 200);
  EXPECT_NE(prompt.find("characters cut"), std::string::npos);
}

TEST(KernelPrompt, UnknownFiguresAndAnEmptyHistoryLeaveTheirLinesOut) {
  auto ctx = context("int x;");
  ctx.head_ms.reset();
  ctx.floor_ms.reset();
  const auto data = kernel_prompt_data(ctx, targets::test_cpu_target(), "");
  EXPECT_FALSE(data.contains("head_ms"));
  EXPECT_FALSE(data["has_tried"].get<bool>());
  const std::string prompt = render_template(load_template("", "designer"), data, "");
  EXPECT_EQ(prompt.find(" ms"), std::string::npos) << prompt;
  EXPECT_EQ(prompt.find("Tried on this kernel"), std::string::npos);
}

}  // namespace
}  // namespace headway::agents
