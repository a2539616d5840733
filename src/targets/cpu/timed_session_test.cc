// Readings of several timed calls in one request (TimedSession's batches): how many calls a
// reading makes, that every call of a batch is its own verified call, and that a candidate
// which does the work on its process's first call only is caught.
#include "targets/cpu/timed_session.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "targets/cpu/attn_out_sources_test_support.h"
#include "targets/cpu/compiler.h"
#include "targets/cpu/host_abi.h"
#include "targets/cpu/runner/harness_pool.h"

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;

class TimedSessionBatches : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cache_ =
        new fs::path(fs::temp_directory_path() / ("headway-batches-" + std::to_string(getpid())));
    fs::create_directories(*cache_);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*cache_);
    delete cache_;
  }
  static fs::path build(const std::string& source) {
    const targets::BuildOutcome built =
        build_candidate(Toolchain{}, identify(Toolchain{}), source, *cache_);
    EXPECT_EQ(built.status, targets::BuildOutcome::Status::kBuilt) << built.diagnostics;
    return built.artifact.path;
  }
  static std::string baseline() { return attn_out_baseline(); }
  // A session whose readings aim for far more kernel time than one call: as many calls per
  // reading as attn_out's inputs allow.
  static std::unique_ptr<TimedSession> start(const std::vector<fs::path>& objects,
                                             bool one_core = false) {
    SessionOptions options;
    options.timed_per_reading = 10.0;
    options.one_core = one_core;
    CallResult failure;
    auto session = TimedSession::start(*builtin_kernel("attn_out"), objects, options, &failure);
    EXPECT_TRUE(session) << failure.describe();
    return session;
  }
  // A runner host of attn_out with one arm, `object`, over `sets` input sets of `set_bytes`.
  static std::unique_ptr<RunnerHost> start_host(const SharedMemory* inputs, size_t set_bytes,
                                                int sets, const SharedMemory* writable,
                                                const fs::path& object, CallResult* failure) {
    RunnerSpec spec;
    spec.kernel = builtin_kernel("attn_out");
    spec.inputs = inputs;
    spec.set_bytes = set_bytes;
    spec.sets = sets;
    spec.writable = {writable};
    spec.objects = {object};
    return RunnerHost::start(spec, failure);
  }
  // One child of a host of `object` over one set of attn_out's inputs, with what it needs.
  struct OneChild {
    std::unique_ptr<SharedBuffers> buffers;
    std::unique_ptr<RunnerHost> host;
    std::unique_ptr<RunnerChild> child;
  };
  static OneChild spawn_one(const fs::path& object) {
    OneChild one;
    one.buffers = std::make_unique<SharedBuffers>(builtin_kernel("attn_out")->regions());
    CallResult failure;
    one.host = start_host(one.buffers->input_memory(), one.buffers->layout().input_bytes, 1,
                          one.buffers->writable_memory(), object, &failure);
    EXPECT_TRUE(one.host) << failure.describe();
    if (one.host) one.child = one.host->spawn(0, 0, 1, &failure);
    EXPECT_TRUE(one.child) << failure.describe();
    return one;
  }
  // The CPU `child` uses while this thread sleeps `ms` milliseconds.
  static double cpu_over(RunnerChild& child, int ms) {
    const double before = child.cpu_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return child.cpu_seconds() - before;
  }
  // Whether a thread of the child spins: it takes at least 15% of a CPU over 200 ms, which a
  // spinning thread gets even beside another test's busy process on a 2-CPU machine (over 40 ms,
  // a spinner read 13.5 ms there), and a sleeping one never does.
  static bool spins(RunnerChild& child) { return cpu_over(child, 200) > 0.03; }
  static fs::path* cache_;
};
fs::path* TimedSessionBatches::cache_ = nullptr;

// The baseline run as a part of an hw_parallel_run job on the harness's threads, its output
// spoiled where any other part did not run on a worker (off the calling thread).
std::string on_harness_candidate() {
  return "#include <atomic>\n#include <unistd.h>\n" +
         around_attn_out_baseline(
             "if (!hw_parallel_run || !hw_parallel_threads) return;  // no harness: no work\n"
             "struct Parts { const hw_attn_out_args* a; int caller; std::atomic<int> off; };\n"
             "Parts p{a, static_cast<int>(gettid()), {0}};\n"
             "const int n = hw_parallel_threads();\n"
             "if (hw_parallel_run(n, [](void* ctx, int tid) {\n"
             "      auto* q = static_cast<Parts*>(ctx);\n"
             "      if (tid == 0) real(q->a);\n"
             "      else if (static_cast<int>(gettid()) != q->caller) ++q->off;\n"
             "    }, &p) != 0) return;\n"
             "if (p.off != n - 1) a->residual[0] ^= 0x40;  // a part not on a worker: wrong\n");
}

