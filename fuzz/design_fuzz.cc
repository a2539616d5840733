// Fuzzes parse_design (targets/design_library.h), which reads the header of a design file of the
// design library. Invariants: a design parsed has a name and parameters named P_... whose default
// is among their values, so its defaults render; an error says why.
#include <algorithm>

#include "fuzz_support.h"
#include "targets/design_library.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto design = targets::parse_design("qkv", fuzz::as_text(data, size));
  if (!design) {
    FUZZ_CHECK(!design.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!design->name.empty());
  for (const auto& p : design->params) {
    FUZZ_CHECK(p.name.starts_with("P_"));
    FUZZ_CHECK(std::find(p.values.begin(), p.values.end(), p.default_value) != p.values.end());
  }
  const std::string rendered = design->render(design->defaults());
  FUZZ_CHECK(rendered.ends_with(design->text));
  (void)design->neighbours(design->defaults());
  return 0;
}
