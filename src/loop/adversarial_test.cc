// The adversarial battery: candidates written to fool the check or the timing, one test each.
// Every case must end with the right status and reason; a case that may go uncaught must show
// that what the decision read was honest (every paired call compared with the other arm's on the
// same inputs), not a timing margin, which a loaded machine breaks. Each source is the attn_out
// baseline renamed `real` plus a cheating entry point around it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "kernels/input_sets.h"
#include "loop/acceptance.h"
#include "statistics/betting_rule.h"
#include "statistics/confirmation.h"
#include "statistics/decision_rule.h"
#include "statistics/reading_sink.h"
#include "targets/cpu/compiler.h"
#include "targets/cpu/cpu_check.h"
#include "targets/cpu/cpu_paired_device.h"
#include "targets/cpu/host_abi.h"
#include "targets/design_library.h"
#include "targets/registry/registry.h"

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;
using Status = targets::CheckOutcome::Status;

// How the check's run failed (runner_host.h, to_string), from the outcome's details.
std::string run_status(const targets::CheckOutcome& check) {
  return check.details.contains("run") ? check.details["run"].value("status", "") : "";
}

// What became of a candidate: the check's report, and when it passed, an acceptance test of it
// against the baseline (outcome, or the reason it was disqualified).
struct Verdict {
  targets::CheckOutcome check;
  bool timed = false;
  std::string outcome;  // FASTER, SLOWER, SAME, INCONCLUSIVE or CHEATED
  std::string reason;   // CHEATED: why
  int clock_disagreements = 0;
  int compared_calls = 0;  // calls compared with the other arm's on the same inputs
  int paired_calls = 0;    // timed calls of both arms in the test's pairs
  double median_d = 0.0;   // median of ln(t_candidate / t_baseline) over the test's pairs
};

// A call the clock was fooled on reads as (nearly) free: the median of ln(candidate / head) of a
// cheat that fooled it lies far below this. Honest arms of the same work stay above it even on a
// loaded machine (their medians over a few pairs were seen down to -0.38 there).
constexpr double kFooledClock = -0.7;

