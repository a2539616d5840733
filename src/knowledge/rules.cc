#include "knowledge/rules.h"

#include <fmt/format.h>

#include <array>
#include <regex>

#include "knowledge/facts.h"
#include "knowledge/rule_detector.h"
#include "store/transaction.h"
#include "trees/design_tree.h"

namespace headway::knowledge {

namespace {

constexpr std::array<std::pair<RuleState, std::string_view>, 4> kStates{{
    {RuleState::kVerified, "verified"},
    {RuleState::kRewritten, "rewritten"},
    {RuleState::kRetired, "retired"},
    {RuleState::kCarriedUnverified, "carried-unverified"},
}};

int64_t insert_or_find_rule(store::Workspace& ws, std::string_view signature, std::string_view text,
                            const std::optional<std::string>& repro, bool* created) {
  auto find = ws.db().prepare("SELECT id FROM rules WHERE signature = ?1");
  find.bind(1, signature);
  if (find.step()) {
    *created = false;
    return find.int64(0);
  }
  auto ins = ws.db().prepare("INSERT INTO rules(signature, text, repro_hash) VALUES (?1, ?2, ?3)");
  ins.bind(1, signature).bind(2, text).bind(3, repro);
  ins.run();
  *created = true;
  return ws.db().last_insert_rowid();
}

bool add_evidence(store::Workspace& ws, int64_t rule_id, std::string_view kernel, int64_t node_id,
                  std::string_view note) {
  auto s = ws.db().prepare(
      "INSERT OR IGNORE INTO rule_evidence(rule_id, kernel, node_id, note) VALUES (?1, ?2, ?3, "
      "?4)");
  s.bind(1, rule_id).bind(2, kernel).bind(3, node_id).bind(4, note);
  s.run();
  return ws.db().changes() > 0;
}

std::optional<Rule> rule_where(store::Workspace& ws, std::string_view where, std::string_view arg) {
  auto s = ws.db().prepare(fmt::format(
      "SELECT id, signature, text, detector, repro_hash, created_at FROM rules {} ORDER BY id",
      where));
  if (!where.empty()) s.bind(1, arg);
  if (!s.step()) return std::nullopt;
  Rule r;
  r.id = s.int64(0);
  r.signature = s.text(1);
  r.text = s.text(2);
  r.detector = s.optional_text(3);
  r.repro_hash = s.optional_text(4);
  r.created_at = s.text(5);
  return r;
}

void fill(store::Workspace& ws, Rule& r) {
  auto st = ws.db().prepare(
      "SELECT toolchain, status, evidence_json, at FROM rule_status WHERE rule_id = ?1 ORDER BY "
      "toolchain");
  st.bind(1, r.id);
  while (st.step()) {
    RuleStatus s;
    s.toolchain = st.text(0);
    s.state = parse_rule_state(st.text(1)).value_or(RuleState::kCarriedUnverified);
    if (auto j = st.optional_text(2)) s.evidence = nlohmann::json::parse(*j, nullptr, false);
    s.at = st.text(3);
    r.statuses.push_back(std::move(s));
  }
  auto ev = ws.db().prepare(
      "SELECT kernel, node_id, note FROM rule_evidence WHERE rule_id = ?1 ORDER BY kernel, "
      "node_id");
  ev.bind(1, r.id);
  while (ev.step()) r.evidence.push_back({ev.text(0), ev.int64(1), ev.text(2)});
}

Recorded finish(store::Workspace& ws, int64_t id, bool created, bool new_evidence) {
  Recorded out;
  out.created = created;
  out.new_evidence = new_evidence;
  auto s = ws.db().prepare("SELECT signature FROM rules WHERE id = ?1");
  s.bind(1, id);
  s.step();
  out.rule = *find_rule(ws, s.text(0));
  return out;
}

// How a finding's kind reads in a rule's text: "a pattern that timed out on the device in ...".
std::string_view finding_verb(std::string_view kind) {
  if (kind == "crashed") return "crashed";
  if (kind == "timed-out") return "timed out";
  return "gave incorrect results";
}

}  // namespace

std::string_view to_string(RuleState state) {
  for (const auto& [s, name] : kStates) {
    if (s == state) return name;
  }
  return "carried-unverified";
}

std::optional<RuleState> parse_rule_state(std::string_view text) {
  for (const auto& [s, name] : kStates) {
    if (name == text) return s;
  }
  return std::nullopt;
}

Result<Recorded> record_build_failure(store::Workspace& ws, std::string_view kernel,
                                      int64_t node_id, std::string_view source,
                                      std::string_view diagnostics, std::string_view toolchain) {
  const std::string signature = normalize_diagnostic(diagnostics);
  if (signature.empty()) return invalid_input("the diagnostics hold no \"error:\" line");
  auto repro = ws.artifacts().put(source);
  if (!repro) return repro.error();
  store::Transaction txn(ws.db());
  bool created = false;
  const int64_t id = insert_or_find_rule(
      ws, signature, fmt::format("the compiler rejects: {}", first_error_line(diagnostics)), *repro,
      &created);
  const bool fresh = add_evidence(ws, id, kernel, node_id, "");
  if (created) {
    set_rule_status(ws, id, toolchain, RuleState::kVerified,
                    {{"diagnostic", first_error_line(diagnostics)}, {"node", node_id}});
  }
  // One signature can cover several headers or intrinsics (names are abstracted): the detector
  // grows one alternative per new one, so it keeps rejecting every source that showed the rule.
  if (auto derived = derive_detector(diagnostics);
      derived && validate_detector(*derived, std::string(source)).ok()) {
    auto get = ws.db().prepare("SELECT detector FROM rules WHERE id = ?1");
    get.bind(1, id);
    get.step();
    const std::optional<std::string> current = get.optional_text(0);
    if (!current || !detector_match(*current, source)) {
      auto set = ws.db().prepare("UPDATE rules SET detector = ?2 WHERE id = ?1");
      set.bind(1, id).bind(2, current ? *current + "|" + *derived : *derived);
      set.run();
    }
  }
  txn.commit();
  return finish(ws, id, created, fresh);
}

Result<Recorded> record_finding(store::Workspace& ws, std::string_view kernel, int64_t node_id,
                                std::string_view kind, std::string_view region,
                                std::string_view description, std::string_view toolchain) {
  if (kind != "crashed" && kind != "timed-out" && kind != "incorrect") {
    return invalid_input(
        fmt::format("unknown finding kind '{}' (crashed, timed-out, incorrect)", kind));
  }
  const std::string signature = fmt::format("pattern: {} in {}", kind, region);
  store::Transaction txn(ws.db());
  bool created = false;
  const std::string text = fmt::format("a pattern that {} on the device in {}: {}",
                                       finding_verb(kind), region, description);
  const int64_t id = insert_or_find_rule(ws, signature, text, std::nullopt, &created);
  const bool fresh = add_evidence(ws, id, kernel, node_id, description);
  if (created) {
    set_rule_status(ws, id, toolchain, RuleState::kVerified,
                    {{"check", std::string(description)}, {"node", node_id}});
  }
  txn.commit();
  return finish(ws, id, created, fresh);
}

void set_rule_status(store::Workspace& ws, int64_t rule_id, std::string_view toolchain,
                     RuleState state, const nlohmann::json& evidence) {
  auto s = ws.db().prepare(
      "INSERT OR REPLACE INTO rule_status(rule_id, toolchain, status, evidence_json) "
      "VALUES (?1, ?2, ?3, ?4)");
  s.bind(1, rule_id).bind(2, toolchain).bind(3, to_string(state));
  if (evidence.is_null())
    s.bind(4, std::nullopt);
  else
    s.bind(4, evidence.dump());
  s.run();
}

void set_rule_text(store::Workspace& ws, int64_t rule_id, std::string_view text) {
  auto s = ws.db().prepare("UPDATE rules SET text = ?2 WHERE id = ?1");
  s.bind(1, rule_id).bind(2, text);
  s.run();
}

Result<bool> set_rule_detector(store::Workspace& ws, int64_t rule_id,
                               const std::optional<std::string>& detector) {
  auto find = ws.db().prepare("SELECT repro_hash FROM rules WHERE id = ?1");
  find.bind(1, rule_id);
  if (!find.step()) return not_found(fmt::format("no rule {}", rule_id));
  if (detector) {
    std::optional<std::string> repro;
    if (auto hash = find.optional_text(0)) repro = ws.artifacts().get(*hash);
    if (auto ok = validate_detector(*detector, repro); !ok) return ok.error();
  }
  auto s = ws.db().prepare("UPDATE rules SET detector = ?2 WHERE id = ?1");
  s.bind(1, rule_id).bind(2, detector);
  s.run();
  return true;
}

std::vector<Rule> list_rules(store::Workspace& ws) {
  std::vector<Rule> out;
  auto s = ws.db().prepare("SELECT signature FROM rules ORDER BY id");
  while (s.step()) {
    if (auto r = find_rule(ws, s.text(0))) out.push_back(std::move(*r));
  }
  return out;
}

std::optional<Rule> find_rule(store::Workspace& ws, std::string_view signature) {
  auto r = rule_where(ws, "WHERE signature = ?1", signature);
  if (r) fill(ws, *r);
  return r;
}

Result<MineSummary> mine_rules_from_tree(store::Workspace& ws, std::string_view kernel) {
  auto tree = trees::DesignTree::open(ws, kernel);
  if (!tree) return tree.error();
  MineSummary summary;
  std::optional<std::string> current;
  auto toolchain_of = [&](const trees::Node& n) {
    if (n.evidence.is_object() && n.evidence.contains("toolchain") &&
        n.evidence["toolchain"].is_string()) {
      return n.evidence["toolchain"].get<std::string>();
    }
    if (!current) current = current_toolchain_id(ws);
    return *current;
  };
  static const std::regex kRegion(R"(([A-Za-z_][A-Za-z0-9_]*)\[)");
  for (const trees::Node& n : tree->nodes()) {
    using trees::NodeStatus;
    const bool build = n.status == NodeStatus::kBuildFailed;
    const bool finding = n.status == NodeStatus::kIncorrect || n.status == NodeStatus::kCrashed ||
                         n.status == NodeStatus::kTimedOut;
    if (!build && !finding) continue;
    ++summary.scanned;
    Result<Recorded> rec = invalid_input("");
    if (build) {
      const auto src = tree->source(n.id);
      const bool has = n.evidence.is_object() && n.evidence.contains("diagnostics") &&
                       n.evidence["diagnostics"].is_string();
      if (!src || !has) {
        ++summary.skipped;
        continue;
      }
      rec = record_build_failure(ws, kernel, n.id, *src,
                                 n.evidence["diagnostics"].get<std::string>(), toolchain_of(n));
    } else {
      std::string description = n.reason;
      if (n.evidence.is_object() && n.evidence.contains("check") &&
          n.evidence["check"].is_string()) {
        description = n.evidence["check"].get<std::string>();
      }
      if (description.empty()) {
        ++summary.skipped;
        continue;
      }
      std::smatch m;
      const std::string region =
          std::regex_search(description, m, kRegion)
              ? fmt::format("{}/{}", kernel, m[1].str())
              : fmt::format("{}/{}", kernel, n.design.empty() ? "kernel" : n.design);
      rec = record_finding(ws, kernel, n.id, trees::to_string(n.status), region, description,
                           toolchain_of(n));
    }
    if (!rec) {
      ++summary.skipped;
      continue;
    }
    summary.new_rules += rec->created ? 1 : 0;
    summary.new_evidence += rec->new_evidence ? 1 : 0;
  }
  return summary;
}

}  // namespace headway::knowledge