// A function that makes an object's bytes differ from every other object's.
std::string unique_function(const std::string& name) {
  return "\nextern \"C\" const char* headway_test_" + name + "() { return \"" + name + "\"; }\n";
}

TEST_F(TimedSessionBatches, EveryReadingOfASessionMakesTheCallsItsProbeChose) {
  const fs::path a = build(baseline());
  const fs::path b = build(baseline() + "\n// a copy\n");
  auto session = start({a, b});
  ASSERT_TRUE(session);
  // The probe (a first reading of each arm) is made when the session starts.
  EXPECT_EQ(session->costs().readings, 2);
  const int calls = session->calls_per_reading();
  const KernelContract& kernel = *builtin_kernel("attn_out");
  EXPECT_EQ(calls, max_calls_per_reading(InputSets::input_block_bytes(kernel),
                                         InputSets::slot_bytes_of(kernel)));
  const double timed_before = session->costs().timed;
  double read = 0.0;
  for (int round = 0; round < 2; ++round) {
    for (int arm : {1, 0}) {
      const SessionReading r = session->reading(arm);
      ASSERT_TRUE(r.ok()) << r.failure();
      EXPECT_EQ(r.calls, calls);
      read += r.call.seconds;
    }
  }
  // A reading is the mean of its calls: the timed batches took `calls` times what they read.
  const double timed = session->costs().timed - timed_before;
  EXPECT_NEAR(timed, calls * read, 1e-9 * timed);
  // Every call of each arm's first batch was kept; each one's output matches its own inputs.
  EXPECT_FALSE(session->verify_sampled()) << "an honest batch failed verification";
}

TEST_F(TimedSessionBatches, CallsComparedWithTheOtherArmsAreNotKeptForTheReference) {
  SessionOptions options;
  options.timed_per_reading = 10.0;
  options.verify_fraction = 1.0;  // every call sampled
  CallResult failure;
  auto session = TimedSession::start(
      *builtin_kernel("attn_out"),
      {build(baseline() + "\n// compared, a\n"), build(baseline() + "\n// compared, b\n")}, options,
      &failure);
  ASSERT_TRUE(session) << failure.describe();
  const auto calls = static_cast<size_t>(session->calls_per_reading());
  ASSERT_GT(calls, 1u);
  EXPECT_EQ(session->kept_calls(), 2u) << "each probe's one call";
  ASSERT_TRUE(session->reading(0).ok());
  EXPECT_EQ(session->kept_calls(), 2 + calls) << "kept (whole) until compared";
  ASSERT_TRUE(session->reading(1, TimedSession::Inputs::kAsLastReading).ok());
  EXPECT_EQ(session->kept_calls(), 2u) << "both first readings' calls were compared";
  ASSERT_TRUE(session->reading(0).ok());
  EXPECT_EQ(session->kept_calls(), 2 + calls) << "sampled until compared";
  ASSERT_TRUE(session->reading(1, TimedSession::Inputs::kAsLastReading).ok());
  EXPECT_EQ(session->kept_calls(), 2u) << "both readings' calls were compared";
  EXPECT_FALSE(session->verify_sampled());
}

