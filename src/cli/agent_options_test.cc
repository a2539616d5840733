// How an agent's failure stops a verb: its kind decides whose problem it is.
#include "cli/agent_options.h"

#include <gtest/gtest.h>

#include "cli/cli_support.h"

namespace headway::cli {
namespace {

ErrorCode code_for(agents::AgentError::Kind kind) {
  AgentArgs args;
  args.spec = "openai:test-model";
  try {
    fail_with_agent_error(args, agents::AgentError(kind, "what happened"));
  } catch (const VerbError& e) {
    EXPECT_STREQ(e.what(), (std::string("agent openai:test-model: ") + agents::to_string(kind) +
                            ": what happened")
                               .c_str());
    return e.code();
  }
  ADD_FAILURE() << "no VerbError";
  return ErrorCode::kDatabase;
}

TEST(AgentFailure, AKeyOrModelIsTheUsersTheRestIsTheEnvironments) {
  using Kind = agents::AgentError::Kind;
  EXPECT_EQ(code_for(Kind::kAuth), ErrorCode::kInvalidInput);
  EXPECT_EQ(code_for(Kind::kUnknownModel), ErrorCode::kInvalidInput);
  for (Kind kind :
       {Kind::kBadRequest, Kind::kTimeout, Kind::kTransient, Kind::kMalformed, Kind::kCommand}) {
    EXPECT_EQ(code_for(kind), ErrorCode::kEnvironment) << agents::to_string(kind);
  }
}

}  // namespace
}  // namespace headway::cli
