#include "agents/agent_proposer.h"

#include <fmt/format.h>

#include <future>
#include <regex>

#include "agents/prompt_template.h"
#include "agents/response_parse.h"

namespace headway::agents {
namespace {

constexpr const char* kKernelFile = "kernel.cc";  // what a command agent edits

// The value of the first line "KEY: value" (case-insensitive key) before any code block.
std::string header_line(const std::string& text, const std::string& key) {
  const std::regex line("^[ \\t]*" + key + "[ \\t]*:[ \\t]*(.*?)[ \\t\\r]*$",
                        std::regex::icase | std::regex::multiline);
  std::smatch m;
  const std::string before_code = text.substr(0, text.find("```"));
  return std::regex_search(before_code, m, line) ? m[1].str() : "";
}

// A design name as the tree shows it: lower-case letters, digits and '_', at most 40.
std::string design_name(const std::string& raw) {
  std::string out;
  for (const char c : raw) {
    if (out.size() == 40) break;
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if ((c == '_' || c == '-' || c == ' ') && !out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

struct AgentProposer::Answer {
  std::optional<loop::Proposal> proposal;
  std::string budget_spent;  // non-empty: nothing was asked
};

AgentProposer::AgentProposer(const targets::Target& target, AgentLedger& ledger,
                             AgentProposerOptions options, loop::ProposerLog log)
    : target_(target), ledger_(ledger), options_(std::move(options)), log_(std::move(log)) {}

std::string AgentProposer::stopped() const {
  std::lock_guard lock(mu_);
  return stopped_;
}

AgentProposer::Answer AgentProposer::ask(const loop::ProposalContext& ctx, const std::string& role,
                                         const std::string& cheat_sheet) {
  const std::string kernel(ctx.kernel->name());
  const nlohmann::json data = kernel_prompt_data(ctx, target_, cheat_sheet, options_.limits);
  AgentRequest request;
  request.role = role;
  request.system =
      render_template(load_template(options_.prompts_dir, "system"), data, options_.prompts_dir);
  request.prompt =
      render_template(load_template(options_.prompts_dir, role), data, options_.prompts_dir);
  request.max_tokens = options_.max_tokens;
  request.files[kKernelFile] = ctx.head_source;

  Answer answer;
  CallRecord call;
  try {
    call = ledger_.call(request, kernel);
  } catch (const BudgetSpent& e) {
    answer.budget_spent = e.what();
    return answer;
  } catch (const AgentError& e) {
    const std::string why =
        fmt::format("agent {}:{} ({}): {}: {}", ledger_.agent().provider(), ledger_.agent().model(),
                    role, to_string(e.kind()), e.what());
    ledger_.cancel(why);  // the rest of the batch is not asked
    throw std::runtime_error(why);
  }
  const auto say = [&](const std::string& what) {
    if (log_) log_(fmt::format("agent call {} ({} for {}): {}", call.id, role, kernel, what));
  };
  if (call.error) {
    say(fmt::format("{}: {}", to_string(call.error->kind()), call.error->what()));
    return answer;
  }
  const AgentReply& reply = *call.reply;
  std::string code;
  if (auto edited = reply.files.find(kKernelFile); edited != reply.files.end()) {
    code = edited->second;
  } else {
    const ParsedCode parsed = extract_code(reply.text);
    if (!parsed.ok()) {
      const std::string reason = reply.truncated
                                     ? parsed.malformed + " (the answer was cut at max_tokens)"
                                     : parsed.malformed;
      ledger_.set_outcome(call.id, "malformed", reason);
      say("malformed: " + reason);
      return answer;
    }
    code = parsed.code;
  }
  loop::Proposal p;
  p.source = std::move(code);
  p.rationale = header_line(reply.text, "WHY");
  p.proposer = fmt::format("{}:{} {}", ledger_.agent().provider(),
                           reply.model.empty() ? ledger_.agent().model() : reply.model, role);
  p.agent_call = call.id;
  if (role == "designer") {
    std::string name = design_name(header_line(reply.text, "NAME"));
    p.design = "agent/" + (name.empty() ? fmt::format("design_{}", call.id) : name);
  } else {
    p.design =
        ctx.head_design.rfind("agent/", 0) == 0 ? ctx.head_design : "agent/" + ctx.head_design;
    p.parent_source = ctx.head_source;
  }
  if (ctx.prebuild) ctx.prebuild(p.source);
  answer.proposal = std::move(p);
  return answer;
}

// One batch of calls: launched by begin(), collected by wait() on the loop's thread.
class AgentProposer::Pending final : public loop::PendingProposals {
 public:
  Pending(AgentProposer& owner, const loop::ProposalContext& ctx,
          const std::vector<std::string>& roles, std::string cheat_sheet)
      : owner_(owner), ctx_(ctx), cheat_sheet_(std::move(cheat_sheet)) {
    // One call in flight: asked in order on the loop's thread (in wait()), so that a run is
    // repeatable call for call (a replay of its transcript answers every request with the
    // answer it recorded).
    const auto launch =
        owner_.ledger_.max_in_flight() == 1 ? std::launch::deferred : std::launch::async;
    for (const auto& role : roles) {
      answers_.push_back(
          std::async(launch, [this, role] { return owner_.ask(ctx_, role, cheat_sheet_); }));
    }
  }
  // An abandoned batch still finishes its calls (each is stored by the ledger).
  ~Pending() override {
    for (auto& f : answers_) {
      if (f.valid()) f.wait();
    }
  }
  std::vector<loop::Proposal> wait() override;

 private:
  AgentProposer& owner_;
  const loop::ProposalContext ctx_;
  const std::string cheat_sheet_;
  std::vector<std::future<Answer>> answers_;
};

std::vector<loop::Proposal> AgentProposer::Pending::wait() {
  std::vector<loop::Proposal> out;
  std::exception_ptr fatal;
  for (auto& f : answers_) {
    try {
      Answer a = f.get();
      if (!a.budget_spent.empty()) {
        std::lock_guard lock(owner_.mu_);
        if (owner_.stopped_.empty()) owner_.stopped_ = a.budget_spent;
      }
      if (!a.proposal) continue;
      // Here, on the loop's thread: the tree is the workspace's, which the calls' threads leave
      // to the ledger.
      if (ctx_.already_tried && ctx_.already_tried(a.proposal->source)) {
        owner_.ledger_.set_outcome(*a.proposal->agent_call, "duplicate",
                                   "its code was already tried on this kernel");
        if (owner_.log_)
          owner_.log_(fmt::format("agent call {}: duplicate of a candidate already tried",
                                  *a.proposal->agent_call));
        continue;
      }
      out.push_back(std::move(*a.proposal));
    } catch (...) {
      if (!fatal) fatal = std::current_exception();  // after every call of the batch is stored
    }
  }
  if (fatal) std::rethrow_exception(fatal);
  // Two answers of one batch may carry the same code: the loop stores the first.
  return out;
}

bool AgentProposer::works_in_background() const { return ledger_.max_in_flight() > 1; }

std::unique_ptr<loop::PendingProposals> AgentProposer::begin(const loop::ProposalContext& ctx) {
  std::vector<std::string> roles;
  if (stopped().empty() && ctx.kernel != nullptr) {
    std::lock_guard lock(mu_);  // rounds on other kernels may ask at the same time
    int& calls = calls_by_kernel_[std::string(ctx.kernel->name())];
    for (int i = 0; i < ctx.max_proposals; ++i, ++calls) {
      const bool designer =
          ctx.head_design == "baseline" || calls % std::max(1, options_.designer_every) == 0;
      roles.push_back(designer ? "designer" : "variant");
    }
  }
  // Read once, here: the calls run on other threads and must not touch the workspace.
  std::string cheat_sheet =
      !roles.empty() && options_.cheat_sheet ? options_.cheat_sheet() : std::string();
  return std::make_unique<Pending>(*this, ctx, roles, std::move(cheat_sheet));
}

std::vector<loop::Proposal> AgentProposer::propose(const loop::ProposalContext& ctx) {
  return begin(ctx)->wait();
}

void AgentProposer::proposed(int64_t node_id, int64_t agent_call, bool duplicate) {
  ledger_.record_proposal(node_id, agent_call, duplicate);
}

std::string CombinedProposer::name() const {
  std::string out;
  for (const auto* p : proposers_) out += (out.empty() ? "" : "+") + p->name();
  return out;
}

namespace {

// The share of a batch of `left` proposals the i-th of n proposers is asked for.
int share_of(size_t i, size_t n, int left) { return i + 1 == n ? left : (left + 1) / 2; }

}  // namespace

// The first proposer's share is begun at once; the others are asked in wait(), each for what
// the ones before it left unused.
class CombinedProposer::Pending final : public loop::PendingProposals {
 public:
  Pending(const std::vector<loop::Proposer*>& proposers, const loop::ProposalContext& ctx)
      : proposers_(proposers), ctx_(ctx) {
    if (proposers_.empty() || ctx_.max_proposals <= 0) return;
    loop::ProposalContext share = ctx_;
    share.max_proposals = share_of(0, proposers_.size(), ctx_.max_proposals);
    first_ = proposers_.front()->begin(share);
  }
  std::vector<loop::Proposal> wait() override {
    std::vector<loop::Proposal> out;
    if (!first_) return out;
    take(0, first_->wait(), out);
    for (size_t i = 1; i < proposers_.size(); ++i) {
      const int left = ctx_.max_proposals - static_cast<int>(out.size());
      if (left <= 0) break;
      loop::ProposalContext share = ctx_;
      share.max_proposals = share_of(i, proposers_.size(), left);
      take(i, proposers_[i]->propose(share), out);
    }
    return out;
  }

 private:
  void take(size_t i, std::vector<loop::Proposal> got, std::vector<loop::Proposal>& out) const {
    for (auto& p : got) {
      if (p.proposer.empty()) p.proposer = proposers_[i]->name();
      out.push_back(std::move(p));
    }
  }
  const std::vector<loop::Proposer*>& proposers_;
  const loop::ProposalContext ctx_;
  std::unique_ptr<loop::PendingProposals> first_;
};

bool CombinedProposer::works_in_background() const {
  return !proposers_.empty() && proposers_.front()->works_in_background();
}

std::unique_ptr<loop::PendingProposals> CombinedProposer::begin(const loop::ProposalContext& ctx) {
  return std::make_unique<Pending>(proposers_, ctx);
}

std::vector<loop::Proposal> CombinedProposer::propose(const loop::ProposalContext& ctx) {
  return begin(ctx)->wait();
}

void CombinedProposer::proposed(int64_t node_id, int64_t agent_call, bool duplicate) {
  for (auto* p : proposers_) p->proposed(node_id, agent_call, duplicate);
}

std::string CombinedProposer::stopped() const {
  for (const auto* p : proposers_) {
    if (auto why = p->stopped(); !why.empty()) return why;
  }
  return "";
}

}  // namespace headway::agents
