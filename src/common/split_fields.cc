#include "common/split_fields.h"

namespace headway {

std::vector<std::string> split_fields(std::string_view text, char separator) {
  std::vector<std::string> out;
  for (;;) {
    const size_t end = text.find(separator);
    std::string_view field = text.substr(0, end);
    const size_t first = field.find_first_not_of(" \t");
    field = first == std::string_view::npos
                ? std::string_view()
                : field.substr(first, field.find_last_not_of(" \t") + 1 - first);
    out.emplace_back(field);
    if (end == std::string_view::npos) return out;
    text.remove_prefix(end + 1);
  }
}

}  // namespace headway