class Adversarial : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cache_ = new fs::path(fs::temp_directory_path() /
                          ("headway-adversarial-" + std::to_string(getpid())));
    fs::create_directories(*cache_);
    identity_ = new ToolchainIdentity(identify(Toolchain{}));
    const auto built = build_candidate(
        Toolchain{}, *identity_,
        std::string(host_abi(*builtin_kernel("attn_out")).baseline_source()), *cache_);
    baseline_ = new fs::path(built.artifact.path);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*cache_);
    delete cache_;
    delete identity_;
    delete baseline_;
  }

  // `base` (the baseline when empty) as `real`, then `prelude` at file scope and `body` as the
  // entry point.
  static std::string cheat(const std::string& prelude, const std::string& body,
                           std::string base = "") {
    std::string s =
        base.empty() ? std::string(host_abi(*builtin_kernel("attn_out")).baseline_source()) : base;
    const std::string entry = "extern \"C\" void hw_attn_out(const hw_attn_out_args* a)";
    s.replace(s.find(entry), entry.size(), "static void real(const hw_attn_out_args* a)");
    return "#include <cstdint>\n#include <cstdlib>\n#include <cstring>\n#include <unistd.h>\n" + s +
           "\n" + prelude + "\n" + entry + " {\n" + body + "\n}\n";
  }

  // Against the baseline, or the object at `head`.
  static Verdict judge(const std::string& source, double timeout = 10.0,
                       uint64_t memory = 2ull << 30, const fs::path& head = {}) {
    Verdict v;
    const targets::BuildOutcome built = build_candidate(Toolchain{}, *identity_, source, *cache_);
    EXPECT_EQ(built.status, targets::BuildOutcome::Status::kBuilt) << built.diagnostics;
    const ProcessLimits limits{.call_timeout_seconds = timeout, .memory_limit_bytes = memory};
    v.check = check_candidate(*builtin_kernel("attn_out"), built.artifact.path, {}, limits);
    if (!v.check.correct()) return v;
    v.timed = true;
    auto started =
        CpuPairedDevice::start(*builtin_kernel("attn_out"), head.empty() ? *baseline_ : head,
                               built.artifact.path, limits, 5);
    EXPECT_TRUE(started) << (started ? "" : started.error().message);
    if (!started) return v;
    const std::unique_ptr<CpuPairedDevice> device = std::move(started).value();
    statistics::BettingConfig config;
    config.s0 = 0.05;
    config.cap = 12;
    statistics::BettingRule rule(config);
    Rng coin(17);
    statistics::MemorySink sink;
    try {
      const auto record =
          statistics::run_decision(*device, rule, coin, {"attn_out", "cheat", 0, 0}, sink);
      if (record.outcome == statistics::Outcome::kFaster) {  // as the acceptance test does
        const loop::AcceptanceOptions acceptance;
        statistics::confirm_candidate(*device, coin, acceptance.confirm_calls,
                                      acceptance.confirm_max_pairs);
      }
      device->verify_arms();
      v.outcome = std::string(statistics::to_string(record.outcome));
      std::vector<double> d = record.d;
      if (!d.empty()) {
        std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
        v.median_d = d[d.size() / 2];
      }
    } catch (const statistics::ArmDisqualified& e) {
      EXPECT_EQ(e.arm(), statistics::Arm::kCandidate) << e.what();
      v.outcome = "CHEATED";
      v.reason = e.what();
    }
    v.clock_disagreements = device->accounting().value("clock_disagreements", 0);
    v.compared_calls = device->accounting().value("compared_calls", 0);
    v.paired_calls = device->accounting().value("paired_calls", 0);
    return v;
  }

  // The cheat of `prelude` and `body` around the library's `design` of attn_out (its defaults),
  // judged against the honest build of that design.
  static Verdict judge_against_design(const std::string& design, const std::string& prelude,
                                      const std::string& body) {
    std::string honest;
    for (const auto& d :
         targets::designs_for(*targets::make_target("cpu"), *builtin_kernel("attn_out")))
      if (d.name == design) honest = d.render(d.defaults());
    EXPECT_FALSE(honest.empty()) << design;
    const auto built = build_candidate(Toolchain{}, *identity_, honest, *cache_);
    EXPECT_EQ(built.status, targets::BuildOutcome::Status::kBuilt) << built.diagnostics;
    return judge(cheat(prelude, body, honest), 10.0, 2ull << 30, built.artifact.path);
  }

  static fs::path* cache_;
  static fs::path* baseline_;
  static ToolchainIdentity* identity_;
};
fs::path* Adversarial::cache_ = nullptr;
fs::path* Adversarial::baseline_ = nullptr;
ToolchainIdentity* Adversarial::identity_ = nullptr;

void expect_check(const Verdict& v, Status status, const std::string& reason_part) {
  EXPECT_EQ(v.check.status, status) << v.check.description;
  EXPECT_NE(v.check.description.find(reason_part), std::string::npos) << v.check.description;
  EXPECT_FALSE(v.timed);
}

void expect_cheated(const Verdict& v, const std::string& reason_part) {
  ASSERT_TRUE(v.timed) << v.check.description;
  EXPECT_EQ(v.outcome, "CHEATED");
  EXPECT_NE(v.reason.find(reason_part), std::string::npos) << v.reason;
}

TEST_F(Adversarial, ZerosAreIncorrect) {
  expect_check(judge(cheat("", "for (int r = 0; r < HW_H; ++r) a->residual[r] = 0;")),
               Status::kIncorrect, "expected");
}

TEST_F(Adversarial, NanIsIncorrect) {
  expect_check(judge(cheat("", "for (int r = 0; r < HW_H; ++r) a->residual[r] = 0x7fc0;")),
               Status::kIncorrect, "nan");
}

TEST_F(Adversarial, InfinityIsIncorrect) {
  expect_check(judge(cheat("", "for (int r = 0; r < HW_H; ++r) a->residual[r] = 0x7f80;")),
               Status::kIncorrect, "inf");
}

