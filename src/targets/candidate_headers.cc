#include "targets/candidate_headers.h"

#include <stdexcept>
#include <string>

#include "common/embedded.h"

namespace headway::targets {

std::vector<DocFile> candidate_headers(std::span<const std::string_view> names) {
  std::vector<DocFile> out;
  for (std::string_view name : names)
    out.push_back(
        {std::string(name), std::string(embedded_file("include/headway/" + std::string(name)))});
  return out;
}

}  // namespace headway::targets
