// Fuzzes reading one docs file into the corpus (make_corpus_file, corpus.h) and writing and
// reading back its manifest (corpus_manifest.h), as `headway docs index` does. The first byte picks
// the kind (Markdown, text, HTML), the rest is the file. Invariants: bytes that are not text are
// refused, text is accepted; no line holds '\n'; text() (what is stored) splits into as many lines,
// the same ones for HTML; the manifest's JSON can be written and reads back equal.
#include "fuzz_support.h"
#include "knowledge/corpus.h"
#include "knowledge/corpus_manifest.h"
#include "knowledge/text_lines.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto kind = static_cast<knowledge::DocKind>(data[0] % 3);
  const std::string_view bytes = fuzz::as_text(data + 1, size - 1);
  auto file = knowledge::make_corpus_file("dir/doc.md", kind, bytes);
  FUZZ_CHECK(file.ok() == !knowledge::not_text_reason(bytes).has_value());
  if (!file.ok()) return 0;
  const knowledge::CorpusFile& f = file.value();
  for (const auto& line : f.lines) FUZZ_CHECK(line.find('\n') == std::string::npos);
  const std::vector<std::string> stored = knowledge::split_lines(f.text());
  FUZZ_CHECK(stored.size() == f.lines.size());
  if (kind == knowledge::DocKind::kHtml) FUZZ_CHECK(stored == f.lines);

  knowledge::Corpus corpus;
  corpus.root = "/docs";
  corpus.files.push_back(f);
  corpus.skipped.push_back({"x.png", "unsupported extension '.png'"});
  const knowledge::CorpusManifest m = knowledge::make_manifest(corpus, "2025-01-31T12:00:00Z");
  const std::string json = knowledge::to_json(m).dump();
  auto back = knowledge::manifest_from_json(nlohmann::json::parse(json));
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(knowledge::to_json(back.value()).dump() == json);
  FUZZ_CHECK(knowledge::diff(m, back.value()).empty());
  return 0;
}
