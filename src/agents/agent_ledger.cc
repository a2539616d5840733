#include "agents/agent_ledger.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "store/transaction.h"

namespace headway::agents {
namespace {

std::string new_run_id() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return fmt::format("{}-{}", std::chrono::duration_cast<std::chrono::milliseconds>(now).count(),
                     ::getpid());
}

std::string must_put(const store::ArtifactStore& artifacts, std::string_view text) {
  auto hash = artifacts.put(text);
  if (!hash.ok()) throw std::runtime_error("storing an agent call: " + hash.error().message);
  return *hash;
}

// The prompt as stored: the system prompt, then the user prompt, each under a heading.
std::string stored_prompt(const AgentRequest& r) {
  std::string text = "# system\n" + r.system + "\n# prompt\n" + r.prompt + "\n";
  for (const auto& [path, content] : r.files) text += "# file " + path + "\n" + content + "\n";
  return text;
}

class SlotGuard {
 public:
  explicit SlotGuard(std::counting_semaphore<64>& s) : s_(s) { s_.acquire(); }
  ~SlotGuard() { s_.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  std::counting_semaphore<64>& s_;
};

store::Workspace own_connection(const store::Workspace& ws) {
  auto own = store::Workspace::open(ws.root());
  if (!own) {
    throw std::runtime_error("the agent ledger cannot open the workspace: " + own.error().message);
  }
  return std::move(own).value();
}

}  // namespace

AgentLedger::AgentLedger(store::Workspace& ws, Agent& agent, AgentBudget budget, Price price,
                         int max_in_flight)
    : ws_(own_connection(ws)),
      agent_(agent),
      budget_(budget),
      price_(price),
      run_(new_run_id()),
      max_in_flight_(std::clamp(max_in_flight, 1, 64)),
      slots_(max_in_flight_) {}

void AgentLedger::cancel(const std::string& why) {
  std::lock_guard lock(mu_);
  if (cancelled_.empty()) cancelled_ = why.empty() ? "agent calls cancelled" : why;
}

std::string AgentLedger::spent_budget_locked(int64_t reserved) const {
  if (!cancelled_.empty()) return cancelled_;
  if (budget_.max_calls && spent_.calls + reserved >= *budget_.max_calls) {
    return fmt::format("agent budget spent: --max-calls {} ({} calls made)", *budget_.max_calls,
                       spent_.calls);
  }
  const int64_t tokens = spent_.input_tokens + spent_.output_tokens;
  if (budget_.max_tokens && tokens >= *budget_.max_tokens) {
    return fmt::format("agent budget spent: --max-tokens {} ({} tokens used)", *budget_.max_tokens,
                       tokens);
  }
  if (budget_.max_cost_usd && spent_.cost_usd >= *budget_.max_cost_usd) {
    return fmt::format("agent budget spent: --max-cost {:.2f} (USD {:.4f} spent)",
                       *budget_.max_cost_usd, spent_.cost_usd);
  }
  return "";
}

std::string AgentLedger::spent_budget() const {
  std::lock_guard lock(mu_);
  return spent_budget_locked(reserved_);
}

Spent AgentLedger::spent() const {
  std::lock_guard lock(mu_);
  return spent_;
}

CallRecord AgentLedger::call(const AgentRequest& request, const std::string& kernel) {
  SlotGuard slot(slots_);
  {
    std::lock_guard lock(mu_);
    if (auto why = spent_budget_locked(reserved_); !why.empty()) throw BudgetSpent(why);
    ++reserved_;
  }
  CallRecord record;
  const auto start = std::chrono::steady_clock::now();
  try {
    record.reply = agent_.complete(request);
  } catch (const AgentError& e) {
    record.error = e;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::lock_guard lock(mu_);
  --reserved_;
  ++spent_.calls;
  const AgentReply none;
  const AgentReply& r = record.reply ? *record.reply : none;
  const double cost = price_.cost(r.input_tokens, r.output_tokens);
  spent_.input_tokens += r.input_tokens;
  spent_.output_tokens += r.output_tokens;
  spent_.cost_usd += cost;

  const std::string prompt_hash = must_put(ws_.artifacts(), stored_prompt(request));
  std::optional<std::string> response_hash;
  if (record.reply) {
    std::string text = r.text;
    for (const auto& [path, content] : r.files) text += "\n# edited file " + path + "\n" + content;
    response_hash = must_put(ws_.artifacts(), text);
  }
  const std::string outcome = record.error ? std::string("error:") + to_string(record.error->kind())
                              : r.truncated ? "truncated"
                                            : "ok";
  store::Transaction tx(ws_.db());
  ws_.db()
      .prepare(
          "INSERT INTO agent_calls(run, role, provider, model, kernel, prompt_hash, response_hash, "
          "input_tokens, output_tokens, cost_usd, latency_s, attempts, outcome, reason) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, run_)
      .bind(2, request.role)
      .bind(3, agent_.provider())
      .bind(4, r.model.empty() ? agent_.model() : r.model)
      .bind(5, kernel)
      .bind(6, prompt_hash)
      .bind(7, response_hash)
      .bind(8, r.input_tokens)
      .bind(9, r.output_tokens)
      .bind(10, cost)
      .bind(11, record.reply ? r.latency_s : wall)
      .bind(12, static_cast<int64_t>(r.attempts))
      .bind(13, outcome)
      .bind(14, record.error ? std::string(record.error->what()) : std::string())
      .run();
  record.id = ws_.db().last_insert_rowid();
  tx.commit();
  if (record.error && record.error->fatal_for_run()) throw *record.error;
  return record;
}

void AgentLedger::set_outcome(int64_t call_id, std::string_view outcome, std::string_view reason) {
  std::lock_guard lock(mu_);
  ws_.db()
      .prepare("UPDATE agent_calls SET outcome = ?, reason = ? WHERE id = ?")
      .bind(1, outcome)
      .bind(2, reason)
      .bind(3, call_id)
      .run();
  if (ws_.db().changes() != 1) {
    throw std::logic_error(fmt::format("no agent call {} to set the outcome of", call_id));
  }
}

void AgentLedger::link_node(int64_t node_id, int64_t call_id) {
  std::lock_guard lock(mu_);
  ws_.db()
      .prepare("INSERT OR IGNORE INTO node_agent_calls(node_id, call_id) VALUES (?, ?)")
      .bind(1, node_id)
      .bind(2, call_id)
      .run();
}

void AgentLedger::record_proposal(int64_t node_id, int64_t call_id, bool duplicate) {
  if (duplicate) {
    set_outcome(call_id, "duplicate", fmt::format("the same code as node {}", node_id));
    return;
  }
  link_node(node_id, call_id);
  set_outcome(call_id, "candidate", fmt::format("node {}", node_id));
}

std::vector<RoleUsage> usage_by_role(store::Workspace& ws) {
  std::map<std::string, RoleUsage> by_role;
  auto s = ws.db().prepare(
      "SELECT role, COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(cost_usd), "
      "SUM(latency_s) FROM agent_calls GROUP BY role ORDER BY role");
  while (s.step()) {
    RoleUsage u;
    u.role = s.text(0);
    u.calls = s.int64(1);
    u.input_tokens = s.int64(2);
    u.output_tokens = s.int64(3);
    u.cost_usd = s.real(4);
    u.latency_s = s.real(5);
    by_role.emplace(u.role, u);
  }
  auto o =
      ws.db().prepare("SELECT role, outcome, COUNT(*) FROM agent_calls GROUP BY role, outcome");
  while (o.step()) by_role[o.text(0)].outcomes[o.text(1)] = o.int64(2);
  auto n = ws.db().prepare(
      "SELECT c.role, COUNT(*), SUM(n.status = 'accepted') FROM node_agent_calls l "
      "JOIN agent_calls c ON c.id = l.call_id JOIN nodes n ON n.id = l.node_id GROUP BY c.role");
  while (n.step()) {
    by_role[n.text(0)].candidates = n.int64(1);
    by_role[n.text(0)].accepted = n.int64(2);
  }
  std::vector<RoleUsage> out;
  for (auto& [role, u] : by_role) out.push_back(std::move(u));
  return out;
}

RoleUsage total_usage(const std::vector<RoleUsage>& roles) {
  RoleUsage total;
  total.role = "total";
  for (const auto& u : roles) {
    total.calls += u.calls;
    total.input_tokens += u.input_tokens;
    total.output_tokens += u.output_tokens;
    total.cost_usd += u.cost_usd;
    total.latency_s += u.latency_s;
    total.candidates += u.candidates;
    total.accepted += u.accepted;
    for (const auto& [outcome, n] : u.outcomes) total.outcomes[outcome] += n;
  }
  return total;
}

std::string NodeAgentCall::describe() const {
  return fmt::format("{} {}, role {}, call {}", provider, model, role, id);
}

std::optional<NodeAgentCall> node_agent_call(store::Workspace& ws, int64_t node_id) {
  auto s = ws.db().prepare(
      "SELECT c.id, c.provider, c.model, c.role, c.prompt_hash, c.response_hash FROM "
      "node_agent_calls l "
      "JOIN agent_calls c ON c.id = l.call_id WHERE l.node_id = ?");
  s.bind(1, node_id);
  if (!s.step()) return std::nullopt;
  return NodeAgentCall{s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.optional_text(5)};
}

}  // namespace headway::agents
