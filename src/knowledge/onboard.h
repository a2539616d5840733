#pragma once
// Onboarding a workspace to its current cpu toolchain, offline: measure the chip facts, mine
// legality rules from every kernel's Design Tree, and write the cheat sheet
// <workspace>/.headway/knowledge/cheatsheet.md (facts table, rules with their status per
// toolchain, and the summary line; with no agent configured the summary is marked offline).
#include <filesystem>
#include <string>

#include "knowledge/facts.h"
#include "knowledge/rules.h"
#include "store/result.h"
#include "store/workspace.h"

namespace headway::knowledge {

struct OnboardOptions {
  bool measure = true;            // false: keep the stored facts (tests, re-runs)
  CpuMeasureOptions measure_options;
};

struct OnboardReport {
  std::string toolchain;          // the current toolchain id
  int facts = 0;                  // facts of that toolchain after measuring
  int kernels = 0;                // trees scanned
  MineSummary mined;              // summed over kernels
  int rules = 0;                  // rules in the workspace afterwards
  std::filesystem::path cheatsheet;
};

// The cheat sheet's Markdown for the workspace's current state.
std::string render_cheatsheet(store::Workspace& ws, const std::string& toolchain);

// Does the three steps above; an error when the cheat sheet cannot be written.
store::Result<OnboardReport> onboard(store::Workspace& ws, const OnboardOptions& options = {});

}  // namespace headway::knowledge
