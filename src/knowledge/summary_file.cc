#include "knowledge/summary_file.h"

#include <fmt/format.h>

#include "common/file_io.h"
#include "knowledge/text_lines.h"

namespace headway::knowledge {

Result<std::string> read_summary_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return not_found(fmt::format("cannot read summary {}: no such file", path.string()));
  }
  std::optional<std::string> text = read_file(path);
  if (!text) return invalid_input(fmt::format("cannot read summary {}", path.string()));
  if (auto reason = not_text_reason(*text)) {
    return invalid_input(fmt::format("summary {} is not text: {}", path.string(), *reason));
  }
  return std::move(*text);
}

}  // namespace headway::knowledge