// A reading of an object checked whole and found right stands for the later sessions of this
// process (whole_readings.h): they keep its sampled calls only, while an object new to the
// process, or one whose whole reading was wrong, is kept whole again.
TEST_F(TimedSessionBatches, AReadingCheckedWholeIsNotKeptWholeAgainInTheProcess) {
  SessionOptions options;
  options.timed_per_reading = 10.0;
  options.verify_fraction = 0.0;  // only whole readings are kept
  // Objects of their own code (a comment alone builds the same bytes as the baseline, which
  // other tests of this process check).
  const fs::path honest = build(baseline() + unique_function("checked_whole_once"));
  const fs::path replays = build(around_attn_out_baseline(
      "static hw_bf16 first[HW_H]; static int calls = 0; static volatile int unique = 17;\n"
      "if (calls++ == 0) { real(a); std::memcpy(first, a->residual, sizeof first); }\n"
      "else std::memcpy(a->residual, first, sizeof first);"));
  CallResult failure;
  auto first =
      TimedSession::start(*builtin_kernel("attn_out"), {honest, replays}, options, &failure);
  ASSERT_TRUE(first) << failure.describe();
  const auto calls = static_cast<size_t>(first->calls_per_reading());
  ASSERT_GT(calls, 1u);
  ASSERT_TRUE(first->reading(0).ok());
  ASSERT_TRUE(first->reading(1).ok());
  EXPECT_EQ(first->kept_calls(), 2 + 2 * calls) << "both probes and both first readings";
  const auto caught = first->verify_sampled();
  ASSERT_TRUE(caught) << "the replayed answers passed";
  EXPECT_EQ(caught->arm, 1);
  // The honest arm's calls were all checked only where nothing wrong came before them: check it
  // whole again, alone, so that it is found right.
  auto alone = TimedSession::start(*builtin_kernel("attn_out"), {honest}, options, &failure);
  ASSERT_TRUE(alone) << failure.describe();
  ASSERT_EQ(static_cast<size_t>(alone->calls_per_reading()), calls);
  ASSERT_TRUE(alone->reading(0).ok());
  EXPECT_EQ(alone->kept_calls(), 1 + calls);
  ASSERT_FALSE(alone->verify_sampled());

  const fs::path fresh = build(baseline() + unique_function("new_to_the_process"));
  auto later =
      TimedSession::start(*builtin_kernel("attn_out"), {honest, replays, fresh}, options, &failure);
  ASSERT_TRUE(later) << failure.describe();
  ASSERT_EQ(static_cast<size_t>(later->calls_per_reading()), calls);
  EXPECT_EQ(later->kept_calls(), 2u) << "the probes of the wrong and the new object";
  ASSERT_TRUE(later->reading(0).ok());
  EXPECT_EQ(later->kept_calls(), 2u) << "the honest object's reading was checked whole before";
  ASSERT_TRUE(later->reading(1).ok());
  EXPECT_EQ(later->kept_calls(), 2 + calls) << "the wrong one's is kept whole again";
  ASSERT_TRUE(later->reading(2).ok());
  EXPECT_EQ(later->kept_calls(), 2 + 2 * calls) << "and the new one's";
  const auto again = later->verify_sampled();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->arm, 1);
}

TEST_F(TimedSessionBatches, AnArmWhoseProbeFailsReadsItsFailureNextWhileTheOthersBatch) {
  std::string crash = baseline();
  const std::string entry = "extern \"C\" void hw_attn_out(const hw_attn_out_args* a)";
  crash.replace(crash.find(entry), entry.size(),
                entry + " { __builtin_trap(); }\nstatic void real(const hw_attn_out_args* a)");
  auto session = start({build(crash), build(baseline())});
  ASSERT_TRUE(session);
  EXPECT_GT(session->calls_per_reading(), 1);  // chosen by the arm whose probe worked
  const SessionReading r = session->reading(0);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.call.status, CallResult::Status::kCrashed) << r.failure();
  const SessionReading ok = session->reading(1);
  ASSERT_TRUE(ok.ok()) << ok.failure();
  EXPECT_EQ(ok.calls, session->calls_per_reading());
}

// A short kernel timed beside a long one is read in the batches its own time allows: the probe
// takes the fastest arm, whichever comes first.
TEST_F(TimedSessionBatches, TheFastestArmsProbeSetsTheBatch) {
  std::string slow = baseline();
  const std::string entry = "extern \"C\" void hw_attn_out(const hw_attn_out_args* a)";
  slow.replace(slow.find(entry), entry.size(), "static void real(const hw_attn_out_args* a)");
  slow = "#include <time.h>\n" + slow + "\n" + entry +
         " {\n  timespec pause{0, 200000000};\n  nanosleep(&pause, nullptr);\n  real(a);\n}\n";
  SessionOptions options;
  options.timed_per_reading = 0.15;  // no call of the slow arm fits; several of the baseline's
  CallResult failure;
  auto session = TimedSession::start(*builtin_kernel("attn_out"), {build(slow), build(baseline())},
                                     options, &failure);
  ASSERT_TRUE(session) << failure.describe();
  const int calls = session->calls_per_reading();
  EXPECT_GT(calls, 1);
  for (int arm : {0, 1}) {
    const SessionReading r = session->reading(arm);
    ASSERT_TRUE(r.ok()) << r.failure();
    EXPECT_EQ(r.calls, calls);
  }
}

