// Fuzzes parse_design (targets/design_library.h), which reads the header of a design file of the
// design library, as C++ (#define) and as a `#`-comment language with placeholders. Invariants: a
// design parsed has a name and parameters named P_... whose default is among their values, so its
// defaults render; with placeholders every one is replaced; an error says why.
#include <algorithm>

#include "fuzz_support.h"
#include "targets/design_library.h"

using namespace headway;

namespace {

void define_design(std::string_view text) {
  const auto design = targets::parse_design("qkv", text);
  if (!design) {
    FUZZ_CHECK(!design.error().message.empty());
    return;
  }
  FUZZ_CHECK(!design->name.empty());
  for (const auto& p : design->params) {
    FUZZ_CHECK(p.name.starts_with("P_"));
    FUZZ_CHECK(std::find(p.values.begin(), p.values.end(), p.default_value) != p.values.end());
  }
  const std::string rendered = design->render(design->defaults());
  FUZZ_CHECK(rendered.ends_with(design->text));
  (void)design->neighbours(design->defaults());
}

void placeholder_design(std::string_view text) {
  const targets::KernelLanguage hash{"#", targets::KernelLanguage::Params::kPlaceholder, true};
  const auto design = targets::parse_design("qkv", text, hash);
  if (!design) {
    FUZZ_CHECK(!design.error().message.empty());
    return;
  }
  FUZZ_CHECK(!design->name.empty());
  FUZZ_CHECK(design->render(design->defaults()).find("{{P_") == std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  define_design(text);
  placeholder_design(text);
  return 0;
}
