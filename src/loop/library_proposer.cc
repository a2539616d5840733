#include "loop/library_proposer.h"

#include <fmt/format.h>

#include <limits>

#include "loop/slow_designs.h"
#include "targets/fact_names.h"

namespace headway::loop {

namespace {
std::string describe(const targets::Params& p) {
  std::string s;
  for (const auto& [k, v] : p) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}
}  // namespace

std::string LibraryProposer::unmet_requirements(const targets::Design& design) const {
  std::string missing;
  if (!gate_) return missing;
  for (const auto& ext : design.requires_isa) {
    const std::string fact = targets::isa_fact_name(ext);
    const std::optional<double> v = facts_ ? facts_(fact) : std::nullopt;
    if (v && *v != 0.0) continue;
    missing += fmt::format("{}{} (fact {} {})", missing.empty() ? "" : ", ", ext, fact,
                           v ? "= 0" : "not measured for this toolchain");
  }
  if (!missing.empty()) return "needs " + missing;
  if (!design.subnormals.empty() && facts_) {
    // Unmeasured, the ratio is no evidence: the design is proposed, and its races judge it.
    const std::optional<double> ratio = facts_(targets::kFmaSubnormalRatio);
    if (ratio && *ratio >= kSlowSubnormalRatio) {
      return fmt::format(
          "its FMAs take f32 subnormals ({}), which take {:.1f}x as long on this "
          "chip (fact {} = {:.2f})",
          design.subnormals, *ratio, targets::kFmaSubnormalRatio, *ratio);
    }
  }
  return "";
}

std::vector<Proposal> LibraryProposer::propose(const ProposalContext& ctx) {
  std::vector<Proposal> out;
  const auto& all = targets::designs_for(target_, *ctx.kernel);
  std::vector<targets::Design> designs;
  for (const auto& d : all) {
    const std::string unmet = unmet_requirements(d);
    if (unmet.empty()) {
      designs.push_back(d);
    } else if (std::lock_guard lock(skip_mutex_);
               skip_logged_.insert(fmt::format("{}/{}", d.kernel, d.name)).second && log_) {
      log_(fmt::format("library: {} design {} skipped: {}", d.kernel, d.name, unmet));
    }
  }
  auto offer = [&](const targets::Design& d, const targets::Params& p, std::string parent,
                   std::string why) {
    if (static_cast<int>(out.size()) >= ctx.max_proposals) return;
    std::string source;
    try {
      source = d.render(p);
    } catch (const std::invalid_argument&) {
      return;  // parameters stored by an older library that this design no longer accepts
    }
    if (ctx.already_tried(source)) return;
    for (const auto& o : out) {
      if (o.source == source) return;
    }
    out.push_back(
        {d.name, p, std::move(source), std::move(parent), std::move(why), "", std::nullopt});
  };
  for (const auto& d : designs)
    offer(d, d.defaults(), "", fmt::format("new design: {}", d.summary));
  for (const auto& d : designs) {
    if (d.name != ctx.head_design) continue;
    for (const auto& p : d.neighbours(ctx.head_params)) {
      offer(d, p, ctx.head_source, fmt::format("variant of the head: {}", describe(p)));
    }
  }
  for (const auto& d : designs) {
    if (d.name == ctx.head_design) continue;
    if (const auto slow = ctx.slow_designs.find(d.name); slow != ctx.slow_designs.end()) {
      if (std::lock_guard lock(skip_mutex_);
          skip_logged_.insert(fmt::format("{}/{}/slow", d.kernel, d.name)).second && log_) {
        log_(fmt::format("library: {} design {} kept out on this chip: {}", d.kernel, d.name,
                         slow->second));
      }
      continue;
    }
    for (const auto& p : d.neighbours(d.defaults())) {
      offer(d, p, d.render(d.defaults()),
            fmt::format("variant of design {}: {}", d.name, describe(p)));
    }
  }
  return out;
}

int untried_library_candidates(const targets::Target& target, const FactLookup& facts,
                               const KernelContract& kernel, const trees::DesignTree& tree) {
  const auto head = tree.node(tree.head().node_id);
  if (!head) return 0;
  ProposalContext ctx;
  ctx.kernel = &kernel;
  ctx.head_source = tree.source(head->id).value_or("");
  ctx.head_design = head->design;
  ctx.head_params = targets::params_from_json(head->params);
  ctx.already_tried = [&tree](const std::string& s) { return tree.find_by_source(s).has_value(); };
  ctx.max_proposals = std::numeric_limits<int>::max();
  ctx.slow_designs = slow_designs(tree.nodes(), head->design);
  LibraryProposer library(target, facts);
  return static_cast<int>(library.propose(ctx).size());
}

}  // namespace headway::loop
