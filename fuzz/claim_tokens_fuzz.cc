// Fuzzes the checkable facts of a claim (claim_tokens.h). The input is a claim and a cited text
// separated by a line "=====". Invariants: a text lacks none of its own facts
// (find_missing_facts(c, c) is empty); every number is the same number as itself; same_number is
// symmetric; every missing number is one of the claim's prose numbers and every missing
// identifier one of its `code spans`.
#include <algorithm>

#include "fuzz_support.h"
#include "knowledge/claim_tokens.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [claim, cited] = fuzz::split_at(fuzz::as_text(data, size), "\n=====\n");
  FUZZ_CHECK(knowledge::find_missing_facts(claim, claim).empty());
  const std::vector<std::string> numbers = knowledge::numbers_in(claim);
  const std::vector<std::string> cited_numbers = knowledge::numbers_in(cited);
  for (const auto& n : numbers) {
    FUZZ_CHECK(!n.empty() && n.front() >= '0' && n.front() <= '9');
    FUZZ_CHECK(knowledge::same_number(n, n));
    for (const auto& c : cited_numbers) {
      FUZZ_CHECK(knowledge::same_number(n, c) == knowledge::same_number(c, n));
    }
  }
  const std::vector<std::string> spans = knowledge::code_spans_in(claim);
  const std::vector<std::string> prose_numbers = knowledge::numbers_in(knowledge::prose_of(claim));
  const knowledge::MissingFacts missing = knowledge::find_missing_facts(claim, cited);
  for (const auto& n : missing.numbers) {
    FUZZ_CHECK(std::find(prose_numbers.begin(), prose_numbers.end(), n) != prose_numbers.end());
  }
  for (const auto& id : missing.identifiers) {
    FUZZ_CHECK(id.size() >= 2 && id.front() == '`' && id.back() == '`' &&
               std::find(spans.begin(), spans.end(), id.substr(1, id.size() - 2)) != spans.end());
  }
  return 0;
}