TEST_F(TimedSessionBatches, AnswersReplayedFromAProcesssFirstCallAreCaught) {
  // Its later calls write the first call's answer: every element written and finite, so only
  // the reference can tell.
  const std::string cheat = around_attn_out_baseline(
      "static hw_bf16 first[HW_H]; static int calls = 0;\n"
      "if (calls++ == 0) { real(a); std::memcpy(first, a->residual, sizeof first); }\n"
      "else std::memcpy(a->residual, first, sizeof first);");
  auto session = start({build(baseline()), build(cheat)});
  ASSERT_TRUE(session);
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(session->reading(0).ok());
    const SessionReading r = session->reading(1);
    ASSERT_TRUE(r.ok()) << r.failure();
  }
  ASSERT_GT(session->calls_per_reading(), 1);
  const auto cheat_found = session->verify_sampled();
  ASSERT_TRUE(cheat_found);
  EXPECT_EQ(cheat_found->arm, 1);
  EXPECT_NE(cheat_found->reason.find("wrong"), std::string::npos) << cheat_found->reason;
}

TEST_F(TimedSessionBatches, OneArmsKeptCallsAreCheckedAloneAndTheOthersStayKept) {
  SessionOptions options;
  options.timed_per_reading = 10.0;
  options.verify_fraction = 0.0;  // only whole readings are kept
  const std::string replays = around_attn_out_baseline(
      "static hw_bf16 first[HW_H]; static int calls = 0; static volatile int alone = 23;\n"
      "if (calls++ == 0) { real(a); std::memcpy(first, a->residual, sizeof first); }\n"
      "else std::memcpy(a->residual, first, sizeof first);");
  CallResult failure;
  auto session = TimedSession::start(
      *builtin_kernel("attn_out"),
      {build(baseline() + unique_function("checked_alone")), build(replays)}, options, &failure);
  ASSERT_TRUE(session) << failure.describe();
  const auto calls = static_cast<size_t>(session->calls_per_reading());
  ASSERT_TRUE(session->reading(0).ok());
  ASSERT_TRUE(session->reading(1).ok());
  ASSERT_EQ(session->kept_calls(), 2 + 2 * calls);
  EXPECT_FALSE(session->verify_sampled(0)) << "the honest arm's calls are right";
  EXPECT_EQ(session->kept_calls(), 1 + calls) << "the other arm's calls are still kept";
  const auto caught = session->verify_sampled(1);
  ASSERT_TRUE(caught);
  EXPECT_EQ(caught->arm, 1);
  EXPECT_EQ(session->kept_calls(), 0u);
}

TEST_F(TimedSessionBatches, ACallThatSkipsItsWorkIsCaughtAsItsReadingEnds) {
  // No call is sampled for verification (beyond the first batch's): the screen alone catches
  // the calls after a process's first that return at once.
  SessionOptions options;
  options.timed_per_reading = 10.0;
  options.verify_fraction = 0.0;
  CallResult failure;
  auto session = TimedSession::start(
      *builtin_kernel("attn_out"),
      {build(baseline()),
       build(around_attn_out_baseline("static int calls = 0; if (calls++ == 0) real(a);"))},
      options, &failure);
  ASSERT_TRUE(session) << failure.describe();
  ASSERT_GT(session->calls_per_reading(), 1);
  ASSERT_TRUE(session->reading(0).ok());
  const SessionReading r = session->reading(1);
  ASSERT_TRUE(r.cheat) << "a skipped call went unnoticed";
  EXPECT_EQ(r.cheat->arm, 1);
  EXPECT_NE(r.failure().find("left `residual` as it was given: it skipped its work"),
            std::string::npos)
      << r.failure();
}

