// `headway kernel new|check|add|list`, and the other verbs on a spec kernel, run as a user does.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_support.h"
#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

const fs::path kShippedSpecs = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs";

TEST(KernelVerb, NewWritesASpecThatChecksAndNeverOverwrites) {
  store::TestTempDir tmp;
  const CliRun made = run_headway({"kernel", "new", "scale2", "--dir", tmp.path().string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const fs::path spec = tmp.path() / "scale2/scale2.toml";
  const CliRun checked = run_headway({"kernel", "check", spec.string(), "--json"}, "", 300);
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  const auto j = nlohmann::json::parse(checked.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["shapes"][0]["shape"], "default");
  EXPECT_EQ(j["shapes"][0]["bytes_to_move"], 3 * 4096 * 2);
  EXPECT_EQ(j["shapes"][0]["checked"]["baseline"], "correct (seed 1)");

  write_file(tmp.path() / "scale2/scale2_cpu.cc", "// mine\n");
  const CliRun again = run_headway({"kernel", "new", "scale2", "--dir", tmp.path().string()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("scale2.toml exists; nothing was written"), std::string::npos)
      << again.err;
  EXPECT_EQ(file_text(tmp.path() / "scale2/scale2_cpu.cc"), "// mine\n");
  EXPECT_EQ(run_headway({"kernel", "new", "qkv", "--dir", tmp.path().string()}).exit_code, 2);
  EXPECT_EQ(run_headway({"kernel", "new", "Bad-Name", "--dir", tmp.path().string()}).exit_code, 2);
}

// `kernel new --json` says what it wrote, as absolute paths; its errors keep their exit codes
// and leave standard output empty.
TEST(KernelVerb, NewJsonNamesTheFilesItWrote) {
  store::TestTempDir tmp;
  const CliRun made =
      run_headway({"kernel", "new", "scale3", "--dir", "here", "--json"}, tmp.path().string());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto j = nlohmann::json::parse(made.out);
  const fs::path dir = fs::weakly_canonical(tmp.path()) / "here/scale3";
  EXPECT_EQ(j["kernel"], "scale3");
  EXPECT_EQ(j["dir"], dir.string());
  EXPECT_EQ(j["spec"], (dir / "scale3.toml").string());
  EXPECT_EQ(j["files"], nlohmann::json::array({(dir / "scale3.toml").string(),
                                               (dir / "scale3_reference.c").string(),
                                               (dir / "scale3_cpu.cc").string()}));
  for (const auto& file : j["files"]) EXPECT_TRUE(fs::exists(file.get<std::string>())) << file;
  const CliRun again =
      run_headway({"kernel", "new", "scale3", "--dir", "here", "--json"}, tmp.path().string());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.out, "");
  EXPECT_NE(again.err.find("scale3.toml exists; nothing was written"), std::string::npos)
      << again.err;
  const CliRun built_in = run_headway({"kernel", "new", "qkv", "--json"}, tmp.path().string());
  EXPECT_EQ(built_in.exit_code, 2);
  EXPECT_EQ(built_in.out, "");
}

TEST(KernelVerb, APlantedBugInABaselineIsRejectedByKernelCheckAndByCheck) {
  store::TestTempDir tmp;
  ASSERT_EQ(run_headway({"kernel", "new", "mul", "--dir", tmp.path().string()}).exit_code, 0);
  const fs::path dir = tmp.path() / "mul";
  std::string baseline = file_text(dir / "mul_cpu.cc");
  const std::string bug = "i < a->dims[0] - 1;";  // the last element is never written
  baseline.replace(baseline.find("i < a->dims[0];"), 15, bug);
  write_file(dir / "mul_cpu.cc", baseline);
  const CliRun checked = run_headway({"kernel", "check", (dir / "mul.toml").string()}, "", 300);
  EXPECT_EQ(checked.exit_code, 1) << checked.err;
  EXPECT_NE(checked.out.find("cpu baseline: incorrect"), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find("did not write `out`[4095]"), std::string::npos) << checked.out;

  const CliRun check = run_headway(
      {"check", "--kernel", (dir / "mul.toml").string(), "--source", (dir / "mul_cpu.cc").string()},
      "", 300);
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.out.find("mul: incorrect"), std::string::npos) << check.out;
}

TEST(KernelVerb, ABadSpecIsRefusedWithItsFileAndLine) {
  store::TestTempDir tmp;
  ASSERT_EQ(run_headway({"kernel", "new", "mul", "--dir", tmp.path().string()}).exit_code, 0);
  const fs::path spec = tmp.path() / "mul/mul.toml";
  std::string text = file_text(spec);
  text.replace(text.find("N = 4096"), 8, "N = 4095\nM = 3");
  write_file(spec, text);
  const CliRun checked = run_headway({"kernel", "check", spec.string()});
  EXPECT_EQ(checked.exit_code, 2);
  EXPECT_EQ(checked.err, "headway: " + spec.string() + ":12: 'M' names no dimension (dims: N)\n");

  write_file(tmp.path() / "mul/mul_reference.c", "void headway_reference(void) { syntax error }\n");
  text.replace(text.find("\nM = 3"), 6, "");
  write_file(spec, text);
  const CliRun broken = run_headway({"kernel", "check", spec.string()});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("mul_reference.c: the reference does not build"), std::string::npos)
      << broken.err;

  // A reference that crashes is the spec's error, said in one line; headway goes on.
  write_file(tmp.path() / "mul/mul_reference.c",
             "#include <stdint.h>\nvoid headway_reference(double* const* a, const int64_t* d) {\n"
             "  (void)a; (void)d; *(volatile int*)0 = 1;\n}\n");
  const CliRun crashed = run_headway({"kernel", "check", spec.string()});
  EXPECT_EQ(crashed.exit_code, 2);
  EXPECT_EQ(crashed.err, "headway: " + spec.string() +
                             ": shape set default: the reference crashed: Segmentation fault\n");
}

