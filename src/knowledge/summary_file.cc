#include "knowledge/summary_file.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "knowledge/text_lines.h"

namespace headway::knowledge {

Result<std::string> read_summary_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return not_found(fmt::format("cannot read summary {}: no such file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) return invalid_input(fmt::format("cannot read summary {}", path.string()));
  if (auto reason = not_text_reason(text.view())) {
    return invalid_input(fmt::format("summary {} is not text: {}", path.string(), *reason));
  }
  return std::move(text).str();
}

}  // namespace headway::knowledge
