#pragma once
// Instruction-set facts of the cpu target: which x86 extensions the chip reports (cpuid, with the
// operating system's register-state support from xgetbv) and which the toolchain enables when it
// builds a candidate (its predefined macros under the build flags, -march=native). A candidate
// can use an extension only when both hold.
#include <string>
#include <string_view>
#include <vector>

#include "targets/cpu/compiler.h"
#include "targets/target.h"

namespace headway::cpu {

struct IsaExtension {
  const char* name;   // as in a design's `requires:` line and the fact name "isa.<name>"
  const char* macro;  // the macro g++ and clang predefine when they may use it
};

// The extensions reported, in a fixed order: avx2, fma, f16c, avx512f, avx512bw, avx512vl,
// avx512dq, avx512vbmi, avx512vbmi2, avx512vnni, avx512bf16, avx512fp16, amx-tile, amx-int8,
// amx-bf16.
const std::vector<IsaExtension>& isa_extensions();

// What this process's chip reports for `extension` (a name from isa_extensions()): the cpuid bit
// and, for AVX/AVX-512/AMX state, the XCR0 bits the operating system enables. False for a name
// not in the list.
bool chip_has(std::string_view extension);

// One fact per extension, "isa.<name>" = 1 when chip_has(name) and `macros` (the toolchain's
// predefined macros, compiler.h predefined_macros) defines its macro, else 0; the method says
// which of the two held. `toolchain_note` names the toolchain in the method.
std::vector<targets::ChipFact> isa_facts(std::string_view macros, std::string_view toolchain_note);

// isa_facts for this chip and `toolchain` (runs the compiler once, well under a second). When the
// compiler does not run, every fact is 0 and the method says why.
std::vector<targets::ChipFact> measure_isa_facts(const Toolchain& toolchain);

}  // namespace headway::cpu