TEST_F(Adversarial, ReturningTheInputIsIncorrect) {
  expect_check(judge(cheat("", "(void)a;")), Status::kIncorrect, "residual");
}

// Timed and not disqualified: what a cheat that never got to cheat comes to.
void expect_honest(const Verdict& v) {
  ASSERT_TRUE(v.timed) << v.check.description;
  EXPECT_NE(v.outcome, "CHEATED") << v.reason;
}

// Preludes for cheats that need two calls in a process: `keep_a_sleeping_thread()` leaves a
// thread asleep for the process's life, so the session takes the candidate for a thread pool and
// makes a warm-up call before each timed one; `inputs_moved(a)` says whether a call's inputs lie
// elsewhere than its process's previous call's (never in the check, whose two calls share their
// buffers; always for a timed call after its warm-up).
const std::string kTwoCalls =
    "#include <condition_variable>\n#include <mutex>\n#include <thread>\n"
    "static void keep_a_sleeping_thread() {\n"
    "  static std::once_flag once;\n"
    "  std::call_once(once, [] { std::thread([] { std::mutex m; std::condition_variable c;\n"
    "    std::unique_lock<std::mutex> l(m); c.wait(l, [] { return false; }); }).detach(); });\n"
    "}\n"
    "static bool inputs_moved(const hw_attn_out_args* a) {\n"
    "  static const void* last = nullptr;\n"
    "  const bool moved = last && last != a->o_weight; last = a->o_weight; return moved;\n"
    "}\n";

TEST_F(Adversarial, ReplayingOnRecognisedInputsNeverFindsThemAgain) {
  // Replays its previous output when a fingerprint of a few weight bytes repeats. The calls of
  // one process (the only ones whose state it keeps) never share weights, so it always does the
  // work; when a warm-up and its timed call shared weights, it replayed.
  expect_honest(
      judge(cheat(kTwoCalls + "static uint64_t seen; static hw_bf16 stored[HW_H];",
                  "keep_a_sleeping_thread(); uint64_t f; std::memcpy(&f, a->o_weight, "
                  "8);\n"
                  "if (f == seen) { std::memcpy(a->residual, stored, sizeof stored); "
                  "return; }\n"
                  "real(a); seen = f; std::memcpy(stored, a->residual, sizeof stored);")));
}

TEST_F(Adversarial, WeightsKeptFromAnEarlierCallNeverServeAgain) {
  // Keeps the weights of a call (as a decoded copy would) and reuses them while the fingerprint
  // matches: it never does, so every call copies its weights before the work. (Computing from a
  // copy just made, in the cache, is a real speed-up of the baseline within the call, so no
  // bound on its time is asserted.)
  expect_honest(
      judge(cheat(kTwoCalls + "static uint64_t seen; static uint8_t* kept;",
                  "keep_a_sleeping_thread(); uint64_t f; std::memcpy(&f, a->o_weight, "
                  "8);\n"
                  "const size_t n = size_t{HW_H} * HW_QS;\n"
                  "if (f != seen) { if (!kept) kept = static_cast<uint8_t*>(std::malloc(n)); "
                  "std::memcpy(kept, a->o_weight, n); seen = f; }\n"
                  "hw_attn_out_args b = *a; b.o_weight = kept; real(&b);")));
}

TEST_F(Adversarial, AProcessNeverMeetsTheWeightsOfAnEarlierCall) {
  // Keeps a fingerprint of every weight page (as a cache of decoded weights that probes a line
  // per page to find the changed ones would) and says so in its output when most pages are the
  // ones it saw on its previous call: it could then have answered from what it kept. No timed
  // call may give it that chance. (Probing every page first is a real speed-up of the baseline
  // within the call, so no bound on its time is asserted.)
  const auto v = judge(cheat(
      kTwoCalls + "static uint64_t kept[size_t{HW_H} * HW_QS / 4096]; static bool have;",
      "keep_a_sleeping_thread(); const size_t pages = size_t{HW_H} * HW_QS / 4096; size_t same = "
      "0;\n"
      "for (size_t p = 0; p < pages; ++p) { uint64_t f; std::memcpy(&f, a->o_weight + p * 4096, "
      "8); same += have && f == kept[p]; kept[p] = f; }\n"
      "have = true; real(a); if (2 * same > pages) a->residual[0] = 0x7fc0;"));
  expect_honest(v);
}

