#pragma once
// The design library: whole-kernel designs shipped by each target as annotated sources (the cpu
// target's are kernels/designs/<kernel>/<design>.cc, embedded into the binary; format in
// kernels/designs/README.md). A design has integer parameters; a candidate is the design's text
// with its parameters set the way the target's kernel language takes them (kernel_language.h).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "targets/kernel_language.h"
#include "targets/target.h"

namespace headway::targets {

using Params = std::map<std::string, int>;

// The integer members of a node's params object (trees::Node::params); others are ignored.
Params params_from_json(const nlohmann::json& params);

struct DesignParam {
  std::string name;         // P_...
  std::vector<int> values;  // allowed values, in the order written
  int default_value = 0;
};

struct Design {
  std::string kernel;
  std::string name;
  std::string summary;
  std::vector<DesignParam> params;
  // Instruction-set extensions the design needs (`// requires: avx512bw avx512vbmi`), by the
  // target's fact names without their prefix ("avx512bw" for the fact "isa.avx512bw"); empty:
  // it builds and runs wherever the target does.
  std::vector<std::string> requires_isa;
  // Where the design feeds f32 subnormals to its FMAs (`// subnormals: WHERE`, e.g. "f8 codes
  // below 2^-6 decode to f32 subnormals"); empty: it never does. Such a design runs many times
  // slower on a chip that takes a microcode assist per subnormal operand
  // (targets/cpu/subnormal_fma.h).
  std::string subnormals;
  std::string text;
  KernelLanguage language;  // the language it was parsed for, which render writes

  Params defaults() const;
  // The candidate source for these values: `#define` lines in front of the text, or the text
  // without its header and with every `{{P_NAME}}` replaced (KernelLanguage::Params). Requires
  // every parameter to have an allowed value (throws std::invalid_argument otherwise).
  std::string render(const Params& values) const;
  // Every params set that differs from `from` in exactly one parameter, in a stable order.
  std::vector<Params> neighbours(const Params& from) const;
};

// Parses one design file, its header (the leading comment lines, docs/KERNELS.md "The design
// header") written in the language's comment or in `//`. An invalid-input error names the line
// that is malformed and what is wrong: missing `headway-design:` header, a name missing or of
// more than one word, a second `headway-design:` line; a param whose name is not P_ and
// capitals, digits or '_', without values, with a value that is not an integer or listed twice,
// without a default, with a default not among the values or words after it, or declared twice;
// a `requires:` line without extensions or given twice; a `subnormals:` line without words or
// given twice; a `headway-design:` or `param P_`
// comment line after the header; with placeholders, also a malformed `{{P_`, a placeholder no
// param declares, and a param no placeholder uses (its variants would all be one source).
Result<Design> parse_design(std::string_view kernel, std::string_view text,
                            const KernelLanguage& language = {});

// Where a parse_design error points: the line of its "line N: " prefix (1 without one) and the
// message after it.
std::pair<int, std::string> design_error_at(const std::string& message);

// Every design of the target's library for `kernel` (Target::design_files), sorted by name, parsed
// once per target name, toolchain spec and kernel, in the target's kernel language. Throws
// std::logic_error when a design does not parse (a build-time mistake, caught by the tests).
const std::vector<Design>& designs_for(const Target& target, const KernelContract& kernel);

}  // namespace headway::targets
