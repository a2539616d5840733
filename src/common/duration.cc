#include "common/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace headway {

std::optional<double> parse_duration_seconds(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0.0;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.'))
      ++j;
    if (j == i) return std::nullopt;
    const std::string number(text.substr(i, j - i));
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return std::nullopt;
    double unit = 1.0;
    if (j < text.size()) {
      switch (text[j]) {
        case 's':
          unit = 1.0;
          break;
        case 'm':
          unit = 60.0;
          break;
        case 'h':
          unit = 3600.0;
          break;
        default:
          return std::nullopt;
      }
      ++j;
    } else if (any) {
      return std::nullopt;  // "1h30" is ambiguous
    }
    total += value * unit;
    any = true;
    i = j;
  }
  if (!(total > 0.0) || !std::isfinite(total)) return std::nullopt;
  return total;
}

}  // namespace headway