// The harness's threads (hw_parallel_run): a candidate that does its work on them only where
// they run its parts off the calling thread reads and verifies as the baseline does; the hot
// workers sleep before its calls return, so no breach is found.
TEST_F(TimedSessionBatches, ACandidateOnTheHarnessThreadsIsTimedAndVerified) {
  const std::string on_harness = on_harness_candidate();
  auto session = start({build(baseline()), build(on_harness)});
  ASSERT_TRUE(session);
  for (int round = 0; round < 3; ++round) {
    for (int arm : {0, 1}) {
      const SessionReading r = session->reading(arm);
      ASSERT_TRUE(r.ok()) << "arm " << arm << ": " << r.failure();
    }
  }
  EXPECT_FALSE(session->verify_sampled()) << "the harness did not run the candidate's parts";
}

// One-core readings (SessionOptions::one_core): the child is held to one CPU, and
// hw_parallel_run runs every part on the calling thread, one after another, while
// hw_parallel_threads() still says how many CPUs the process had, so that a candidate splits its
// work as it would on all of them. A candidate that finds anything else spoils its output; in a
// session of every CPU (where there are two) it does.
TEST_F(TimedSessionBatches, OneCoreReadingsRunEveryPartOnTheCallingThreadOfOneCpu) {
  cpu_set_t ours;
  ASSERT_EQ(sched_getaffinity(0, sizeof ours, &ours), 0);
  const int cpus = std::min(CPU_COUNT(&ours), runner::HarnessPool::kMaxThreads);
  const std::string one_core =
      "#include <sched.h>\n#include <unistd.h>\n" +
      around_attn_out_baseline(
          "if (!hw_parallel_run || !hw_parallel_threads) return;  // no harness: no work\n"
          "struct Parts { const hw_attn_out_args* a; int caller; int ran; int elsewhere; };\n"
          "Parts p{a, static_cast<int>(gettid()), 0, 0};\n"
          "cpu_set_t set;\n"
          "if (sched_getaffinity(0, sizeof set, &set) != 0) return;\n"
          "const int n = hw_parallel_threads();\n"
          "if (hw_parallel_run(n, [](void* ctx, int tid) {\n"
          "      auto* q = static_cast<Parts*>(ctx);\n"
          "      if (tid == 0) real(q->a);\n"
          "      ++q->ran;\n"
          "      if (static_cast<int>(gettid()) != q->caller) ++q->elsewhere;\n"
          "    }, &p) != 0) return;\n"
          "if (p.ran != n || p.elsewhere != 0 || CPU_COUNT(&set) != 1 || n != " +
          std::to_string(cpus) + ") a->residual[0] ^= 0x40;\n");
  const fs::path object = build(one_core);
  auto session = start({build(baseline()), object}, /*one_core=*/true);
  ASSERT_TRUE(session);
  for (int round = 0; round < 2; ++round) {
    for (int arm : {0, 1}) {
      const SessionReading r = session->reading(arm);
      ASSERT_TRUE(r.ok()) << "arm " << arm << ": " << r.failure();
    }
  }
  EXPECT_FALSE(session->verify_sampled()) << "a part ran off the calling thread or CPU";
  if (cpus < 2) GTEST_SKIP() << "one CPU: every session is a one-core session";
  auto all_cores = start({object});
  ASSERT_TRUE(all_cores);
  ASSERT_TRUE(all_cores->reading(0).ok());
  EXPECT_TRUE(all_cores->verify_sampled()) << "a session of every CPU ran as one core";
}

TEST_F(TimedSessionBatches, ConfirmingReadingsCheckEveryCallOfTheirArmAgainstTheReference) {
  auto session = start({build(baseline()), build(baseline() + "\n// a copy\n")});
  ASSERT_TRUE(session);
  const int calls = session->calls_per_reading();
  const size_t kept = session->kept_calls();
  EXPECT_EQ(session->confirmed_calls(1), 0);
  for (int reading = 0; reading < 5; ++reading) {
    const SessionReading r = session->reading(1, TimedSession::Inputs::kConfirming);
    ASSERT_TRUE(r.ok()) << r.failure();
    EXPECT_EQ(r.calls, calls) << "a confirming reading is as long as any other";
  }
  EXPECT_EQ(session->confirmed_calls(1), 5 * calls);
  EXPECT_EQ(session->confirmed_calls(0), 0);
  EXPECT_EQ(session->kept_calls(), kept) << "checked as they ended, none kept for later";
}