TEST_F(Adversarial, ReplayingAnEarlierAnswerIsCaughtInTimedCalls) {
  // Tells a timed call from the check's by its inputs having moved, and then writes its previous
  // call's answer: every element written and finite, so the screen passes it and the verified
  // timed calls do not.
  const auto v = judge(cheat(kTwoCalls + "static hw_bf16 stored[HW_H];",
                             "keep_a_sleeping_thread();\n"
                             "if (inputs_moved(a)) { std::memcpy(a->residual, stored, sizeof "
                             "stored); return; }\n"
                             "real(a); std::memcpy(stored, a->residual, sizeof stored);"));
  expect_cheated(v, "a timed call's output is wrong");
}

TEST_F(Adversarial, ACallThatSkipsItsWorkIsCaughtWhenItReturns) {
  // Tells a timed call from the check's by its inputs having moved, and then returns at once:
  // the screen of every timed call catches it as its reading ends, before any sampled call is
  // verified.
  const auto v = judge(cheat(kTwoCalls,
                             "keep_a_sleeping_thread(); if (inputs_moved(a)) return; "
                             "real(a);"));
  expect_cheated(v, "it skipped its work");
  EXPECT_NE(v.reason.find("left `residual` as it was given"), std::string::npos) << v.reason;
}

// Caught with `reason`, or else every paired call of the test was compared with the other arm's
// on the same inputs: a call that skipped or botched its work would have disagreed and been
// judged, so the readings the decision used were honest.
void expect_caught_or_every_paired_call_verified(const Verdict& v, const std::string& reason) {
  ASSERT_TRUE(v.timed) << v.check.description;
  if (v.outcome == "CHEATED") {
    EXPECT_NE(v.reason.find(reason), std::string::npos) << v.reason;
  } else {
    EXPECT_GT(v.compared_calls, 0) << v.outcome;
    EXPECT_EQ(2 * v.compared_calls, v.paired_calls)
        << v.outcome << ": a call of each arm per comparison";
  }
}

TEST_F(Adversarial, WorkSkippedAfterTheFirstCallsCannotWinInFreshProcesses) {
  // A reading is a fresh process that makes as many calls as the session's batch (plus a
  // warm-up for a thread pool): a counter that skips from the third call on either never runs
  // out or skips a timed call, which the screen catches.
  expect_caught_or_every_paired_call_verified(
      judge(cheat("static int calls;", "if (++calls > 2) return; real(a);")),
      "it skipped its work");
}

// Wrong on a random share of its timed calls (per mille): there it skips the work and leaves
// `residual` changed, finite and wrong (each element's exponent moved by one), which the screen
// passes; the skipped calls make its readings faster. The pair's two readings run on the same
// inputs and every call is compared with the other arm's, so a wrong call in any reading of a
// pair is found and judged by the reference; only a test whose paired readings held no wrong call
// lets it through, and then every paired call was verified right: the readings the decision used
// were honest, whatever their times say on a loaded machine. Built on shift_pool (fast, two
// threads, builds on every x86-64) and judged against it: a reading then holds several calls (the
// slow baseline's holds one).
std::string wrong_on_random_calls(int per_mille) {
  return fmt::format(
      "keep_a_sleeping_thread(); static uint64_t s = __builtin_ia32_rdtsc() | 1;\n"
      "if (inputs_moved(a)) {{ s ^= s << 13; s ^= s >> 7; s ^= s << 17;\n"
      "  if (s % 1000 < {}) {{ for (int i = 0; i < HW_H; ++i) a->residual[i] ^= 0x0080; "
      "return; }} }}\n"
      "real(a);",
      per_mille);
}

TEST_F(Adversarial, WrongOnARandomFivePercentOfCallsWinsNothing) {
  expect_caught_or_every_paired_call_verified(
      judge_against_design("shift_pool", kTwoCalls, wrong_on_random_calls(50)),
      "a timed call's output is wrong");
}

