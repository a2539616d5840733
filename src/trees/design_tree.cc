#include "trees/design_tree.h"

#include <fmt/format.h>

#include <stdexcept>

#include "store/sha256.h"
#include "store/transaction.h"

namespace headway::trees {

namespace {

using nlohmann::json;
using store::Statement;
using store::Transaction;

constexpr std::string_view kNodeColumns =
    "id, kernel, parent_id, kind, design, params_json, source_hash, proposer, status, reason, "
    "evidence_json, created_at, updated_at";

constexpr std::string_view kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

json parse_json_column(const std::optional<std::string>& text) {
  if (!text) return nullptr;
  json parsed = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? json(*text) : parsed;
}

Node read_node(const Statement& s) {
  Node n;
  n.id = s.int64(0);
  n.kernel = s.text(1);
  n.parent_id = s.optional_int64(2);
  const std::string kind = s.text(3);
  const auto parsed_kind = parse_node_kind(kind);
  if (!parsed_kind)
    throw std::logic_error(fmt::format("node {} has unknown kind '{}'", n.id, kind));
  n.kind = *parsed_kind;
  n.design = s.text(4);
  n.params = parse_json_column(s.text(5));
  n.source_hash = s.text(6);
  n.proposer = s.text(7);
  const std::string status = s.text(8);
  const auto parsed_status = parse_node_status(status);
  if (!parsed_status) {
    throw std::logic_error(fmt::format("node {} has unknown status '{}'", n.id, status));
  }
  n.status = *parsed_status;
  n.reason = s.text(9);
  n.evidence = parse_json_column(s.optional_text(10));
  n.created_at = s.text(11);
  n.updated_at = s.text(12);
  return n;
}

HeadRecord read_head(const Statement& s) {
  HeadRecord h;
  h.seq = s.int64(0);
  h.node_id = s.int64(1);
  h.since = s.text(2);
  h.median_ms = s.optional_real(3);
  h.test_id = s.optional_int64(4);
  h.device_seconds = s.optional_real(5);
  return h;
}

constexpr std::string_view kHeadColumns = "id, node_id, since, median_ms, test_id, device_seconds";

std::optional<std::string> evidence_text(const json& evidence) {
  if (evidence.is_null()) return std::nullopt;
  return evidence.dump();
}

// Writes node `id`'s status with why; the caller has checked the life cycle.
void write_status(store::Database& db, int64_t id, NodeStatus status, std::string_view reason,
                  const json& evidence) {
  db.prepare(fmt::format("UPDATE nodes SET status = ?2, reason = ?3, evidence_json = ?4, "
                         "updated_at = {} WHERE id = ?1",
                         kNow))
      .bind(1, id)
      .bind(2, to_string(status))
      .bind(3, reason)
      .bind(4, evidence_text(evidence))
      .run();
}

// Appends a row to `kernel`'s head history.
void append_head(store::Database& db, const std::string& kernel, int64_t node,
                 std::optional<double> median_ms, std::optional<int64_t> test_id,
                 std::optional<double> device_seconds = std::nullopt) {
  db.prepare(
        "INSERT INTO heads(kernel, node_id, median_ms, test_id, device_seconds) "
        "VALUES (?1, ?2, ?3, ?4, ?5)")
      .bind(1, kernel)
      .bind(2, node)
      .bind(3, median_ms)
      .bind(4, test_id)
      .bind(5, device_seconds)
      .run();
}

KernelRecord read_kernel(const Statement& s) {
  return KernelRecord{s.text(0), s.text(1), s.optional_real(2), s.optional_real(3), s.text(4)};
}

std::string known_statuses() {
  std::string out;
  for (const NodeStatus s : kAllNodeStatuses) {
    out += (out.empty() ? "" : ", ") + std::string(to_string(s));
  }
  return out;
}

}  // namespace

Result<DesignTree> DesignTree::create(store::Workspace& ws, const KernelRecord& kernel,
                                      std::string_view baseline_source, const json& baseline_params,
                                      std::optional<double> baseline_median_ms) {
  if (kernel.name.empty()) return invalid_input("a kernel needs a name");
  if (baseline_source.empty())
    return invalid_input(fmt::format("kernel '{}' needs a baseline source", kernel.name));
  if (!baseline_params.is_object() && !baseline_params.is_null()) {
    return invalid_input("baseline params must be a JSON object");
  }
  auto hash = ws.artifacts().put(baseline_source);
  if (!hash) return hash.error();

  store::Database& db = ws.db();
  Transaction txn(db);
  {
    Statement exists = db.prepare("SELECT 1 FROM kernels WHERE name = ?1");
    exists.bind(1, kernel.name);
    if (exists.step()) {
      return conflict(
          fmt::format("kernel '{}' is already registered in {}", kernel.name, ws.root().string()));
    }
  }
  db.prepare("INSERT INTO kernels(name, target, floor_ms, baseline_ms) VALUES (?1, ?2, ?3, ?4)")
      .bind(1, kernel.name)
      .bind(2, kernel.target)
      .bind(3, kernel.floor_ms)
      .bind(4, kernel.baseline_ms ? kernel.baseline_ms : baseline_median_ms)
      .run();
  db.prepare(
        "INSERT INTO nodes(kernel, parent_id, kind, design, params_json, source_hash, proposer, "
        "status, reason) VALUES (?1, NULL, 'baseline', 'baseline', ?2, ?3, 'baseline', "
        "'accepted', 'the baseline')")
      .bind(1, kernel.name)
      .bind(2, baseline_params.is_null() ? std::string("{}") : baseline_params.dump())
      .bind(3, hash.value())
      .run();
  const int64_t root_id = db.last_insert_rowid();
  db.prepare("INSERT INTO heads(kernel, node_id, median_ms) VALUES (?1, ?2, ?3)")
      .bind(1, kernel.name)
      .bind(2, root_id)
      .bind(3, baseline_median_ms)
      .run();
  txn.commit();
  return DesignTree(ws, kernel.name);
}

Result<DesignTree> DesignTree::open(store::Workspace& ws, std::string_view kernel) {
  Statement s = ws.db().prepare("SELECT 1 FROM kernels WHERE name = ?1");
  s.bind(1, kernel);
  if (s.step()) return DesignTree(ws, std::string(kernel));
  std::string known;
  for (const auto& k : kernels(ws)) known += (known.empty() ? "" : ", ") + k.name;
  return not_found(
      fmt::format("unknown kernel '{}' in workspace {} ({})", kernel, ws.root().string(),
                  known.empty() ? std::string("it has no kernels yet") : "known: " + known));
}

std::vector<KernelRecord> DesignTree::kernels(store::Workspace& ws) {
  Statement s = ws.db().prepare(
      "SELECT name, target, floor_ms, baseline_ms, created_at FROM kernels ORDER BY name");
  std::vector<KernelRecord> out;
  while (s.step()) out.push_back(read_kernel(s));
  return out;
}

KernelRecord DesignTree::record() const {
  Statement s = ws_->db().prepare(
      "SELECT name, target, floor_ms, baseline_ms, created_at FROM kernels WHERE name = ?1");
  s.bind(1, kernel_);
  if (!s.step()) throw std::logic_error(fmt::format("kernel '{}' vanished", kernel_));
  return read_kernel(s);
}

void DesignTree::set_kernel_times(std::optional<double> floor_ms,
                                  std::optional<double> baseline_ms) {
  ws_->db()
      .prepare("UPDATE kernels SET floor_ms = ?2, baseline_ms = ?3 WHERE name = ?1")
      .bind(1, kernel_)
      .bind(2, floor_ms)
      .bind(3, baseline_ms)
      .run();
}

Node DesignTree::root() const {
  Statement s = ws_->db().prepare(
      fmt::format("SELECT {} FROM nodes WHERE kernel = ?1 AND kind = 'baseline'", kNodeColumns));
  s.bind(1, kernel_);
  if (!s.step()) throw std::logic_error(fmt::format("kernel '{}' has no baseline node", kernel_));
  return read_node(s);
}

std::optional<Node> DesignTree::node(int64_t id) const {
  Statement s = ws_->db().prepare(
      fmt::format("SELECT {} FROM nodes WHERE id = ?1 AND kernel = ?2", kNodeColumns));
  s.bind(1, id).bind(2, kernel_);
  if (!s.step()) return std::nullopt;
  return read_node(s);
}

std::vector<Node> DesignTree::nodes() const {
  Statement s = ws_->db().prepare(
      fmt::format("SELECT {} FROM nodes WHERE kernel = ?1 ORDER BY id", kNodeColumns));
  s.bind(1, kernel_);
  std::vector<Node> out;
  while (s.step()) out.push_back(read_node(s));
  return out;
}

std::vector<Node> DesignTree::children(int64_t id) const {
  Statement s = ws_->db().prepare(fmt::format(
      "SELECT {} FROM nodes WHERE parent_id = ?1 AND kernel = ?2 ORDER BY id", kNodeColumns));
  s.bind(1, id).bind(2, kernel_);
  std::vector<Node> out;
  while (s.step()) out.push_back(read_node(s));
  return out;
}

std::vector<Node> DesignTree::path_to_root(int64_t id) const {
  std::vector<Node> path;
  std::optional<int64_t> next = id;
  while (next) {
    auto n = node(*next);
    if (!n) {
      if (path.empty()) return path;
      throw std::logic_error(
          fmt::format("node #{} has a missing parent #{}", path.back().id, *next));
    }
    if (path.size() > 1000000) throw std::logic_error("cycle in the design tree");
    next = n->parent_id;
    path.push_back(std::move(*n));
  }
  return path;
}

std::optional<Node> DesignTree::find_by_source(std::string_view source) const {
  Statement s = ws_->db().prepare(
      fmt::format("SELECT {} FROM nodes WHERE kernel = ?1 AND source_hash = ?2", kNodeColumns));
  s.bind(1, kernel_).bind(2, store::sha256_hex(source));
  if (!s.step()) return std::nullopt;
  return read_node(s);
}

std::optional<std::string> DesignTree::source(int64_t id) const {
  auto n = node(id);
  if (!n) return std::nullopt;
  return ws_->artifacts().get(n->source_hash);
}

Result<Added> DesignTree::add(const NewNode& request) {
  if (request.source.empty()) return invalid_input("a node needs a non-empty source");
  if (!request.params.is_object() && !request.params.is_null()) {
    return invalid_input(
        fmt::format("params must be a JSON object, not {}", request.params.dump()));
  }
  int64_t parent = 0;
  switch (request.kind) {
    case NodeKind::kBaseline:
      return conflict(
          fmt::format("kernel '{}' already has its baseline; add a design or a variant", kernel_));
    case NodeKind::kDesign: {
      parent = root().id;
      if (request.parent_id && *request.parent_id != parent) {
        return invalid_input(
            fmt::format("a design is a child of the root #{}, not of #{}; add a variant "
                        "to change another node",
                        parent, *request.parent_id));
      }
      break;
    }
    case NodeKind::kVariant: {
      if (!request.parent_id) return invalid_input("a variant needs a parent node");
      if (!node(*request.parent_id)) {
        return not_found(fmt::format("kernel '{}' has no node #{}", kernel_, *request.parent_id));
      }
      parent = *request.parent_id;
      break;
    }
  }
  auto hash = ws_->artifacts().put(request.source);
  if (!hash) return hash.error();

  store::Database& db = ws_->db();
  Transaction txn(db);
  if (auto existing = find_by_source(request.source)) return Added{std::move(*existing), true};
  db.prepare(
        "INSERT INTO nodes(kernel, parent_id, kind, design, params_json, source_hash, proposer, "
        "status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'proposed')")
      .bind(1, kernel_)
      .bind(2, parent)
      .bind(3, to_string(request.kind))
      .bind(4, request.design)
      .bind(5, request.params.is_null() ? std::string("{}") : request.params.dump())
      .bind(6, hash.value())
      .bind(7, request.proposer)
      .run();
  const int64_t id = db.last_insert_rowid();
  txn.commit();
  return Added{*node(id), false};
}

Result<Node> DesignTree::set_status(int64_t id, std::string_view status, std::string_view reason,
                                    const json& evidence) {
  const auto parsed = parse_node_status(status);
  if (!parsed) {
    return invalid_input(
        fmt::format("unknown node status '{}' (known: {})", status, known_statuses()));
  }
  return set_status(id, *parsed, reason, evidence);
}

Result<Node> DesignTree::set_status(int64_t id, NodeStatus status, std::string_view reason,
                                    const json& evidence) {
  if (status == NodeStatus::kAccepted) {
    return invalid_input(fmt::format("node #{} can become accepted only by becoming the head", id));
  }
  store::Database& db = ws_->db();
  Transaction txn(db);
  auto current = node(id);
  if (!current) return not_found(fmt::format("kernel '{}' has no node #{}", kernel_, id));
  if (!transition_allowed(current->status, status)) {
    return invalid_input(fmt::format("node #{} of '{}' cannot go from {} to {}", id, kernel_,
                                     to_string(current->status), to_string(status)));
  }
  write_status(db, id, status, reason, evidence);
  txn.commit();
  return *node(id);
}

Result<Node> DesignTree::note_proposed(int64_t id, std::string_view reason, const json& evidence) {
  store::Database& db = ws_->db();
  Transaction txn(db);
  auto current = node(id);
  if (!current) return not_found(fmt::format("kernel '{}' has no node #{}", kernel_, id));
  if (current->status != NodeStatus::kProposed) {
    return invalid_input(fmt::format("node #{} of '{}' is {}, not proposed", id, kernel_,
                                     to_string(current->status)));
  }
  write_status(db, id, NodeStatus::kProposed, reason, evidence);
  txn.commit();
  return *node(id);
}

Result<HeadRecord> DesignTree::set_head(int64_t id, std::optional<double> median_ms,
                                        std::optional<int64_t> test_id, std::string_view reason,
                                        const json& evidence,
                                        std::optional<double> device_seconds) {
  store::Database& db = ws_->db();
  Transaction txn(db);
  auto candidate = node(id);
  if (!candidate) return not_found(fmt::format("kernel '{}' has no node #{}", kernel_, id));
  if (head().node_id == id)
    return conflict(fmt::format("node #{} already is the head of '{}'", id, kernel_));
  if (candidate->status != NodeStatus::kAccepted) {
    if (!transition_allowed(candidate->status, NodeStatus::kAccepted)) {
      return invalid_input(fmt::format("node #{} of '{}' is {} and cannot become the head", id,
                                       kernel_, to_string(candidate->status)));
    }
    write_status(db, id, NodeStatus::kAccepted, reason, evidence);
  }
  append_head(db, kernel_, id, median_ms, test_id, device_seconds);
  const int64_t seq = db.last_insert_rowid();
  txn.commit();
  const auto history = head_history();
  if (history.empty() || history.back().seq != seq) throw std::logic_error("new head not newest");
  return history.back();
}

Result<HeadRecord> DesignTree::revoke_head(std::string_view reason, const json& evidence) {
  store::Database& db = ws_->db();
  Transaction txn(db);
  const std::vector<HeadRecord> history = head_history();
  const int64_t revoked = history.back().node_id;
  const HeadRecord* back_to = nullptr;
  for (auto h = history.rbegin(); h != history.rend(); ++h) {
    const auto earlier = node(h->node_id);
    if (h->node_id != revoked && earlier && earlier->status != NodeStatus::kCheated) {
      back_to = &*h;
      break;
    }
  }
  if (!back_to) {
    return invalid_input(fmt::format(
        "the head of '{}' (node #{}) has no earlier head to go back to", kernel_, revoked));
  }
  write_status(db, revoked, NodeStatus::kCheated, reason, evidence);
  append_head(db, kernel_, back_to->node_id, back_to->median_ms, back_to->test_id);
  txn.commit();
  return head_history().back();
}

HeadRecord DesignTree::head() const {
  Statement s = ws_->db().prepare(
      fmt::format("SELECT {} FROM heads WHERE kernel = ?1 ORDER BY id DESC LIMIT 1", kHeadColumns));
  s.bind(1, kernel_);
  if (!s.step()) throw std::logic_error(fmt::format("kernel '{}' has no head", kernel_));
  return read_head(s);
}

std::vector<HeadRecord> DesignTree::head_history() const {
  Statement s = ws_->db().prepare(
      fmt::format("SELECT {} FROM heads WHERE kernel = ?1 ORDER BY id", kHeadColumns));
  s.bind(1, kernel_);
  std::vector<HeadRecord> out;
  while (s.step()) out.push_back(read_head(s));
  return out;
}

std::map<NodeStatus, int64_t> DesignTree::count_by_status() const {
  std::map<NodeStatus, int64_t> counts;
  for (const NodeStatus status : kAllNodeStatuses) counts[status] = 0;
  Statement s =
      ws_->db().prepare("SELECT status, count(*) FROM nodes WHERE kernel = ?1 GROUP BY status");
  s.bind(1, kernel_);
  while (s.step()) {
    const auto status = parse_node_status(s.text(0));
    if (!status) throw std::logic_error(fmt::format("unknown node status '{}'", s.text(0)));
    counts[*status] = s.int64(1);
  }
  return counts;
}

}  // namespace headway::trees
