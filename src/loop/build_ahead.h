#pragma once
// Builds a round's sources one ahead of their screen: while source i is checked on the device,
// source i+1 builds on another thread, so a screen of n candidates takes about the sum of the
// longer of each build and check instead of the sum of both.
#include <cstddef>
#include <future>
#include <string>
#include <vector>

#include "loop/screen.h"

namespace headway::loop {

class BuildAhead {
 public:
  // `wanted[i]` false: source i is never built (its lint rejects it, so its screen asks for no
  // build). `build` may be called from another thread.
  BuildAhead(std::vector<std::string> sources, std::vector<bool> wanted, BuildSource build);
  // Waits for a build still running (its outcome is dropped).
  ~BuildAhead();
  BuildAhead(const BuildAhead&) = delete;
  BuildAhead& operator=(const BuildAhead&) = delete;

  // Source i's outcome, each i at most once: starts the build of the next wanted source, then
  // waits for i's (built now if it was not started). Rethrows what i's build threw.
  targets::BuildOutcome get(size_t i);

 private:
  void start(size_t i);

  std::vector<std::string> sources_;
  std::vector<bool> wanted_;
  BuildSource build_;
  std::vector<std::future<targets::BuildOutcome>> outcomes_;
};

}  // namespace headway::loop
