#pragma once
// For tests that build with the real compiler in the required sandbox (bwrap must be usable).
#include <gtest/gtest.h>

#include "common/sandbox.h"
#include "targets/cpu/compiler.h"

namespace headway::cpu::testing {

class SandboxedToolchain : public ::testing::Test {
 protected:
  void SetUp() override {
    sandbox::set_mode(sandbox::Mode::kRequired);
    ASSERT_EQ(sandbox::unavailable_reason(), "");
    identity_ = identify(toolchain_);
    ASSERT_TRUE(identity_.found) << identity_.error;
  }
  void TearDown() override { sandbox::set_mode(sandbox::Mode::kRequired); }
  Toolchain toolchain_;
  ToolchainIdentity identity_;
};

}  // namespace headway::cpu::testing