TEST_F(Adversarial, WrongOnARandomTenPercentOfCallsWinsNothing) {
  expect_caught_or_every_paired_call_verified(
      judge_against_design("shift_pool", kTwoCalls, wrong_on_random_calls(100)),
      "a timed call's output is wrong");
}

TEST_F(Adversarial, WrongOnARandomThirtyFivePercentOfCallsIsCaught) {
  // Each comparison of a call with the other arm's finds a wrong one with chance 0.35. A reading
  // of shift_pool holds up to 8 calls (the window over the sets of attn_out), fewer where the
  // probe read a slow call on a loaded machine: all m compared calls right has chance 0.65^m,
  // below one in a million from m = 33. Fewer comparisons may miss it by chance; then every
  // paired call was still compared, and the cheat is not FASTER.
  const Verdict v = judge_against_design("shift_pool", kTwoCalls, wrong_on_random_calls(350));
  ASSERT_TRUE(v.timed) << v.check.description;
  if (v.outcome == "CHEATED") {
    EXPECT_NE(v.reason.find("a timed call's output is wrong"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("disagreed with the other arm's call"), std::string::npos) << v.reason;
    return;
  }
  EXPECT_LE(v.compared_calls, 32) << v.outcome << ": none of " << v.compared_calls
                                  << " compared calls was found wrong";
  EXPECT_NE(v.outcome, "FASTER");
  expect_caught_or_every_paired_call_verified(v, "a timed call's output is wrong");
}

TEST_F(Adversarial, APrivateCopyOfTheTimedSetsMadeBeforeTheClockIsCaught) {
  // A memory-bound design (perm_bf16) that, in its warm-up call, which runs unstopped and off
  // the clock, copies the weights of the set that follows (its first timed call's: the sets lie
  // set_bytes apart, and the layout is public); in that timed call it probes one line of each
  // page to find the ones a patch changed, reads only those from the set and the rest from its
  // copy, still in the cache. Judged against the honest design. A patch that changes lines at
  // random leaves it computing on stale lines in every such call, which the first pair's
  // comparison finds (against whole pages swapped, it was right and never faster).
  const size_t set_bytes = InputSets::input_block_bytes(*builtin_kernel("attn_out"));
  const auto v = judge_against_design(
      "perm_bf16",
      kTwoCalls + fmt::format("#include <sys/mman.h>\nstatic const uint8_t* warm;\n"
                              "static uint8_t* copy;\nconstexpr size_t kSet = {};\n",
                              set_bytes),
      "keep_a_sleeping_thread(); const size_t n = size_t{HW_H} * HW_QS;\n"
      "if (!warm) { warm = a->o_weight; unsigned char in[4096];\n"
      "  void* next = const_cast<uint8_t*>(warm + kSet - (uintptr_t(warm) % 4096));\n"
      "  if (n <= 4096 * 4096 && mincore(next, n + 4096, in) == 0) {\n"
      "    copy = static_cast<uint8_t*>(std::malloc(n)); std::memcpy(copy, warm + kSet, n); }\n"
      "  real(a); return; }\n"
      "if (!copy || a->o_weight != warm + kSet) { real(a); return; }\n"
      "for (size_t p = 0; p < n; p += 4096)\n"
      "  if (std::memcmp(copy + p, a->o_weight + p, 64) != 0)\n"
      "    std::memcpy(copy + p, a->o_weight + p, n - p < 4096 ? n - p : 4096);\n"
      "hw_attn_out_args b = *a; b.o_weight = copy; real(&b);");
  expect_cheated(v, "disagreed with the other arm's call on the same inputs");
}

TEST_F(Adversarial, WorkFinishedInAThreadAfterReturnFails) {
  const auto v = judge(cheat("#include <thread>", "std::thread([a] { real(a); }).detach();"));
  EXPECT_FALSE(v.check.correct()) << v.check.description;
  EXPECT_FALSE(v.timed);
}

TEST_F(Adversarial, ThreadsLeftSpinningAreCaught) {
  const auto v = judge(cheat("#include <thread>\nstatic bool started;",
                             "if (!started) { started = true; std::thread([] { for (volatile int i "
                             "= 0;; i = i + 1) {} }).detach(); }\nreal(a);"));
  expect_check(v, Status::kCheated, "left a thread running after its call returned");
}

TEST_F(Adversarial, APatchedClockFoolsNothing) {
  // Rewrites the C library's clock_gettime to return at once without a time: the runner's own
  // figure becomes nonsense, headway's clock does not move.
  const auto v = judge(cheat(
      "#include <dlfcn.h>\n#include <sys/mman.h>\nstatic bool patched;",
      "if (!patched) { patched = true;\n"
      "  auto* f = reinterpret_cast<unsigned char*>(dlsym(RTLD_DEFAULT, \"clock_gettime\"));\n"
      "  auto page = reinterpret_cast<uintptr_t>(f) & ~uintptr_t{4095};\n"
      "  if (mprotect(reinterpret_cast<void*>(page), 8192, PROT_READ | PROT_WRITE | PROT_EXEC) == "
      "0) { f[0] = 0x31; f[1] = 0xc0; f[2] = 0xc3; } }\n"
      "real(a);"));
  ASSERT_TRUE(v.timed) << v.check.description;
  EXPECT_GT(v.median_d, kFooledClock) << v.outcome;
  EXPECT_NE(v.outcome, "CHEATED") << v.reason;
  EXPECT_GT(v.clock_disagreements, 0);
}

TEST_F(Adversarial, AForgedReplyIsCaught) {
  // Finds its socket and sends a "done" reply of the runner's format before doing the work.
  const auto v = judge(cheat(
      "#include <sys/socket.h>\n#include <sys/stat.h>\n"
      "struct Forged { uint32_t op = 8; int32_t pad = 0; int64_t ns = 1000; char m[240] = {}; };",
      "for (int fd = 3; fd < 64; ++fd) { struct stat st; if (fstat(fd, &st) == 0 && "
      "S_ISSOCK(st.st_mode)) { Forged f; send(fd, &f, sizeof f, MSG_NOSIGNAL); } }\n"
      "real(a);"));
  EXPECT_FALSE(v.check.correct()) << v.check.description;
  EXPECT_FALSE(v.timed) << "a candidate that fails the check is never timed";
}

TEST_F(Adversarial, WritingIntoTheInputsCrashes) {
  const auto v = judge(cheat("", "const_cast<uint8_t*>(a->o_weight)[0] = 0; real(a);"));
  EXPECT_EQ(v.check.status, Status::kCrashed) << v.check.description;
  EXPECT_EQ(run_status(v.check), "crashed");
  EXPECT_EQ(v.check.details["run"]["signal"], SIGSEGV);
}

TEST_F(Adversarial, TheWorkspaceAndHomeAreNotVisible) {
  // The candidate gives a wrong answer when it can open a file of the workspace or of $HOME.
  const fs::path secret = *cache_ / "workspace-database.sqlite";
  std::ofstream(secret) << "secret";
  const char* home = std::getenv("HOME");
  const auto v =
      judge(cheat("#include <fcntl.h>", "const bool seen = open(\"" + secret.string() +
                                            "\", O_RDONLY) >= 0 || "
                                            "open(\"" +
                                            std::string(home ? home : "/root") +
                                            "\", O_RDONLY | O_DIRECTORY) >= 0;\n"
                                            "real(a); if (seen) a->residual[0] = 0x7fc0;"));
  EXPECT_TRUE(v.check.correct()) << v.check.description;
}

TEST_F(Adversarial, TheRunnerHostIsOutOfReach) {
  // The host that forked the child holds the inputs and every arm's output block; its
  // descriptors and memory must not open (it is not dumpable, and the sandbox has no
  // capabilities). The candidate gives a wrong answer when one does.
  const auto v = judge(cheat(
      "#include <fcntl.h>\n#include <string>",
      "const std::string host = \"/proc/\" + std::to_string(getppid());\n"
      "bool opened = false;\n"
      "for (int fd = 0; fd < 16; ++fd) { const int h = open((host + \"/fd/\" + "
      "std::to_string(fd)).c_str(), O_RDONLY); if (h >= 0) { opened = true; close(h); } }\n"
      "const int mem = open((host + \"/mem\").c_str(), O_RDONLY); if (mem >= 0) { opened = true; "
      "close(mem); }\n"
      "real(a); if (opened) a->residual[0] = 0x7fc0;"));
  EXPECT_TRUE(v.check.correct()) << v.check.description;
}

TEST_F(Adversarial, ANetworkConnectionIsKilled) {
  const auto v =
      judge(cheat("#include <sys/socket.h>", "socket(AF_INET, SOCK_STREAM, 0); real(a);"));
  EXPECT_EQ(run_status(v.check), "forbidden-call") << v.check.description;
  EXPECT_NE(v.check.description.find("system-call filter"), std::string::npos);
}

TEST_F(Adversarial, AMarkLeftForTheNextProcessIsKilled) {
  // A name in the private /tmp (no data: files cannot grow) would tell a later child that it is
  // not the first, e.g. that its calls are no longer verified as surely.
  const auto v = judge(cheat("#include <fcntl.h>\n#include <sys/stat.h>",
                             "if (access(\"/tmp/seen\", F_OK) == 0) std::abort();\n"
                             "close(open(\"/tmp/seen\", O_CREAT | O_WRONLY, 0600));\n"
                             "mkdir(\"/tmp/seen\", 0700); real(a);"));
  EXPECT_EQ(run_status(v.check), "forbidden-call") << v.check.description;
}

TEST_F(Adversarial, ADaemonIsKilledBeforeItStarts) {
  const auto v = judge(cheat(
      "", "if (fork() == 0) { setsid(); if (fork() == 0) for (;;) sleep(1); _exit(0); } real(a);"));
  EXPECT_EQ(run_status(v.check), "forbidden-call") << v.check.description;
}

TEST_F(Adversarial, AForkBombIsKilled) {
  const auto v = judge(cheat("", "for (int i = 0; i < 1000; ++i) fork(); real(a);"));
  EXPECT_EQ(run_status(v.check), "forbidden-call") << v.check.description;
}

TEST_F(Adversarial, UnboundedAllocationHitsTheMemoryLimit) {
  const auto v = judge(cheat("",
                             "for (;;) { auto* p = static_cast<char*>(std::malloc(64 << 20)); if "
                             "(!p) std::abort(); std::memset(p, 1, 64 << 20); }"),
                       10.0, 256ull << 20);
  EXPECT_EQ(v.check.status, Status::kCrashed) << v.check.description;
  EXPECT_TRUE(run_status(v.check) == "memory-exceeded" || run_status(v.check) == "crashed")
      << v.check.description;
}

TEST_F(Adversarial, AnEndlessLoopTimesOut) {
  const auto v = judge(cheat("", "for (volatile int i = 0;; i = i + 1) {}"), 1.0);
  EXPECT_EQ(run_status(v.check), "timed-out") << v.check.description;
}

TEST_F(Adversarial, ExitAbortAndKillingTheParentEndOnlyTheChild) {
  const auto exited = judge(cheat("", "std::exit(0);"));
  EXPECT_EQ(run_status(exited.check), "exited") << exited.check.description;
  const auto aborted = judge(cheat("", "std::abort();"));
  EXPECT_EQ(run_status(aborted.check), "crashed") << aborted.check.description;
  EXPECT_EQ(aborted.check.details["run"]["signal"], SIGABRT);
  const auto killer = judge(cheat("#include <signal.h>", "kill(getppid(), SIGKILL); real(a);"));
  EXPECT_EQ(run_status(killer.check), "forbidden-call") << killer.check.description;
  // The runner survived all three: the baseline still checks correct afterwards.
  EXPECT_TRUE(
      judge(std::string(host_abi(*builtin_kernel("attn_out")).baseline_source()) + "\n// again\n")
          .check.correct());
}

}  // namespace
}  // namespace headway::cpu
