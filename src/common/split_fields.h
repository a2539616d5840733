#pragma once
// A list given on one line, such as a command-line option's "a, b,c".
#include <string>
#include <string_view>
#include <vector>

namespace headway {

// The fields of `text` between `separator`s, each without its leading and trailing spaces and
// tabs; empty fields are kept (an empty text is one empty field), so that callers decide whether
// they are errors.
std::vector<std::string> split_fields(std::string_view text, char separator);

}  // namespace headway