TEST(KernelVerb, AddCopiesTheSpecIntoTheWorkspaceWhereEveryVerbFindsIt) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  const std::string spec = (kShippedSpecs / "kv_append/kv_append.toml").string();
  const CliRun added = run_headway({"kernel", "add", spec, "--workspace", ws}, "", 300);
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_TRUE(fs::exists(fs::path(ws) / "kernels/kv_append/kv_append_reference.c"));
  EXPECT_TRUE(fs::exists(fs::path(ws) / "kernels/kv_append/kv_append_cpu.cc"));
  const CliRun twice = run_headway({"kernel", "add", spec, "--workspace", ws, "--json"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.out, "");
  EXPECT_NE(twice.err.find("kernel kv_append is already added"), std::string::npos) << twice.err;
  const CliRun replaced =
      run_headway({"kernel", "add", spec, "--workspace", ws, "--replace", "--json"});
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  const auto j = nlohmann::json::parse(replaced.out);
  const fs::path copy = fs::weakly_canonical(ws) / "kernels/kv_append";
  EXPECT_EQ(j["kernel"], "kv_append");
  EXPECT_EQ(j["spec"], spec);
  EXPECT_EQ(j["added"], (copy / "kv_append.toml").string());
  EXPECT_EQ(j["files"], nlohmann::json::array({(copy / "kv_append.toml").string(),
                                               (copy / "kv_append_reference.c").string(),
                                               (copy / "kv_append_cpu.cc").string()}));
  EXPECT_EQ(j["replaced"], true);
  EXPECT_EQ(j["workspace"], fs::weakly_canonical(ws).string());
  EXPECT_EQ(j["target"], "cpu");
  EXPECT_EQ(j["shapes"],
            nlohmann::json::parse(
                R"([{"shape": "decode", "check_only": false, "bytes_to_move": 1028}])"));
  EXPECT_EQ(j["designs"], nlohmann::json::array());

  const auto list =
      nlohmann::json::parse(run_headway({"kernel", "list", "--workspace", ws, "--json"}).out);
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[3]["kernel"], "kv_append");
  EXPECT_EQ(list[3]["bytes_to_move"], 512 + 4 + 512);

  // `check` has no --workspace: it finds the kernel in the workspace it runs in.
  const std::string writes_two_rows = R"(#include <cstdint>
typedef struct { const uint16_t* k; const int32_t* slot; uint16_t* cache; const int64_t* dims; } args;
extern "C" void hw_kv_append(const args* a) {
  for (int64_t i = 0; i < a->dims[1]; ++i) {
    a->cache[*a->slot * a->dims[1] + i] = a->k[i];
    a->cache[((*a->slot + 1) % a->dims[0]) * a->dims[1] + i] = a->k[i];
  }
}
)";
  write_file(tmp.path() / "two_rows.cc", writes_two_rows);
  const CliRun check = run_headway(
      {"check", "--kernel", "kv_append", "--source", (tmp.path() / "two_rows.cc").string()}, ws,
      300);
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.out.find("which the kernel must not touch"), std::string::npos) << check.out;
}

