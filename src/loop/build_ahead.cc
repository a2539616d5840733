#include "loop/build_ahead.h"

#include <stdexcept>

namespace headway::loop {

BuildAhead::BuildAhead(std::vector<std::string> sources, std::vector<bool> wanted,
                       BuildSource build)
    : sources_(std::move(sources)),
      wanted_(std::move(wanted)),
      build_(std::move(build)),
      outcomes_(sources_.size()) {
  if (wanted_.size() != sources_.size())
    throw std::logic_error("BuildAhead: one wanted flag per source");
}

BuildAhead::~BuildAhead() {
  for (auto& outcome : outcomes_)
    if (outcome.valid()) outcome.wait();
}

void BuildAhead::start(size_t i) {
  if (outcomes_[i].valid()) return;
  outcomes_[i] = std::async(std::launch::async, [this, i] { return build_(sources_[i]); });
}

targets::BuildOutcome BuildAhead::get(size_t i) {
  start(i);
  for (size_t next = i + 1; next < sources_.size(); ++next) {
    if (!wanted_[next]) continue;
    start(next);
    break;
  }
  return outcomes_[i].get();
}

}  // namespace headway::loop
