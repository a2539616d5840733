#pragma once
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "loop/proposer.h"
#include "trees/design_tree.h"

namespace headway::loop {

// A chip fact's value by name (e.g. "isa.avx512bw"), as stored for the current toolchain;
// nullopt when it was not measured. Thread-safe, as the proposer is (loop/proposer.h), as is the
// log below.
using FactLookup = std::function<std::optional<double>(const std::string& name)>;
// Where a proposer writes a line for the run's log.
using ProposerLog = std::function<void(const std::string& line)>;

// Proposes from the built-in design library, in this order: every design not yet tried (at its
// default parameters, as a new whole-kernel design); then one-parameter variants of the head
// (when the head is a library design); then one-parameter variants of the other designs'
// defaults. Never proposes a source that ctx.already_tried; skips parameter sets the design no
// longer accepts (a head stored by an older library).
//
// A design whose `requires:` line names an extension the chip and toolchain cannot run (its fact
// "isa.<extension>" is 0, or was not measured), or whose `subnormals:` line says its FMAs take f32
// subnormals on a chip whose fact fma.subnormal_ratio is at least kSlowSubnormalRatio, is
// never proposed, neither it nor its variants;
// the first time a design is skipped the proposer writes one line saying so to `log`. A design
// in ctx.slow_designs (loop/slow_designs.h) gets no variants, with one line to `log` too.
// The subnormal-operand slowdown from which a design that makes f32 subnormals is not proposed.
inline constexpr double kSlowSubnormalRatio = 2.0;

class LibraryProposer final : public Proposer {
 public:
  // Proposes from `target`'s design library; the target must outlive the proposer. Without
  // `facts` no fact is known, so every design with a `requires:` line is skipped.
  explicit LibraryProposer(const targets::Target& target, FactLookup facts = {},
                           ProposerLog log = {})
      : target_(target), facts_(std::move(facts)), log_(std::move(log)) {}
  std::string name() const override { return "library"; }
  std::vector<Proposal> propose(const ProposalContext& ctx) override;

  // Why `design` cannot run here, e.g. "needs avx512vbmi (fact isa.avx512vbmi = 0)", or would
  // crawl ("its FMAs take f32 subnormals (...), which take 37.0x as long on this chip (fact
  // fma.subnormal_ratio = 37.00)"); empty when neither holds, or when requirements are not gated.
  std::string unmet_requirements(const targets::Design& design) const;
  // false: designs are proposed whatever their `requires:` line and the facts say (the loop's
  // isa-gating switched off, OptimizeOptions::isa_gating). Call before proposing.
  void gate_on_isa_facts(bool gate) { gate_ = gate; }

 private:
  const targets::Target& target_;
  FactLookup facts_;
  ProposerLog log_;
  bool gate_ = true;
  std::mutex skip_mutex_;              // proposals for several kernels may be asked for at once
  std::set<std::string> skip_logged_;  // "<kernel>/<design>" already reported as skipped
};

// How many candidates the library would still propose for `kernel`, whose tree `tree` is, all of
// them rather than a batch: designs not yet tried, variants of the head, variants of the other
// designs' defaults, minus any source already in the tree; designs the chip cannot run (by
// `facts`) do not count.
int untried_library_candidates(const targets::Target& target, const FactLookup& facts,
                               const KernelContract& kernel, const trees::DesignTree& tree);

}  // namespace headway::loop
