#include "loop/run_progress.h"

#include <algorithm>

namespace headway::loop {

void RunProgress::add_paused(double seconds) {
  paused_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void RunProgress::keep_record(store::Workspace& ws) { record_.emplace(ws, budget_.count()); }

void RunProgress::event(const std::string& stage, const std::string& note) {
  Progress p;
  p.stage = stage;
  p.note = note;
  report(p);
}

void RunProgress::step(const std::string& kernel, const trees::Node& node,
                       const std::string& stage) {
  Progress p;
  p.kernel = kernel;
  p.node = node.id;
  p.design = node.design;
  p.stage = stage;
  report(p);
}

void RunProgress::report(Progress& p) {
  p.elapsed_s = elapsed_s();
  p.budget_left_s = std::max(0.0, budget_.count() - p.elapsed_s);
  if (!record_ && !on_progress_) return;
  if (!p.kernel.empty()) trees_.forget_figures(p.kernel);
  for (const auto& name : kernels_) {
    if (!registered_.count(name)) continue;
    p.kernels.push_back({name, trees_.head_ms(name), trees_.floor_ms(name)});
    if (name == p.kernel) {
      p.head_ms = p.kernels.back().head_ms;
      p.floor_ms = p.kernels.back().floor_ms;
    }
  }
  if (record_) record_->update(p);
  if (on_progress_) on_progress_(p);
}

}  // namespace headway::loop
