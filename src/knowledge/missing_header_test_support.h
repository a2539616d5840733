#pragma once
// For tests of the legality rules: one build failure as a tree stores it, a missing header (g++'s
// diagnostic, and the source that reproduces it), from which a detector is derived.
namespace headway::knowledge::testing {

inline constexpr const char* kMissingHeaderDiagnostic =
    "c.cc:2:10: fatal error: omp.h: No such file or directory\n";
inline constexpr const char* kMissingHeaderRepro =
    "#include \"headway_kernel.h\"\n#include <omp.h>\n";

}  // namespace headway::knowledge::testing
