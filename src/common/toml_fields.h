#pragma once
// Reading typed fields out of a toml++ table with errors that name the line at fault: what every
// TOML file headway reads (a pack manifest, a kernel spec) shares. The readers throw FieldError;
// a file's parser catches it once and returns "FILE:LINE: message".
#include <toml++/toml.h>

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headway::toml_fields {

struct FieldError {
  int line;
  std::string message;
  std::filesystem::path file = {};  // when the fault is in another file than the one parsed
};

[[noreturn]] void fail(int line, std::string message);

// Parses TOML text read from `path`: toml::parse_error for what toml++ rejects, FieldError for a
// byte >= 0x80 outside a string or comment (TOML allows non-ASCII text only there, and toml++
// 3.3's check of such a byte elsewhere reaches TOML_UNREACHABLE for some code points, U+00A1 to
// U+0499, found by fuzz/command_manifest_fuzz.cc).
toml::table parse(std::string_view text, const std::filesystem::path& path);
int line_of(const toml::node& node);
// toml++ quotes the offending input in its descriptions, control characters included; an error
// stays one line, so they are shown escaped ("\n", "\x01").
std::string one_line(std::string_view text);

// Rejects any key of `table` not in `allowed`, naming `where` and the known keys.
void only_keys(const toml::table& table, std::string_view where,
               std::initializer_list<std::string_view> allowed);
// The string at `key`; missing: an error when required (at table_line), else `def`. A required
// string may not be empty.
std::string string_at(const toml::table& t, std::string_view key, int table_line, bool required,
                      std::string def = "");
std::optional<double> number_at(const toml::table& t, std::string_view key);
std::optional<int64_t> integer_at(const toml::table& t, std::string_view key);
// An array of non-empty strings; empty when missing.
std::vector<std::string> strings_at(const toml::table& t, std::string_view key);
const toml::table* table_at(const toml::table& t, std::string_view key);
// `key`'s path, relative to `base`, made absolute; empty when missing and not required. With
// must_exist, a path that does not exist is an error at the key's line.
std::filesystem::path existing_path(const std::filesystem::path& base, const toml::table& t,
                                    std::string_view key, int line, bool required, bool must_exist);

}  // namespace headway::toml_fields