TEST_F(TimedSessionBatches, ACandidateWrongOnARandomShareOfCallsFailsItsConfirmingReadings) {
  // Wrong on about a third of its calls, at random: a reading of several calls holds one.
  const std::string cheat = around_attn_out_baseline(
      "real(a);\n"
      "if (__builtin_ia32_rdtsc() % 3 == 0) a->residual[0] ^= 0x40;");
  auto session = start({build(baseline()), build(cheat)});
  ASSERT_TRUE(session);
  std::optional<Misbehaviour> caught;
  for (int reading = 0; reading < 10 && !caught; ++reading) {
    const SessionReading r = session->reading(1, TimedSession::Inputs::kConfirming);
    caught = r.cheat;
  }
  ASSERT_TRUE(caught) << "10 readings of calls wrong a third of the time passed";
  EXPECT_EQ(caught->arm, 1);
  EXPECT_NE(caught->reason.find("a confirming call's output is wrong"), std::string::npos)
      << caught->reason;
}

// A candidate that marks the padding after its in/out region with its process id, and spoils its
// output (flips `spoil` in its first element) when it finds another process's mark there.
std::string marks_its_slots(const std::string& spoil = "0x40") {
  return "#include <cstdint>\n#include <unistd.h>\n" +
         around_attn_out_baseline(
             "auto end = (reinterpret_cast<std::uintptr_t>(a->residual + HW_H) + 4095) & "
             "~std::uintptr_t{4095};\n"
             "auto* mark = reinterpret_cast<volatile int*>(end - sizeof(int));\n"
             "const bool other = *mark != 0 && *mark != static_cast<int>(getpid());\n"
             "*mark = static_cast<int>(getpid());\n"
             "real(a);\n"
             "if (other) a->residual[0] ^= " +
             spoil + ";");
}

// A process finds nothing that an earlier process of its arm left in its writable block.
TEST_F(TimedSessionBatches, NothingAProcessLeavesInItsSlotsReachesTheNextOne) {
  const std::string marks = marks_its_slots();
  SessionOptions options;
  options.timed_per_reading = 10.0;
  options.verify_fraction = 1.0;  // every call kept and checked
  CallResult failure;
  auto session =
      TimedSession::start(*builtin_kernel("attn_out"), {build(marks)}, options, &failure);
  ASSERT_TRUE(session) << failure.describe();
  for (int reading = 0; reading < 3; ++reading) {
    const SessionReading r = session->reading(0);
    ASSERT_TRUE(r.ok()) << r.failure();
    ASSERT_TRUE(session->reading(0, TimedSession::Inputs::kConfirming).ok());
  }
  EXPECT_FALSE(session->verify_sampled()) << "a process found an earlier one's mark";
}

// Nor where its reading was compared with another arm's, which puts back the slots of both. The
// two arms spoil their outputs differently, so that a comparison finds either spoiled.
TEST_F(TimedSessionBatches, NothingAProcessLeavesInItsSlotsReachesTheNextOneAfterAComparison) {
  SessionOptions options;
  options.timed_per_reading = 10.0;
  options.verify_fraction = 1.0;  // every call of an unpaired reading kept and checked
  CallResult failure;
  auto session = TimedSession::start(*builtin_kernel("attn_out"),
                                     {build(marks_its_slots("0x40") + unique_function("a")),
                                      build(marks_its_slots("0x20") + unique_function("b"))},
                                     options, &failure);
  ASSERT_TRUE(session) << failure.describe();
  // Each compared reading is followed by a fresh one of the other arm, on slots put back.
  for (int reading = 0; reading < 6; ++reading) {
    const SessionReading r = session->reading(reading % 2, TimedSession::Inputs::kAsLastReading);
    ASSERT_TRUE(r.ok()) << "reading " << reading << ": " << r.failure();
  }
  EXPECT_EQ(session->costs().compared_calls, 3 * session->calls_per_reading());
  EXPECT_FALSE(session->verify_sampled()) << "a process found an earlier one's mark";
}

