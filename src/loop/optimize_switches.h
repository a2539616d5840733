#pragma once
// The parts of the optimize loop a run can switch off, by name, so that an ablation runs exactly
// the code users run (`headway optimize --without`, `headway ablate`):
//   knowledge           the five below
//   floor-guidance      rounds go to the kernels in turn, not by how far each is from its floor,
//                       and no kernel is left alone near its floor
//   isa-gating          designs are proposed whatever the instruction-set facts say
//   slow-designs        variants of designs the chip makes slow are proposed too
//   rule-lint           candidates are not linted against the learned legality rules
//   cheat-sheet         agent prompts get no cheat sheet
//   static-cost-screen  a candidate the static cost predicts slower is still raced
//   racing              every survivor of the screen takes an acceptance test
// The acceptance rule is swapped instead (OptimizeOptions::acceptance.rule).
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "loop/optimize_options.h"

namespace headway::loop {

// Every part's name, in the order above.
const std::vector<std::string>& switchable_parts();

// Switches off each part of a comma-separated list (spaces around names allowed; an empty list
// switches off nothing). An unknown name is an error that lists the valid ones, and leaves
// *options unchanged.
Status switch_off(std::string_view parts, OptimizeOptions* options);

// The parts `options` has switched off, comma-separated in the order above, a group named in
// place of its members when all are off ("" for none).
std::string switched_off(const OptimizeOptions& options);

}  // namespace headway::loop
