#include "targets/cpu/host_abi.h"

#include <gtest/gtest.h>

namespace headway::cpu {
namespace {

TEST(HostAbi, EveryKernelHasOne) {
  for (const auto& name : builtin_kernel_names()) {
    const HostAbi& abi = host_abi(*builtin_kernel(name));
    EXPECT_EQ(abi.entry_symbol, "hw_" + name);
    EXPECT_NE(abi.invoke, nullptr);
    EXPECT_NE(abi.baseline_source().find(std::string(abi.entry_symbol)), std::string_view::npos)
        << name;
  }
}

}  // namespace
}  // namespace headway::cpu