TEST_F(TimedSessionBatches, AThreadThatKeepsTheHarnessBusyOutsideItsCallsIsCaught) {
  // The harness's workers run only what a candidate's thread asks of them: a thread of its own
  // that keeps asking outside its calls is a thread left running.
  const std::string outside =
      "#include <thread>\n" +
      around_attn_out_baseline(
          "static bool started = false;\n"
          "if (!started && hw_parallel_run) {\n"
          "  started = true;\n"
          "  std::thread([] {\n"
          "    for (;;) hw_parallel_run(hw_parallel_threads(), [](void*, int) {\n"
          "      for (volatile int i = 0; i < 100000; i = i + 1) {}\n"
          "    }, nullptr);\n"
          "  }).detach();\n"
          "}\n"
          "real(a);");
  auto session = start({build(baseline()), build(outside)});
  ASSERT_TRUE(session);
  const SessionReading r = session->reading(1);
  ASSERT_TRUE(r.cheat) << "work on the harness's threads outside the calls went unnoticed";
  EXPECT_EQ(r.cheat->arm, 1);
}

TEST_F(TimedSessionBatches, NoThreadOfAPausedChildRuns) {
  // The candidate's first call leaves a thread spinning: paused, the child uses no CPU;
  // resumed, it does again.
  const fs::path spinner = build(
      "#include <thread>\n#include \"headway_kernel.h\"\n"
      "extern \"C\" void hw_attn_out(const hw_attn_out_args*) {\n"
      "  static bool started = false;\n"
      "  if (!started) { started = true; std::thread([] { for (volatile int i = 0;; i = i + 1) {} "
      "}).detach(); }\n}\n");
  OneChild one = spawn_one(spinner);
  ASSERT_TRUE(one.child);
  RunnerChild& child = *one.child;
  ASSERT_TRUE(child.call(0).ok());
  EXPECT_TRUE(spins(child)) << "the thread did not spin";
  ASSERT_TRUE(child.pause(1.0));
  EXPECT_LT(cpu_over(child, 60), 0.005) << "a thread ran while the child was paused";
  child.resume();
  EXPECT_TRUE(spins(child)) << "the thread did not run again";
}

// An arm whose first child ran on no threads but the harness's makes no warm-up call after it:
// the runner starts the harness's workers before the timed request, and the candidate's parts
// still run on them. An arm with a thread of its own keeps its warm-up call.
TEST_F(TimedSessionBatches, AnArmOnTheHarnessThreadsAloneMakesNoWarmUpCallAfterItsFirstReading) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "a pool needs two CPUs";
  const std::string on_harness = on_harness_candidate();
  auto session = start({build(baseline()), build(on_harness)});
  ASSERT_TRUE(session);
  const double warmed = session->costs().warm_up;
  EXPECT_GT(warmed, 0.0) << "the harness arm's first child makes a warm-up call";
  for (int reading = 0; reading < 3; ++reading) {
    const SessionReading r = session->reading(1);
    ASSERT_TRUE(r.ok()) << r.failure();
  }
  EXPECT_EQ(session->costs().warm_up, warmed) << "no warm-up call after the first child";
  EXPECT_FALSE(session->verify_sampled()) << "the harness did not run the candidate's parts";

  const std::string own_thread =
      "#include <condition_variable>\n#include <mutex>\n#include <thread>\n" +
      around_attn_out_baseline(
          "static std::mutex m;\n"
          "static std::condition_variable never;\n"
          "static const bool started = [] {\n"
          "  std::thread([] { std::unique_lock l(m); never.wait(l, [] { return false; }); })"
          ".detach();\n"
          "  return true;\n"
          "}();\n"
          "(void)started;\n"
          "real(a);");
  auto own = start({build(own_thread)});
  ASSERT_TRUE(own);
  const double before = own->costs().warm_up;
  ASSERT_TRUE(own->reading(0).ok());
  EXPECT_GT(own->costs().warm_up, before) << "a thread of its own: the warm-up call stays";
}

// The ping before the timed request of an arm that makes no warm-up call starts the harness's
// workers and has them spin, so that no worker starts or wakes inside the clock; a ping that only
// asks for hot workers starts none.
TEST_F(TimedSessionBatches, APingThatAsksForTheWorkersStartsThemHot) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "a pool needs two CPUs";
  const fs::path parallel = build(
      "#include \"headway_kernel.h\"\n"
      "extern \"C\" void hw_attn_out(const hw_attn_out_args*) {\n"
      "  hw_parallel_run(hw_parallel_threads(), [](void*, int) {}, nullptr);\n}\n"
      "// started by a ping\n");
  OneChild one = spawn_one(parallel);
  ASSERT_TRUE(one.child);
  RunnerChild& child = *one.child;
  ASSERT_TRUE(child.ping(0, /*hot_workers=*/true).ok());
  EXPECT_EQ(child.thread_count(), 1) << "no call yet, and no start asked for";
  EXPECT_EQ(child.harness_threads(), 0);
  ASSERT_TRUE(child.ping(0, /*hot_workers=*/true, /*start_workers=*/true).ok());
  EXPECT_GE(child.harness_threads(), 2);
  EXPECT_EQ(child.thread_count(), child.harness_threads()) << "the caller and the workers";
  EXPECT_TRUE(spins(child)) << "the workers the ping started were not hot";
  ASSERT_TRUE(child.call(0).ok());
  EXPECT_EQ(child.thread_count(), child.harness_threads()) << "the call used the same pool";
  EXPECT_LT(cpu_over(child, 60), 0.005) << "the workers spun on after a call that did not ask";
}

