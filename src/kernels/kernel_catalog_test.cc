#include "kernels/kernel_catalog.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kernels/declared_kernel.h"
#include "store/test_temp_dir.h"

namespace headway {
namespace {

const std::filesystem::path kCatalogSpecs =
    std::filesystem::path(HEADWAY_SOURCE_DIR) / "kernels/specs";

std::vector<std::string> names_of(const std::vector<const KernelContract*>& kernels) {
  std::vector<std::string> out;
  for (const KernelContract* k : kernels) out.emplace_back(k->name());
  return out;
}

TEST(KernelCatalog, ANewOneKnowsTheBuiltInKernelsOnly) {
  const KernelCatalog catalog;
  EXPECT_EQ(names_of(catalog.kernels()), (std::vector<std::string>{"qkv", "attn_out", "ffn"}));
  EXPECT_EQ(catalog.find_kernel("attn_out"), builtin_kernel("attn_out"));
  EXPECT_EQ(catalog.find_kernel("rmsnorm"), nullptr);
  EXPECT_TRUE(catalog.added().empty());
  EXPECT_EQ(catalog.known_text(), "qkv, attn_out, ffn");
}

TEST(KernelCatalog, AddedKernelsFollowTheBuiltInOnesSortedAndStayInTheirCatalog) {
  KernelCatalog catalog;
  ASSERT_TRUE(catalog.declare("zeta", 100));
  const auto alpha = catalog.declare("alpha", 6000000);
  ASSERT_TRUE(alpha) << alpha.error().message;
  EXPECT_EQ(catalog.find_kernel("alpha"), alpha.value());
  EXPECT_EQ(alpha.value()->bytes_to_move(), 6000000u);
  EXPECT_EQ(names_of(catalog.kernels()),
            (std::vector<std::string>{"qkv", "attn_out", "ffn", "alpha", "zeta"}));
  EXPECT_EQ(catalog.known_text(), "qkv, attn_out, ffn, alpha, zeta");
  // Another catalog, as another workspace's, knows none of them.
  EXPECT_EQ(KernelCatalog().find_kernel("alpha"), nullptr);
  // A copy shares them.
  const KernelCatalog copy = catalog;
  EXPECT_EQ(copy.find_kernel("alpha"), alpha.value());
}

TEST(KernelCatalog, AddingAgainReplacesAndLeavesTheOldContractValid) {
  KernelCatalog catalog;
  const KernelContract* first = catalog.declare("again", 100).value();
  EXPECT_EQ(catalog.declare("again", 100).value(), first);
  const KernelContract* second = catalog.declare("again", 200).value();
  EXPECT_NE(second, first);
  EXPECT_EQ(catalog.find_kernel("again"), second);
  EXPECT_EQ(first->bytes_to_move(), 100u);
  EXPECT_EQ(catalog.added().size(), 1u);
}

TEST(KernelCatalog, BuiltInNamesBadNamesAndNoBytesAreRefused) {
  KernelCatalog catalog;
  EXPECT_NE(catalog.declare("qkv", 10).error().message.find("built in"), std::string::npos);
  EXPECT_EQ(catalog.find_kernel("qkv")->bytes_to_move(), 31507460u);
  for (const char* bad : {"", "RmsNorm", "9norm", "rms-norm", "a/b"})
    EXPECT_FALSE(catalog.declare(bad, 10)) << bad;
  EXPECT_FALSE(catalog.declare("zero_bytes", 0));
  EXPECT_EQ(catalog.find_kernel("zero_bytes"), nullptr);
  EXPECT_FALSE(catalog.add(std::make_shared<DeclaredKernel>("ffn", 10)));
  EXPECT_TRUE(catalog.added().empty());
}

TEST(KernelCatalog, ASpecIsReadWhenAddedAndItsReferenceBuiltWhenCalledFor) {
  store::TestTempDir cache;
  KernelCatalog catalog;
  const auto added = catalog.add_spec(kCatalogSpecs / "rmsnorm/rmsnorm.toml", cache.path(), "",
                                      "workspace kernel x");
  ASSERT_TRUE(added) << added.error().message;
  EXPECT_EQ(catalog.find_kernel("rmsnorm"), added.value());
  EXPECT_EQ(added.value()->shape_sets().size(), 2u);
  EXPECT_NE(added.value()->spec(), nullptr);
  // Nothing was compiled yet.
  EXPECT_FALSE(std::filesystem::exists(cache.path() / "references"));
  const auto built = added.value()->build_reference();
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_TRUE(std::filesystem::exists(cache.path() / "references"));
  // A spec that does not read is the error, and nothing is added.
  const auto missing = catalog.add_spec(kCatalogSpecs / "no_such/no_such.toml", cache.path());
  EXPECT_FALSE(missing);
  EXPECT_EQ(catalog.added().size(), 1u);
}

}  // namespace
}  // namespace headway
