#pragma once
// `headway bench --step`: the decode step's kernels (qkv, attn_out, ffn) timed back to back in
// step order, round after round, against the sum of their floors (docs/CLI.md, bench).
#include <string>

namespace headway::cli {

struct BenchStepArgs {
  int rounds = 15;        // --readings
  std::string target;     // --target when given, else empty
  std::string toolchain;  // --toolchain
  std::string workspace;  // --workspace when given, else empty
  bool json = false;
};

// The sources: with --workspace, or with no --target inside a workspace, each kernel's head in
// that workspace (its baseline where the workspace lacks the kernel) on the workspace's target;
// else each kernel's baseline on --target (default cpu). Prints the table (or one JSON object)
// and returns the exit status: 0, or 1 when a reading failed. Throws UsageError for --target or
// --toolchain that contradict the workspace.
int run_bench_step(const BenchStepArgs& args);

}  // namespace headway::cli