TEST_F(TimedSessionBatches, AWarmUpCallLeavesTheHarnessWorkersHotThroughThePause) {
  // The warm-up call asks for hot workers: the pool the candidate's first call started spins
  // from its reply on, stops while the child is paused, spins again when it resumes (so the
  // timed request finds it awake), and sleeps once a call that does not ask has replied.
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "a pool needs two CPUs";
  const fs::path parallel = build(
      "#include \"headway_kernel.h\"\n"
      "extern \"C\" void hw_attn_out(const hw_attn_out_args*) {\n"
      "  hw_parallel_run(hw_parallel_threads(), [](void*, int) {}, nullptr);\n}\n");
  OneChild one = spawn_one(parallel);
  ASSERT_TRUE(one.child);
  RunnerChild& child = *one.child;
  ASSERT_TRUE(child.call(0, 0, 1, /*hot_workers=*/true).ok());
  EXPECT_TRUE(spins(child)) << "the workers did not stay hot after the warm-up";
  ASSERT_TRUE(child.pause(1.0));
  EXPECT_LT(cpu_over(child, 60), 0.005) << "a worker ran while the child was paused";
  child.resume();
  EXPECT_TRUE(spins(child)) << "the workers were not hot when the child resumed";
  ASSERT_TRUE(child.call(0).ok());
  EXPECT_LT(cpu_over(child, 60), 0.005) << "the workers spun on after a call that did not ask";
}

TEST_F(TimedSessionBatches, WhatAChildUsesBeforeItsCandidateLoadsIsTheRunners) {
  // Mapping and touching four sets of inputs costs the runner CPU before any candidate code is
  // in the child; headway reads it then, so that the life's CPU check does not count it.
  auto sets = shared_input_sets(*builtin_kernel("attn_out"), 1, 4);
  auto writable = sets->new_writable_block(1);
  CallResult failure;
  auto host = start_host(&sets->memory(), sets->set_bytes(), sets->count(), writable.get(),
                         build(baseline()), &failure);
  ASSERT_TRUE(host) << failure.describe();
  auto child = host->spawn(0, 0, 4, &failure);
  ASSERT_TRUE(child) << failure.describe();
  EXPECT_GT(child->prepared_cpu_seconds(), 0.0);
  EXPECT_GE(child->cpu_seconds(), child->prepared_cpu_seconds());
}

TEST_F(TimedSessionBatches, TheRotationStartsAtASecretSet) {
  // Where a session's readings begin says nothing about which reading a set serves: with several
  // windows of sets (cold traffic asked for), sessions started alike begin at different sets
  // (with two windows, sixteen sessions all begin at one with a chance of 2^-15); with one
  // window (none asked for: every timed set is flushed), every reading meets the same sets.
  const fs::path a = build(baseline());
  std::set<int> firsts;
  for (int i = 0; i < 16; ++i) {
    auto session = start({a});
    ASSERT_TRUE(session);
    firsts.insert(session->next_sets().first);
  }
  EXPECT_EQ(firsts, std::set<int>{0});
  firsts.clear();
  SessionOptions options;
  options.timed_per_reading = 10.0;
  options.cold_bytes = 1;
  for (int i = 0; i < 16; ++i) {
    CallResult failure;
    auto session = TimedSession::start(*builtin_kernel("attn_out"), {a}, options, &failure);
    ASSERT_TRUE(session) << failure.describe();
    firsts.insert(session->next_sets().first);
  }
  EXPECT_GT(firsts.size(), 1u);
}

}  // namespace
}  // namespace headway::cpu
