// Fuzzes reading a stored manifest (manifest_from_json, corpus_manifest.h) from arbitrary JSON
// text, as load_manifest does. Invariants: it returns a manifest or an error and never throws; a
// manifest read writes back to JSON that reads back to the same manifest; diff against itself is
// empty.
#include "fuzz_support.h"
#include "knowledge/corpus_manifest.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto json = nlohmann::json::parse(fuzz::as_text(data, size), nullptr, false);
  if (json.is_discarded()) return 0;
  auto m = knowledge::manifest_from_json(json);
  if (!m.ok()) {
    FUZZ_CHECK(!m.error().message.empty());
    return 0;
  }
  const nlohmann::json written = knowledge::to_json(m.value());
  auto back = knowledge::manifest_from_json(written);
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(knowledge::to_json(back.value()) == written);
  FUZZ_CHECK(knowledge::diff(m.value(), back.value()).empty());
  (void)m.value().line_count();
  (void)written.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
