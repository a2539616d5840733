#pragma once
// What an FMA costs when an input is an f32 subnormal, against the same FMA on normal inputs.
// Some designs decode f8 and e2m1 codes by shifts straight into f32 bits, which makes the small
// codes f32 subnormals (exact, and fast where the FPU handles them in hardware); a chip that
// takes a microcode assist for each such operand runs those designs many times slower. The
// ratio is a chip fact (targets/fact_names.h, kFmaSubnormalRatio), and the library does not
// propose a design that declares such a decode where the ratio is high (docs/KERNELS.md,
// "subnormals:").
#include <string>
#include <vector>

namespace headway::cpu {

struct SubnormalFma {
  double ratio = 0.0;          // median time with a subnormal multiplicand over normal
  std::vector<double> ratios;  // per reading, in order
  double normal_ns = 0.0;      // median ns per FMA instruction, normal inputs
  double subnormal_ns = 0.0;   // ... one multiplicand subnormal, products and sums normal
  std::string method;          // one line, naming the instruction set
};

// `readings` pairs of one-thread readings (normal, then subnormal, each about 1 ms), after a
// warm-up pair. Every product and every sum stays normal: only the multiplicand differs.
SubnormalFma measure_subnormal_fma(int readings = 7);

}  // namespace headway::cpu
