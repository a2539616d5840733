#pragma once
// How the command target reads a number (or one number per arm) from a command's output: a
// regular expression (ECMAScript) or a JSON path. Every parser carries an example output it must
// match, so a manifest whose parser can never work is rejected before anything runs.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace headway::command {

struct OutputParser {
  enum class Kind { kRegex, kJsonPath } kind = Kind::kRegex;
  // kRegex: for number(), group 1 of the first match (the whole match without groups); for
  // per_arm(), every match: with two groups (arm index, value), else group 1 in arm order.
  // kJsonPath: dot-separated keys and [n] indices, e.g. "schedule.makespan" or "arms[0].cycles";
  // per_arm() wants an array of numbers there.
  std::string pattern;
  std::string file;  // empty: the command's output; else a file (relative to its working folder)
  std::string example;

  // The number the output gives. Error: "regex '...' matches nothing in: <output excerpt>", a
  // path that is missing, a value that is not a number.
  Result<double> number(std::string_view output) const;
  // One number per arm, arms in the order the job ran them (arm i is the i-th folder given).
  // Error when any arm has no reading or the output is malformed.
  Result<std::vector<double>> per_arm(std::string_view output, int arms) const;
  // As per_arm, but an arm without a reading is nullopt (an arm that failed in the job); errors
  // only for malformed output (an arm index out of range, a value that is not a number).
  Result<std::vector<std::optional<double>>> arm_readings(std::string_view output, int arms) const;
  // "regex 'PATTERN'" or "JSON path 'PATH'".
  std::string describe() const;
};

// Checks the pattern (a regex compiles; a path has no empty key); one line on error.
Result<OutputParser> make_parser(OutputParser::Kind kind, std::string pattern);

// A short, one-line excerpt of `output` for error messages (newlines shown as " | ").
std::string excerpt(std::string_view output, size_t max_chars = 160);

}  // namespace headway::command