// Outside the workspace, every verb that takes --kernel finds an added kernel through
// --workspace, and without it says how.
TEST(KernelVerb, AnAddedKernelIsFoundFromOutsideTheWorkspaceThroughWorkspace) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  const std::string spec = (kShippedSpecs / "rmsnorm/rmsnorm.toml").string();
  ASSERT_EQ(run_headway({"kernel", "add", spec, "--workspace", ws}, "", 300).exit_code, 0);
  const std::string baseline = (kShippedSpecs / "rmsnorm/rmsnorm_cpu.cc").string();
  const std::string outside = tmp.path().string();

  const CliRun check = run_headway(
      {"check", "--kernel", "rmsnorm", "--source", baseline, "--workspace", ws}, outside, 300);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  const CliRun compare = run_headway({"compare", "--kernel", "rmsnorm", "--a", baseline, "--b",
                                      baseline, "--cap", "4", "--workspace", ws, "--json"},
                                     outside, 300);
  EXPECT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_EQ(nlohmann::json::parse(compare.out)["kernel"], "rmsnorm");
  const CliRun bench =
      run_headway({"bench", "--kernel", "rmsnorm", "--readings", "3", "--workspace", ws, "--json"},
                  outside, 300);
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  const auto benched = nlohmann::json::parse(bench.out)["kernels"];
  ASSERT_EQ(benched.size(), 2u) << "every shape set timed";
  EXPECT_EQ(benched[0]["shape_set"], "gemma4");
  EXPECT_EQ(benched[1]["shape_set"], "small");
  EXPECT_LT(benched[1]["bytes"].get<int64_t>(), benched[0]["bytes"].get<int64_t>());
  const CliRun small = run_headway({"bench", "--kernel", "rmsnorm", "--shape-set", "small",
                                    "--readings", "3", "--workspace", ws, "--json"},
                                   outside, 300);
  ASSERT_EQ(small.exit_code, 0) << small.err;
  const auto one = nlohmann::json::parse(small.out)["kernels"];
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["shape_set"], "small");
  const CliRun no_such = run_headway(
      {"bench", "--kernel", "rmsnorm", "--shape-set", "huge", "--workspace", ws}, outside, 300);
  EXPECT_EQ(no_such.exit_code, 2);
  EXPECT_NE(no_such.err.find("kernel rmsnorm has no shape set 'huge' (it has: gemma4, small)"),
            std::string::npos)
      << no_such.err;

  // Without --workspace: unknown, with a hint; a folder that is no workspace: its own error.
  const CliRun unknown =
      run_headway({"check", "--kernel", "rmsnorm", "--source", baseline}, outside, 300);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown kernel 'rmsnorm' (known: qkv, attn_out, ffn; a kernel "
                             "added to a workspace needs --workspace)"),
            std::string::npos)
      << unknown.err;
  const CliRun typo = run_headway(
      {"check", "--kernel", "rmsnrm", "--source", baseline, "--workspace", ws}, "", 300);
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("(known: qkv, attn_out, ffn, rmsnorm)"), std::string::npos) << typo.err;
  const CliRun nowhere = run_headway(
      {"compare", "--kernel", "rmsnorm", "--a", baseline, "--b", baseline, "--workspace", outside},
      "", 300);
  EXPECT_EQ(nowhere.exit_code, 2) << nowhere.err;
  EXPECT_NE(nowhere.err.find("headway: "), std::string::npos) << nowhere.err;
  // Every verb's --kernel help says so.
  for (const char* verb : {"check", "compare", "bench"}) {
    const CliRun help = run_headway({verb, "--help"});
    EXPECT_NE(help.out.find("a kernel added to the workspace"), std::string::npos) << verb;
    EXPECT_EQ(help.out.find("qkv, attn_out or ffn"), std::string::npos) << verb;
  }
}

