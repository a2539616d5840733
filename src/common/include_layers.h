#pragma once
// The layers of headway's sources, checked: every `#include "..."` and `#include <...>` of every
// C or C++ source or header under src/ (.h .hh .hpp .hxx .inc .ipp .c .cc .cpp .cxx .cu .cuh)
// against the order of the parts that src/LAYERS declares (one line per layer, bottom up; parts
// on one line are peers; a line ending in `: through GATE` names the one part above it that may
// include its parts). What the file says, and which files are tests, is described at its top.
#include <filesystem>
#include <string>
#include <vector>

namespace headway {

// Every violation in the tree at `source_root` (the repository root: src/LAYERS, src/ and, if
// present, include/), sorted, one line each:
//   "src/knowledge/rule_lint.h:5: part knowledge includes part loop (upward)"
//   "src/targets/cpu/a.h:3: part targets/cpu includes part targets/cuda (a peer)"
//   "src/cli/a.cc:9: part cli includes part targets/cpu (reached only through targets/registry)"
//   "src/store/a.h:4: production file includes test file src/store/test_temp_dir.h"
//   "src/devices/pool.h: part devices is not in src/LAYERS"
//   "include/headway/x.h:2: the public headers include src/common/rng.h"
//   "include cycle: src/common/a.h -> src/common/b.h -> src/common/a.h"
// A quoted include is resolved against src/ and then against the including file's folder, an
// angled one against src/ only; one that resolves to neither (a system, public or generated
// header) is not checked. Tests may include any part; they are in no cycle check. Throws
// std::runtime_error when src/LAYERS cannot be read, names a part twice, or names a gate that is
// not a part above the line's.
std::vector<std::string> find_layer_violations(const std::filesystem::path& source_root);

}  // namespace headway
