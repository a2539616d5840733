// Fuzzes the docs-manifests.jsonl log of a workspace (parse_manifest_log, docs_index.h).
// Invariants: complete lines only are read (a torn last line is ignored), every record has a
// manifest hash, and an error names the log.
#include "fuzz_support.h"
#include "knowledge/docs_index.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzz::as_text(data, size);
  auto records = knowledge::parse_manifest_log(input, "log.jsonl");
  if (!records.ok()) {
    FUZZ_CHECK(records.error().message.starts_with("log.jsonl line "));
    return 0;
  }
  const size_t complete = static_cast<size_t>(std::count(input.begin(), input.end(), '\n'));
  FUZZ_CHECK(records.value().size() <= complete);
  for (const auto& r : records.value()) FUZZ_CHECK(r.manifest.size() == 64);
  // A torn last line changes nothing.
  const size_t last = input.rfind('\n');
  if (last != std::string_view::npos && last + 1 < input.size()) {
    auto whole = knowledge::parse_manifest_log(input.substr(0, last + 1), "log.jsonl");
    FUZZ_CHECK(whole.ok() && whole.value().size() == records.value().size());
  }
  return 0;
}