// A copy of rmsnorm with a check-only shape set "tiny" (N = 64) first: `check` (whole or
// --shape-set), `compare`'s check and `kernel check` check it; `bench` and `compare` time the
// other two only, and `bench --shape-set tiny` is refused.
TEST(KernelVerb, ACheckOnlyShapeSetIsCheckedByEveryVerbAndTimedByNone) {
  store::TestTempDir tmp;
  for (const auto& entry : fs::directory_iterator(kShippedSpecs / "rmsnorm"))
    fs::copy_file(entry.path(), tmp.path() / entry.path().filename());
  const fs::path spec = tmp.path() / "rmsnorm.toml";
  std::string text = file_text(spec);
  text.insert(text.find("[[shapes]]"),
              "[[shapes]]\nname = \"tiny\"\ncheck_only = true\nN = 64\n\n");
  write_file(spec, text);
  const std::string baseline = (tmp.path() / "rmsnorm_cpu.cc").string();
  // Wrong below N = 128 only: at tiny, never at the timed sets (N = 3840 and 1024).
  std::string wrong = file_text(baseline);
  wrong.insert(wrong.rfind('}'), "  if (n < 128) a->out[0] = hw::f32_to_bf16(1000.0f);\n");
  write_file(tmp.path() / "wrong.cc", wrong);
  const std::string bugged = (tmp.path() / "wrong.cc").string();

  const auto check = [&](const std::string& source, const std::string& shape_set) {
    std::vector<std::string> args = {"check", "--kernel", spec.string(), "--source", source};
    if (!shape_set.empty()) args.insert(args.end(), {"--shape-set", shape_set});
    return run_headway(args, "", 300);
  };
  EXPECT_EQ(check(baseline, "").exit_code, 0);
  const CliRun caught = check(bugged, "");
  EXPECT_EQ(caught.exit_code, 1) << caught.err;
  EXPECT_NE(caught.out.find("at shape set tiny: "), std::string::npos) << caught.out;
  EXPECT_EQ(check(bugged, "small").exit_code, 0);
  const CliRun tiny = check(bugged, "tiny");
  EXPECT_EQ(tiny.exit_code, 1) << tiny.err;
  EXPECT_EQ(check(baseline, "tiny").exit_code, 0);
  const CliRun unknown = check(baseline, "huge");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("has no shape set 'huge' (it has: gemma4, tiny, small)"),
            std::string::npos)
      << unknown.err;

  const CliRun bench = run_headway(
      {"bench", "--kernel", spec.string(), "--source", bugged, "--readings", "3", "--json"}, "",
      300);
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  const auto benched = nlohmann::json::parse(bench.out)["kernels"];
  ASSERT_EQ(benched.size(), 2u) << benched.dump(2);
  EXPECT_EQ(benched[0]["shape_set"], "gemma4");
  EXPECT_EQ(benched[1]["shape_set"], "small");
  const CliRun refused =
      run_headway({"bench", "--kernel", spec.string(), "--shape-set", "tiny"}, "", 300);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("shape set 'tiny' of kernel rmsnorm is check-only: it is checked "
                             "(headway check), never timed"),
            std::string::npos)
      << refused.err;

  const CliRun compared = run_headway({"compare", "--kernel", spec.string(), "--a", baseline, "--b",
                                       baseline, "--cap", "4", "--json"},
                                      "", 300);
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_EQ(nlohmann::json::parse(compared.out)["shape_sets"],
            nlohmann::json::parse(R"(["gemma4", "small"])"));
  const CliRun compare_wrong = run_headway(
      {"compare", "--kernel", spec.string(), "--a", baseline, "--b", bugged, "--cap", "4"}, "",
      300);
  EXPECT_EQ(compare_wrong.exit_code, 1) << compare_wrong.err;
  EXPECT_NE(compare_wrong.err.find("is not correct: at shape set tiny: "), std::string::npos)
      << compare_wrong.err;

  const CliRun judged = run_headway({"kernel", "check", spec.string(), "--json"}, "", 300);
  ASSERT_EQ(judged.exit_code, 0) << judged.err;
  const auto shapes = nlohmann::json::parse(judged.out)["shapes"];
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0]["shape"], "tiny");
  EXPECT_EQ(shapes[0]["check_only"], true);
  EXPECT_EQ(shapes[1]["check_only"], false);
  EXPECT_EQ(shapes[0]["checked"]["baseline"], "correct (seed 1)");
}

