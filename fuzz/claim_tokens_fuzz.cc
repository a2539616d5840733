// Fuzzes the checkable facts of a claim (claim_tokens.h). The input is a claim and a cited text
// separated by a line "=====". Invariants: a text lacks none of its own facts
// (missing_facts(c, c) is empty); every number is the same number as itself; same_number is
// symmetric; every missing fact is one of the claim's numbers or `identifiers`.
#include <algorithm>

#include "fuzz_support.h"
#include "knowledge/claim_tokens.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [claim, cited] = fuzz::split_at(fuzz::as_text(data, size), "\n=====\n");
  FUZZ_CHECK(knowledge::missing_facts(claim, claim).empty());
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
  for (const auto& fact : knowledge::missing_facts(claim, cited)) {
    const bool number =
        std::find(prose_numbers.begin(), prose_numbers.end(), fact) != prose_numbers.end();
    const bool span =
        fact.size() >= 2 && fact.front() == '`' && fact.back() == '`' &&
        std::find(spans.begin(), spans.end(), fact.substr(1, fact.size() - 2)) != spans.end();
    FUZZ_CHECK(number || span);
  }
  return 0;
}
