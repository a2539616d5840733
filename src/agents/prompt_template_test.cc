#include "agents/prompt_template.h"

#include <gtest/gtest.h>

#include <fstream>

#include "store/test_temp_dir.h"

namespace headway::agents {
namespace {

PromptTemplate inline_template(const std::string& text) { return {"t", "test template", text}; }

TEST(PromptTemplate, RendersWithoutEscapingAndWithSectionsAndLists) {
  const nlohmann::json data = {{"code", "if (a < b && c > d) return \"x\";"},
                               {"ms", 1.5},
                               {"has_tried", true},
                               {"tried", {{{"design", "a"}}, {{"design", "b"}}}}};
  const std::string out =
      render_template(inline_template("{{code}}|{{ms}}|{{#has_tried}}{{#tried}}[{{design}}]{{/"
                                      "tried}}{{/has_tried}}{{#missing}}no{{/missing}}"),
                      data, "");
  EXPECT_EQ(out, "if (a < b && c > d) return \"x\";|1.5|[a][b]");
}

TEST(PromptTemplate, AnUnparsableTemplateNamesItsOrigin) {
  try {
    render_template(inline_template("{{#open}} never closed"), nlohmann::json::object(), "");
    FAIL() << "an unclosed section rendered";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("test template"), std::string::npos) << e.what();
  }
}

TEST(PromptTemplate, AnUnknownPartialIsAnErrorNotSilence) {
  try {
    render_template(inline_template("a {{> no_such_partial}} b"), nlohmann::json::object(), "");
    FAIL() << "an unknown partial rendered as nothing";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_partial"), std::string::npos) << e.what();
  }
}

TEST(PromptTemplate, AWorkspaceOverrideWinsAndItsPartialsResolve) {
  store::TestTempDir dir;
  std::ofstream(dir.path() / "variant.mustache") << "mine: {{kernel}} {{> extra}}";
  std::ofstream(dir.path() / "extra.mustache") << "and {{kernel}} again";
  const auto t = load_template(dir.path(), "variant");
  EXPECT_EQ(t.origin, (dir.path() / "variant.mustache").string());
  EXPECT_EQ(render_template(t, {{"kernel", "qkv"}}, dir.path()), "mine: qkv and qkv again");
  // Without the override directory the built-in one is used.
  EXPECT_EQ(load_template("", "variant").origin, "built-in prompts/variant.mustache");

  std::ofstream(dir.path() / "loop.mustache") << "{{> loop}}";
  EXPECT_THROW(render_template(load_template(dir.path(), "loop"), {}, dir.path()),
               std::runtime_error);
}

TEST(PromptTemplate, UnknownOrUnsafeNamesAreErrors) {
  EXPECT_THROW(load_template("", "no-such-role"), std::runtime_error);
  EXPECT_THROW(load_template("", "../etc/passwd"), std::runtime_error);
  EXPECT_THROW(load_template("", ""), std::runtime_error);
}

// Every built-in role template renders with the data the roles give it: no tag is left, and
// the values appear.
TEST(PromptTemplate, TheBuiltInRoleTemplatesRender) {
  const auto names = builtin_template_names();
  for (const char* role : {"system", "designer", "variant"}) {
    ASSERT_NE(std::find(names.begin(), names.end(), role), names.end()) << role;
  }
  const nlohmann::json data = {
      {"target", "cpu"},
      {"toolchain", "gcc-12"},
      {"kernel", "attn_out"},
      {"head_design", "shift_pool"},
      {"head_ms", "1.20"},
      {"floor_ms", "0.31"},
      {"head_source", "extern \"C\" void hw_attn_out() {}"},
      {"headers", {{{"path", "headway_kernel.h"}, {"text", "struct hw_attn_out_args;"}}}},
      {"cheat_sheet", "# Cheat sheet\nread bandwidth 50 GB/s"},
      {"has_tried", true},
      {"tried",
       {{{"design", "lut"},
         {"proposer", "library"},
         {"status", "rejected"},
         {"reason", "SLOWER"}}}}};
  for (const char* role : {"designer", "variant"}) {
    const std::string out = render_template(load_template("", role), data, "");
    EXPECT_EQ(out.find("{{"), std::string::npos) << role;
    for (const char* must :
         {"attn_out", "shift_pool", "1.20 ms", "0.31 ms", "extern \"C\" void hw_attn_out",
          "headway_kernel.h", "read bandwidth 50 GB/s", "lut (library): rejected: SLOWER"}) {
      EXPECT_NE(out.find(must), std::string::npos) << role << " lacks " << must << "\n" << out;
    }
  }
}

}  // namespace
}  // namespace headway::agents