// Opening a workspace reads its added specs and builds none of their references: `status` and
// `kernel list` run without a C compiler, and the reference is built when a verb needs it (check),
// its build's error then led by the kernel's name.
TEST(KernelVerb, AVerbThatNeedsNoReferenceCompilesNone) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  const std::string spec = (kShippedSpecs / "rmsnorm/rmsnorm.toml").string();
  ASSERT_EQ(run_headway({"kernel", "add", spec, "--workspace", ws}, "", 300).exit_code, 0);
  // The reference is C: its compiler is $CC, here one that does not exist.
  const auto without_cc = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"CC=/nonexistent/cc", HEADWAY_BINARY});
    return run_split("env", args, "", 300);
  };
  const CliRun status = without_cc({"status", "--workspace", ws, "--json"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  const CliRun list = without_cc({"kernel", "list", "--workspace", ws, "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(nlohmann::json::parse(list.out)[3]["kernel"], "rmsnorm");

  const std::string baseline = (kShippedSpecs / "rmsnorm/rmsnorm_cpu.cc").string();
  const CliRun check =
      without_cc({"check", "--kernel", "rmsnorm", "--source", baseline, "--workspace", ws});
  EXPECT_EQ(check.exit_code, 3) << check.err;
  EXPECT_NE(check.err.find("workspace kernel rmsnorm: "), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("/nonexistent/cc"), std::string::npos) << check.err;
  const CliRun built = run_headway(
      {"check", "--kernel", "rmsnorm", "--source", baseline, "--workspace", ws}, "", 300);
  EXPECT_EQ(built.exit_code, 0) << built.err;
}

// A design whose header is malformed is refused by `kernel check` and `kernel add` with the
// design's file and line (exit 2), and nothing is added; once fixed, `kernel add --json` names it.
TEST(KernelVerb, AMalformedDesignHeaderIsRefusedWithItsFileAndLine) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  ASSERT_EQ(run_headway({"kernel", "new", "mul", "--dir", tmp.path().string()}).exit_code, 0);
  const fs::path dir = tmp.path() / "mul";
  const std::string spec = (dir / "mul.toml").string();
  write_file(spec, file_text(spec) + "\n[designs]\ncpu = [\"lanes.cc\"]\n");
  const std::string body = file_text(dir / "mul_cpu.cc");
  write_file(dir / "lanes.cc", "// headway-design: lanes\n// param P_LANES 1 2 default 4\n" + body);
  const std::string error = "headway: " + (dir / "lanes.cc").string() +
                            ":2: design: parameter P_LANES: default 4 is not among its values "
                            "(1 2)\n";
  const CliRun checked = run_headway({"kernel", "check", spec, "--json"}, "", 300);
  EXPECT_EQ(checked.exit_code, 2);
  EXPECT_EQ(checked.err, error);
  EXPECT_EQ(checked.out, "");
  const CliRun added = run_headway({"kernel", "add", spec, "--workspace", ws, "--json"}, "", 300);
  EXPECT_EQ(added.exit_code, 2);
  EXPECT_EQ(added.err, error);
  EXPECT_EQ(added.out, "");
  EXPECT_FALSE(fs::exists(fs::path(ws) / "kernels/mul"));

  write_file(dir / "lanes.cc", "// headway-design: lanes\n// param P_LANES 1 2 default 2\n" + body);
  const CliRun fixed = run_headway({"kernel", "add", spec, "--workspace", ws, "--json"}, "", 300);
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  const auto j = nlohmann::json::parse(fixed.out);
  EXPECT_EQ(j["designs"], nlohmann::json::array({"lanes"}));
  EXPECT_EQ(j["replaced"], false);
  EXPECT_EQ(j["shapes"][0]["shape"], "default");
  EXPECT_TRUE(fs::exists(fs::path(ws) / "kernels/mul/lanes.cc"));
}

TEST(KernelVerb, AddRefusesASpecWhoseFilesLieOutsideItsFolder) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  ASSERT_EQ(run_headway({"kernel", "new", "mul", "--dir", tmp.path().string()}).exit_code, 0);
  fs::rename(tmp.path() / "mul/mul_reference.c", tmp.path() / "shared_reference.c");
  std::string text = file_text(tmp.path() / "mul/mul.toml");
  text.replace(text.find("\"mul_reference.c\""), 17, "\"../shared_reference.c\"");
  write_file(tmp.path() / "mul/mul.toml", text);
  const CliRun added = run_headway(
      {"kernel", "add", (tmp.path() / "mul/mul.toml").string(), "--workspace", ws}, "", 300);
  EXPECT_EQ(added.exit_code, 2);
  EXPECT_NE(added.err.find("lies outside the spec's folder"), std::string::npos) << added.err;
  EXPECT_FALSE(fs::exists(fs::path(ws) / "kernels/mul"));
}

// Three timed shape sets and a check-only one: a candidate is checked at each, and after a run
// status shows the baseline, the head and the ratio to the floor at each timed one (the run's
// final timings never time the check-only one).
TEST(KernelVerb, StatusShowsTheRatioToTheFloorAtEveryShapeSet) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  const fs::path from = kShippedSpecs / "rmsnorm";
  fs::create_directories(tmp.path() / "norm");
  for (const char* f : {"rmsnorm_reference.c", "rmsnorm_cpu.cc"})
    fs::copy_file(from / f, tmp.path() / "norm" / f);
  std::string text = file_text(from / "rmsnorm.toml");
  text.replace(text.find("[[arguments]]"), 0,
               "[[shapes]]\nname = \"wide\"\nN = 8192\n\n[[shapes]]\nname = \"tiny\"\n"
               "check_only = true\nN = 64\n\n");
  // A design, so that the run holds an acceptance test, its pairs drawn across the shape sets.
  text += "\n[designs]\ncpu = [\"two_rows.cc\"]\n";
  write_file(tmp.path() / "norm/rmsnorm.toml", text);
  std::string design = file_text(from / "rmsnorm_cpu.cc");
  design.replace(
      0, 0, "// headway-design: two_rows\n// summary: two sums\n// param P_SUMS 1 2 default 2\n");
  design.replace(design.find("  float sum_sq = 0.0f;"), 0, "  static_assert(P_SUMS >= 1);\n");
  write_file(tmp.path() / "norm/two_rows.cc", design);
  ASSERT_EQ(
      run_headway({"kernel", "add", (tmp.path() / "norm/rmsnorm.toml").string(), "--workspace", ws},
                  "", 300)
          .exit_code,
      0);
  const CliRun run = run_headway({"optimize", "--workspace", ws, "--kernels", "rmsnorm", "--budget",
                                  "5m", "--confirm-calls", "0", "--json"},
                                 "", 600);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CliRun status = run_headway({"status", "--workspace", ws, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const auto j = nlohmann::json::parse(status.out);
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& shapes = j["kernels"][0]["shapes"];
  ASSERT_EQ(shapes.size(), 3u) << j.dump(2);
  const char* names[] = {"gemma4", "small", "wide"};
  const int n[] = {3840, 1024, 8192};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(shapes[i]["shape"], names[i]);
    EXPECT_EQ(shapes[i]["bytes_to_move"], 3 * 2 * n[i]);
    ASSERT_TRUE(shapes[i]["head_ms"].is_number()) << shapes.dump(2);
    ASSERT_TRUE(shapes[i]["ratio_to_floor"].is_number()) << shapes.dump(2);
    // Not asserted above 1: the floor follows the bandwidth the run measured, which a loaded
    // machine reads low.
    EXPECT_GT(shapes[i]["ratio_to_floor"].get<double>(), 0.0);
    EXPECT_NEAR(shapes[i]["ratio_to_floor"].get<double>(),
                shapes[i]["head_ms"].get<double>() / shapes[i]["floor_ms"].get<double>(), 1e-9);
  }
  EXPECT_EQ(shapes[0]["head_ms"], j["kernels"][0]["head_ms"]);
  int tests = 0;
  for (const auto& [outcome, count] : j["kernels"][0]["tests"].items()) tests += count.get<int>();
  EXPECT_GE(tests, 1) << j["kernels"][0].dump(2) << run.out;
  // A candidate wrong at one shape set only is wrong.
  std::string baseline = file_text(tmp.path() / "norm/rmsnorm_cpu.cc");
  baseline.replace(baseline.find("const int n = "), 0, "if (a->dims[0] == 8192) return;\n  ");
  write_file(tmp.path() / "wrong_when_wide.cc", baseline);
  const CliRun check = run_headway(
      {"check", "--kernel", "rmsnorm", "--source", (tmp.path() / "wrong_when_wide.cc").string()},
      ws, 300);
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.out.find("at shape set wide: "), std::string::npos) << check.out;
  // And one wrong at the check-only set only.
  baseline = file_text(tmp.path() / "norm/rmsnorm_cpu.cc");
  baseline.replace(baseline.find("const int n = "), 0, "if (a->dims[0] == 64) return;\n  ");
  write_file(tmp.path() / "wrong_when_tiny.cc", baseline);
  const CliRun tiny = run_headway(
      {"check", "--kernel", "rmsnorm", "--source", (tmp.path() / "wrong_when_tiny.cc").string()},
      ws, 300);
  EXPECT_EQ(tiny.exit_code, 1) << tiny.err;
  EXPECT_NE(tiny.out.find("at shape set tiny: "), std::string::npos) << tiny.out;
}

}  // namespace
}  // namespace headway::cli
