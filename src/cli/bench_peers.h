#pragma once
// `headway bench --peers` (docs/PERFORMANCE.md, "Peer libraries"): each kernel's
// matrix-vector products through the libraries a user would call instead (oneDNN's matmul with
// bf16 and f32 weights, OpenBLAS's sgemv; peers/peer_libraries.h), interleaved in one run
// with headway's heads, every arm as a ratio to its own bytes at the same read bandwidth.
#include <string>
#include <vector>

#include "kernels/contract.h"

namespace headway::cli {

struct BenchPeersArgs {
  std::vector<const KernelContract*> kernels;  // in order; each has peer products
  std::string source;                          // non-empty: the head of the one kernel given
  std::string workspace;                       // non-empty: its heads (the target its own)
  int readings = 15;                           // rounds of one reading per arm
  std::string target = "cpu";                  // only cpu: the peers run on this machine
  std::string toolchain;
  bool json = false;
};

// The head of a kernel is `source` when given; else the workspace's head where `workspace` is
// given and the kernel's head there is not its baseline, timed beside every design of the cpu
// target's library at its defaults that passes the check (the loop's first proposals); else the
// fastest of those designs. Prints the table (or one JSON object with --json); 0 when every arm was
// timed. Throws UsageError for a target other than cpu.
int run_bench_peers(const BenchPeersArgs& args);

}  // namespace headway::cli
