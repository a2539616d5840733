#pragma once
// The public headers a candidate may include (include/headway/), with their text as embedded in
// headway. A candidate includes each by its file name, and a build writes each beside it.
#include <span>
#include <string_view>
#include <vector>

#include "targets/target.h"

namespace headway::targets {

// {name, text} of each named header of include/headway/, in order. Throws std::logic_error for a
// name headway does not embed (a programming error).
std::vector<DocFile> candidate_headers(std::span<const std::string_view> names);

}  // namespace headway::targets
