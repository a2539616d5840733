#pragma once
// A kernel described as data: a TOML spec (docs/KERNELS.md, "Kernel specs") naming its arguments
// (role, element type, shape over named dimensions, how inputs are drawn), its shape sets, an f64
// reference source, the tolerance, the bytes to move, and a baseline source per target. This file
// only reads and checks the spec; kernels/spec_kernel.h makes a contract of it.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"
#include "kernels/element_type.h"

namespace headway {

enum class ArgumentRole { kInput, kWeight, kOutput, kInOut, kCache };
std::string_view argument_role_name(ArgumentRole role);  // "input", "weight", ...

// How an argument's inputs are drawn from the seed. Every value a draw can give is one the
// argument's element type holds (load_kernel_spec refuses the others: kernels/draw_range.h).
struct Draw {
  // kCodes: every code of the element's bit patterns equally likely (nvfp4 only).
  enum class Kind { kNormal, kUniform, kBelow, kConstant, kCodes } kind = Kind::kNormal;
  double a = 1.0;  // normal: sigma; uniform: lo; constant: the value
  // uniform: hi. A floating type draws from [lo, hi); an integer type every integer from lo to
  // hi, both included, with equal chance.
  double b = 0.0;
  std::string below_dim;  // below: integers in [0, value of this dim) (or below_count)
  int64_t below_count = 0;
  int line = 0;  // of its `draw` value; 0 when the spec gives none (the type's default)
};

// One extent of a shape: a dimension, scaled (`K/16`, `2*N`), or a number.
struct Extent {
  std::string dim;  // empty: a literal `multiplier`
  int64_t multiplier = 1;
  int64_t divisor = 1;
};

struct SpecArgument {
  std::string name;
  ArgumentRole role = ArgumentRole::kInput;
  ElementType type = ElementType::kBf16;
  std::vector<Extent> shape;  // empty: a scalar (one element)
  Draw draw;
  // The seed's stream the draw takes (the generator's hw_mix_seed(seed, stream)); 0: its
  // position among the arguments plus one.
  uint64_t stream = 0;
  // The reference and the generator get the argument's encoded bytes, not decoded values: for
  // weights too large to decode on every call (inputs and weights only).
  bool pass_bytes = false;
  int line = 0;  // of its [[arguments]] table
};

struct ShapeSet {
  std::string name;
  std::vector<int64_t> dims;  // in KernelSpec::dims order
  int line = 0;
  // `check_only = true`: a candidate must be correct here as at every shape set, but the set is
  // never timed (no bench, race, acceptance test or final timing reads it): a case that matters
  // for correctness, not for speed. A spec has at least one set that is not check-only.
  bool check_only = false;
};

// Where a spec and the files it names live: on disk (paths absolute, checked to exist), or among
// the files embedded in headway (paths relative, as embedded: the built-in kernels' specs).
enum class SpecOrigin { kDisk, kEmbedded };

struct KernelSpec {
  SpecOrigin origin = SpecOrigin::kDisk;
  std::filesystem::path file;  // the spec itself, absolute (kDisk)
  std::string name;
  std::string summary;
  std::vector<std::string> dims;
  std::vector<ShapeSet> shapes;  // at least one, and at least one not check_only
  std::vector<SpecArgument> arguments;
  std::filesystem::path reference;  // absolute
  // Optional, absolute: a C or C++ source defining headway_generate, which may rewrite any input
  // after the draws (include/headway/headway_reference.h); empty: the draws alone.
  std::filesystem::path generator;
  Tolerance tolerance;
  std::optional<uint64_t> bytes;  // overrides the bytes derived from the arguments
  std::map<std::string, std::filesystem::path> baselines;  // target name -> source, absolute
  // target name -> the design library's files for this kernel (kernels/designs/README.md), absolute
  std::map<std::string, std::vector<std::filesystem::path>> designs;

  // The elements of argument `a` at shape set `s`; an error (naming the argument's line) when an
  // extent does not divide out or is not positive.
  Result<std::vector<int64_t>> extents(size_t a, size_t s) const;
  // The index of the first shape set that is timed (not check_only).
  size_t first_timed_shape() const;
};

// Every file of a spec on disk: the spec, its reference and generator with the headers (.h, .hh,
// .hpp) beside them, which they may include, its baselines and designs; each once.
std::vector<std::filesystem::path> spec_files(const KernelSpec& spec);

// An argument's shape as written: "N, K/16, 2*N" ("" for a scalar).
std::string shape_text(const SpecArgument& argument);

// Reads and checks a spec: unknown keys, missing fields, unknown roles or types, shapes over
// undeclared dimensions or that do not divide out at some shape set, a reference or baseline file
// that does not exist. Every error reads "FILE:LINE: what".
Result<KernelSpec> load_kernel_spec(const std::filesystem::path& file);
// As load_kernel_spec, for a spec's text; files named in an embedded spec are not looked for.
Result<KernelSpec> parse_kernel_spec(std::string_view text, const std::filesystem::path& file,
                                     SpecOrigin origin);

}  // namespace headway
