// headway-design: sext_static
// summary: f8 widened in natural order by sign-extending byte loads (vpmovsxbd) plus one shift and one AND to f32 bits, no activation permutation; static contiguous row split (no atomics), each thread converts the activations itself; optional software prefetch
// param P_ROWS 1 2 4 default 2
// param P_THREADS 1 2 4 default 2
// param P_PREFETCH 0 1 2 4 default 1
//
// Decode: vpmovsxbd turns 8 codes into 8 sign-extended int32; shifting left by 20 puts the
// code's exponent and mantissa at bits 26..20 with copies of the sign above, and AND 0x87F00000 leaves
// the f32 equal to the code's value times 2^-120 (subnormal codes stay exact as f32 subnormals). The
// codes keep their natural order, so the activations are used as they come (times 2^32).
#include <atomic>
