#pragma once
// The microbenchmark writer role: a chip fact the target's own microbenchmarks do not measure
// (named, with its unit and what it means) is measured by a program an agent writes. The target
// builds and runs it isolated from headway (Target::run_microbenchmark: for cpu, in the sandbox);
// the program prints one line `reading <number>` per timed reading, in the fact's unit. The
// fact is stored as the readings' median with their spread, its method naming the call and the
// stored source. A program that does not build, fails, or prints fewer than kMinReadings
// readings is sent back with what went wrong, up to `attempts` calls.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent_ledger.h"
#include "knowledge/facts.h"
#include "loop/library_proposer.h"
#include "targets/target.h"

namespace headway::agents {

struct FactToMeasure {
  std::string name;         // e.g. "memory.write_bandwidth"; letters, digits, '.', '_', '-'
  std::string unit;         // e.g. "GB/s"
  std::string description;  // what it means, one or two sentences
};

// Empty when `fact` can be asked for; else why not (a bad name or unit, an empty description).
std::string check_fact_to_measure(const FactToMeasure& fact);

struct Readings {
  std::vector<double> values;  // every `reading <number>` line, in order
  std::string malformed;       // why they are unusable; empty when usable
  bool ok() const { return malformed.empty(); }
};
inline constexpr int kMinReadings = 3;
// The readings a program printed: lines `reading <number>` (leading spaces allowed, anything
// else on other lines ignored). Unusable: fewer than kMinReadings, or a value not finite.
Readings parse_readings(std::string_view output);

struct MicrobenchmarkOptions {
  std::filesystem::path prompts_dir;  // overrides of prompts/*.mustache; empty: built-in
  int attempts = 3;                   // calls at most
  double timeout_s = 60.0;            // per run of a program
  std::filesystem::path cache_dir;    // where programs are built (scratch, removed after)
};

struct MicrobenchmarkResult {
  std::optional<knowledge::Fact> fact;  // stored, when measured
  int calls = 0;
  std::string failure;  // when not measured: the last attempt's failure, or why nothing was asked
};

// Asks `ledger`'s agent for a program measuring `fact`, runs it on `target` and stores the fact
// under `toolchain` in `ws`. Refuses (failure set, no call) a fact the target's own
// microbenchmarks measure (a stored fact of that name whose method is not an agent's) and a
// target that cannot run microbenchmarks. A spent budget ends it; an AgentError fatal for the
// run is rethrown.
MicrobenchmarkResult write_microbenchmark(AgentLedger& ledger, store::Workspace& ws,
                                          targets::Target& target, const std::string& toolchain,
                                          const FactToMeasure& fact,
                                          const MicrobenchmarkOptions& options,
                                          const loop::ProposerLog& log = {});

// The start of every method an agent's microbenchmark stores.
inline constexpr std::string_view kAgentMethodPrefix = "agent microbenchmark";

}  // namespace headway::agents
