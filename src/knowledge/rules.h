#pragma once
// Legality rules: what the toolchain or the device refused, mined from Design Tree failures.
//
// A rule is identified by its signature. A compile failure gives the signature of the
// compiler's first `error:` line with paths, line:col positions, quoted names and numbers
// abstracted (normalize_diagnostic); its failing source is kept as the repro (an artifact). A
// device finding (a crashed, timed-out or incorrect node) gives "pattern: <kind> in <region>".
// The same signature again adds evidence (rule, kernel, node) to the existing rule instead of a
// new one. Each rule has a status per toolchain id: verified, rewritten, retired or
// carried-unverified. Tables rules, rule_status, rule_evidence (schema v2).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/workspace.h"
#include "targets/error_diagnostics.h"

namespace headway::knowledge {

enum class RuleState { kVerified, kRewritten, kRetired, kCarriedUnverified };
std::string_view to_string(RuleState state);  // "verified", ..., "carried-unverified"
std::optional<RuleState> parse_rule_state(std::string_view text);

struct RuleStatus {
  std::string toolchain;
  RuleState state = RuleState::kVerified;
  nlohmann::json evidence;  // null when none
  std::string at;
};

struct RuleEvidence {
  std::string kernel;
  int64_t node_id = 0;
  std::string note;  // a device finding's check description; empty for compile failures
};

struct Rule {
  int64_t id = 0;
  std::string signature;
  std::string text;
  std::optional<std::string> detector;
  std::optional<std::string> repro_hash;  // artifact hash of the failing source
  std::string created_at;
  std::vector<RuleStatus> statuses;    // by toolchain
  std::vector<RuleEvidence> evidence;  // by kernel, node
};

// Compiler-style diagnostics (targets/error_diagnostics.h), the form build failures are mined in.
using targets::ascii_quotes;
using targets::first_error_line;
using targets::normalize_diagnostic;

struct Recorded {
  Rule rule;
  bool created = false;       // a new rule (else evidence for an existing one)
  bool new_evidence = false;  // the (kernel, node) was not evidence yet
};

// Records a compile failure of `source` (node `node_id` of `kernel`) under `toolchain`: a rule
// with the diagnostic's signature, its text, the source as repro and status verified for the
// toolchain, and the detector derive_detector finds when it matches the source (added to the
// rule's detector as one more alternative when that does not already match the source). An error
// when the diagnostics hold no "error:" line. Idempotent.
Result<Recorded> record_build_failure(store::Workspace& ws, std::string_view kernel,
                                      int64_t node_id, std::string_view source,
                                      std::string_view diagnostics, std::string_view toolchain);
// Records a device finding (kind: "crashed", "timed-out" or "incorrect"; region: where it
// happened, e.g. an output name or a design) with the check's description as evidence, status
// verified for the toolchain. No repro. Idempotent.
Result<Recorded> record_finding(store::Workspace& ws, std::string_view kernel, int64_t node_id,
                                std::string_view kind, std::string_view region,
                                std::string_view description, std::string_view toolchain);

// Sets (replaces) the rule's status for a toolchain.
void set_rule_status(store::Workspace& ws, int64_t rule_id, std::string_view toolchain,
                     RuleState state, const nlohmann::json& evidence = nullptr);
// Replaces the rule's text (a rewrite).
void set_rule_text(store::Workspace& ws, int64_t rule_id, std::string_view text);
// Sets (nullopt: clears) the rule's detector (rule_detector.h). An error, changing nothing, for
// an unknown rule or a detector that validate_detector refuses against the rule's repro.
Result<bool> set_rule_detector(store::Workspace& ws, int64_t rule_id,
                               const std::optional<std::string>& detector);

std::vector<Rule> list_rules(store::Workspace& ws);  // by id, with statuses and evidence
std::optional<Rule> find_rule(store::Workspace& ws, std::string_view signature);

struct MineSummary {
  int scanned = 0;  // failed nodes looked at
  int new_rules = 0;
  int new_evidence = 0;  // (rule, node) pairs added
  int skipped = 0;       // failed nodes without usable diagnostics or description
};

// Scans the build-failed, incorrect, crashed and timed-out nodes of the kernel's Design Tree and
// records their rules (compile failures from evidence.diagnostics, findings from evidence.check
// or the reason), under the toolchain in the node's evidence (else the workspace's current one).
// Idempotent: a second scan adds nothing. An error when the kernel is not registered.
Result<MineSummary> mine_rules_from_tree(store::Workspace& ws, std::string_view kernel);

}  // namespace headway::knowledge
