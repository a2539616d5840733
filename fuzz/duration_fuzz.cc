// Fuzzes parse_duration_seconds (common/duration.h), which reads --budget and other durations of
// the command line. Invariant: a parsed duration is finite and positive.
#include <cmath>
#include <string>

#include "common/duration.h"
#include "fuzz_support.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto seconds = parse_duration_seconds(fuzz::as_text(data, size));
  if (seconds) FUZZ_CHECK(std::isfinite(*seconds) && *seconds > 0.0);
  return 0;
}
