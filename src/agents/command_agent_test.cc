// The command agent with real shell commands and real processes.
#include "agents/command_agent.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "store/test_temp_dir.h"

namespace headway::agents {
namespace {

namespace fs = std::filesystem;
using store::TestTempDir;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The kind of the AgentError that `call` throws; fails the test when it throws nothing.
template <class F>
AgentError caught(F&& call) {
  try {
    call();
  } catch (const AgentError& e) {
    return e;
  }
  ADD_FAILURE() << "no AgentError";
  return AgentError(AgentError::Kind::kAuth, "none");
}

bool dir_is_empty(const fs::path& dir) {
  return fs::directory_iterator(dir) == fs::directory_iterator();
}

// True when no live process has the pid (it is gone, or a zombie no one has reaped yet).
bool process_dead(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

class CommandAgentTest : public ::testing::Test {
 protected:
  CommandAgent agent(const std::string& command, double timeout = 20.0) {
    CommandAgentOptions options;
    options.command = command;
    options.scratch_parent = scratch_.path();
    options.timeout_seconds = timeout;
    return CommandAgent(options);
  }
  TestTempDir scratch_;  // the agents' scratch parent
  TestTempDir outside_;  // for what a command leaves behind on purpose
};

TEST_F(CommandAgentTest, ReportsTheFilesItEditedAndNotTheOthers) {
  AgentRequest request;
  request.role = "porter";
  request.prompt = "rename";
  request.files = {{"src/kernel.cc", "int old_name = 1;\n"}, {"notes.txt", "unchanged\n"}};
  AgentReply reply =
      agent("sed -i 's/old_name/new_name/' src/kernel.cc && echo created > new.txt && echo done")
          .complete(request);
  EXPECT_EQ(reply.text, "done\n");
  ASSERT_EQ(reply.files.size(), 1u);
  EXPECT_EQ(reply.files.at("src/kernel.cc"), "int new_name = 1;\n");
  EXPECT_FALSE(reply.truncated);
  EXPECT_GT(reply.latency_s, 0.0) << "it ran a shell";
  EXPECT_TRUE(dir_is_empty(scratch_.path())) << "scratch and prompt directories are removed";
}

TEST_F(CommandAgentTest, StdoutIsTheAnswer) {
  AgentRequest request;
  request.role = "designer";
  request.prompt = "write it";
  CommandAgent a = agent("printf 'Here:\\n```cpp\\nint f();\\n```\\n'");
  AgentReply reply = a.complete(request);
  EXPECT_EQ(reply.text, "Here:\n```cpp\nint f();\n```\n");
  EXPECT_TRUE(reply.files.empty());
  EXPECT_EQ(reply.model, a.model());
  EXPECT_EQ(a.provider(), "cmd");
}

TEST_F(CommandAgentTest, NonZeroExitIsACommandErrorWithStderr) {
  AgentRequest request;
  request.prompt = "x";
  AgentError e =
      caught([&] { agent("echo out; echo 'model overloaded' >&2; exit 3").complete(request); });
  EXPECT_EQ(e.kind(), AgentError::Kind::kCommand);
  EXPECT_NE(std::string(e.what()).find("exited with code 3"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("model overloaded"), std::string::npos) << e.what();
  EXPECT_TRUE(dir_is_empty(scratch_.path()));
}

TEST_F(CommandAgentTest, AMissingProgramIsACommandError) {
  AgentRequest request;
  AgentError e = caught([&] { agent("no-such-program-headway-test").complete(request); });
  EXPECT_EQ(e.kind(), AgentError::Kind::kCommand);
  EXPECT_NE(std::string(e.what()).find("127"), std::string::npos) << e.what();
}

TEST_F(CommandAgentTest, TheTimeLimitKillsTheCommandAndWhatItStarted) {
  const fs::path pid_file = outside_.path() / "child.pid";
  const fs::path late_file = outside_.path() / "late";
  AgentRequest request;
  const auto start = std::chrono::steady_clock::now();
  AgentError e = caught([&] {
    agent("(sleep 2; touch '" + late_file.string() + "') & echo $! > '" + pid_file.string() +
              "'; sleep 30",
          0.3)
        .complete(request);
  });
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(e.kind(), AgentError::Kind::kTimeout);
  EXPECT_LT(took, 5.0);
  const std::string child = slurp(pid_file);
  ASSERT_FALSE(child.empty());
  const std::string pid = child.substr(0, child.find('\n'));
  for (int i = 0; i < 200 && !process_dead(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(process_dead(pid)) << "the background child " << pid << " still runs";
  EXPECT_FALSE(fs::exists(late_file));
  EXPECT_TRUE(dir_is_empty(scratch_.path()));
}

TEST_F(CommandAgentTest, RejectsPathsOutsideTheScratchDirectory) {
  const fs::path marker = outside_.path() / "ran";
  CommandAgent a = agent("touch '" + marker.string() + "'");
  for (const std::string bad : {"../escape.cc", "a/../../b.cc", "/etc/passwd", "", "dir/", "."}) {
    AgentRequest request;
    request.files = {{bad, "x"}};
    AgentError e = caught([&] { a.complete(request); });
    EXPECT_EQ(e.kind(), AgentError::Kind::kBadRequest) << bad;
  }
  EXPECT_FALSE(fs::exists(marker)) << "the command never ran";
  EXPECT_TRUE(dir_is_empty(scratch_.path()));
}

TEST_F(CommandAgentTest, ThePromptIsOnStdinAndInTheFile) {
  // The command copies stdin and the prompt file into request files, which it then "edited".
  AgentRequest request;
  request.role = "variant";
  request.system = "You are terse.";
  request.prompt = "Make it faster.\nPlease.";
  request.files = {{"stdin.txt", ""}, {"file.txt", ""}, {"role.txt", ""}};
  AgentReply reply =
      agent(
          "cat > stdin.txt; cat \"$HEADWAY_PROMPT_FILE\" > file.txt; "
          "printf %s \"$HEADWAY_ROLE\" > role.txt; dirname \"$HEADWAY_PROMPT_FILE\"; pwd")
          .complete(request);
  const std::string expected = "You are terse.\n\nMake it faster.\nPlease.";
  EXPECT_EQ(reply.files.at("stdin.txt"), expected);
  EXPECT_EQ(reply.files.at("file.txt"), expected);
  EXPECT_EQ(reply.files.at("role.txt"), "variant");
  // The prompt file is outside the scratch directory (the command's working directory).
  std::istringstream lines(reply.text);
  std::string prompt_dir, cwd;
  std::getline(lines, prompt_dir);
  std::getline(lines, cwd);
  EXPECT_EQ(fs::path(prompt_dir).parent_path(), scratch_.path());
  EXPECT_EQ(fs::path(cwd).parent_path(), scratch_.path());
  EXPECT_NE(prompt_dir, cwd);
  EXPECT_TRUE(dir_is_empty(scratch_.path()));
}

TEST_F(CommandAgentTest, WithoutASystemPromptStdinIsThePromptAlone) {
  AgentRequest request;
  request.prompt = "just this";
  EXPECT_EQ(agent("cat").complete(request).text, "just this");
}

TEST_F(CommandAgentTest, TheRestOfTheEnvironmentIsInherited) {
  ASSERT_EQ(setenv("HEADWAY_COMMAND_AGENT_TEST", "inherited", 1), 0);
  AgentRequest request;
  request.role = "judge";
  EXPECT_EQ(agent("printf '%s %s' \"$HEADWAY_COMMAND_AGENT_TEST\" \"$HEADWAY_ROLE\"")
                .complete(request)
                .text,
            "inherited judge");
  unsetenv("HEADWAY_COMMAND_AGENT_TEST");
}

TEST_F(CommandAgentTest, ADeletedRequestFileIsMalformed) {
  AgentRequest request;
  request.files = {{"kernel.cc", "int x;\n"}};
  AgentError e = caught([&] { agent("rm kernel.cc").complete(request); });
  EXPECT_EQ(e.kind(), AgentError::Kind::kMalformed);
  EXPECT_NE(std::string(e.what()).find("kernel.cc"), std::string::npos) << e.what();
}

TEST_F(CommandAgentTest, RemovesDirectoriesTheCommandMadeUnwritable) {
  agent(
      "mkdir -p locked/inner && touch locked/inner/f && chmod 0 locked/inner && chmod 0500 locked")
      .complete(AgentRequest{});
  EXPECT_TRUE(dir_is_empty(scratch_.path()));
}

TEST_F(CommandAgentTest, LongOutputIsCutAndSaysSo) {
  CommandAgentOptions options;
  options.command = "head -c 100000 /dev/zero | tr '\\0' a";
  options.scratch_parent = scratch_.path();
  options.stdout_limit = 1000;
  AgentReply reply = CommandAgent(options).complete(AgentRequest{});
  EXPECT_EQ(reply.text, std::string(1000, 'a'));
  EXPECT_TRUE(reply.truncated);
}

TEST_F(CommandAgentTest, ConcurrentRequestsGetTheirOwnScratchDirectories) {
  CommandAgent a = agent("sed -i \"s/x/$HEADWAY_ROLE/\" f.txt");
  std::vector<std::thread> threads;
  std::vector<std::string> got(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      AgentRequest request;
      request.role = "r" + std::to_string(i);
      request.files = {{"f.txt", "x"}};
      got[i] = a.complete(request).files.at("f.txt");
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], "r" + std::to_string(i));
  EXPECT_TRUE(dir_is_empty(scratch_.path()));
}

}  // namespace
}  // namespace headway::agents
