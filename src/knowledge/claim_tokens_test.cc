#include "knowledge/claim_tokens.h"

#include <gtest/gtest.h>

namespace headway::knowledge {
namespace {

using Strings = std::vector<std::string>;

TEST(CitationTokens, NumbersOfEveryShape) {
  EXPECT_EQ(numbers_in("448 bytes, 0x7f mask, 1.5 GHz, eps 1e-6, 2.5E+3 ops"),
            (Strings{"448", "0x7f", "1.5", "1e-6", "2.5E+3"}));
  EXPECT_EQ(numbers_in("1,024 and 1_024 and 0b1010, v0.8.1 vs 0.8.1"),
            (Strings{"1,024", "1_024", "0b1010", "0.8.1"}));
  EXPECT_EQ(numbers_in("64KB at 3.75x; 12B params"), (Strings{"64", "3.75", "12"}));
  EXPECT_EQ(numbers_in("bf16 x86 L2 sm_90 fp8"), Strings{});
  EXPECT_EQ(numbers_in("ends with 7."), Strings{"7"});
  EXPECT_EQ(numbers_in("lists 4,8,16 and (3, 4)"), (Strings{"4", "8", "16", "3", "4"}));
}

TEST(CitationTokens, SameNumberBySpellingOrValue) {
  EXPECT_TRUE(same_number("1,024", "1024"));
  EXPECT_TRUE(same_number("1_024", "1024"));
  EXPECT_TRUE(same_number("0x7F", "0x7f"));
  EXPECT_TRUE(same_number("0x7f", "127"));
  EXPECT_TRUE(same_number("1.50", "1.5"));
  EXPECT_TRUE(same_number("1e-6", "0.000001"));
  EXPECT_FALSE(same_number("48", "448"));
  EXPECT_FALSE(same_number("0.8.1", "0.8.2"));
  EXPECT_TRUE(same_number("0.8.1", "0.8.1"));
}

TEST(CitationTokens, CodeSpansAndProse) {
  EXPECT_EQ(code_spans_in("use `dma_copy` then ``a`b`` and `  x  y `"),
            (Strings{"dma_copy", "a`b", "x y"}));
  EXPECT_EQ(code_spans_in("unclosed `tick"), Strings{});
  EXPECT_EQ(prose_of("see [the guide](https://x.io/v2/page) and `f(3)` now"),
            "see [the guide] and   now");
}

TEST(CitationTokens, IdentifierNeedsWholeWords) {
  EXPECT_TRUE(contains_identifier("call `dma_copy(src, dst)` first", "dma_copy"));
  EXPECT_FALSE(contains_identifier("call dma_copy_async", "dma_copy"));
  EXPECT_TRUE(contains_identifier("let  x =\n 1;", "let x = 1;"));
  EXPECT_FALSE(contains_identifier("Tile", "tile"));
}

TEST(CitationTokens, MissingFacts) {
  EXPECT_TRUE(find_missing_facts("A `tile` holds 448 bytes at 0x7f", "tile: 448 bytes, offset 127")
                  .empty());
  const MissingFacts both =
      find_missing_facts("A `tile_size` of 512 and 448", "tile holds 448 bytes");
  EXPECT_EQ(both.numbers, Strings{"512"});
  EXPECT_EQ(both.identifiers, Strings{"`tile_size`"});
  const MissingFacts repeated = find_missing_facts("448 or 448 again", "nothing");
  EXPECT_EQ(repeated.numbers, Strings{"448"});
  EXPECT_TRUE(repeated.identifiers.empty());
  EXPECT_TRUE(find_missing_facts("see [docs](http://h/9999) for `x` details", "x").empty());
}

TEST(CitationTokens, MissingFactsByKind) {
  const MissingFacts m =
      find_missing_facts("A `tile_size` of 512 and 448 for `bool`", "tile holds 448 bytes; a bool");
  EXPECT_EQ(m.numbers, Strings{"512"});
  EXPECT_EQ(m.identifiers, Strings{"`tile_size`"});
  EXPECT_FALSE(m.empty());
  EXPECT_TRUE(find_missing_facts("2^8-1 values", "u8 | 0 | 2^8-1").empty());
  EXPECT_EQ(find_missing_facts("2^8-1 values", "u8 | 0 | 28-1").numbers, (Strings{"2", "8"}));
}

}  // namespace
}  // namespace headway::knowledge
