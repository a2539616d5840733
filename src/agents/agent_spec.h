#pragma once
// The --agent option: which agent a run uses, from one string.
//   openai:MODEL     an OpenAI-compatible chat-completions API (key: OPENAI_API_KEY; any
//                    server that speaks the protocol through --agent-base-url)
//   anthropic:MODEL  the Anthropic messages API (key: ANTHROPIC_API_KEY)
//   cmd:COMMAND      a coding-agent CLI run with /bin/sh -c (agents/command_agent.h)
//   replay:FILE      answers from a recorded transcript (agents/replay_agent.h)
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "agents/agent.h"

namespace headway::agents {

struct AgentSpecOptions {
  std::string base_url;        // openai and anthropic only; empty: the provider's default
  double timeout_seconds = 0;  // per attempt (http) or per run (cmd); <= 0: the agent's default
  // Non-empty: every answer and failure is also appended to this transcript, which replay:FILE
  // plays back.
  std::filesystem::path record;
};

// Throws std::invalid_argument with a message that lists the forms above for a spec of none of
// them (an empty model, command or file included), and for --agent-base-url given to an agent
// that does not use it; std::runtime_error when a replay transcript cannot be read.
std::unique_ptr<Agent> make_agent(const std::string& spec, const AgentSpecOptions& options = {});

// Appends every answer and failure of the agent it wraps to a transcript (ReplayAgent's format).
class RecordingAgent final : public Agent {
 public:
  RecordingAgent(std::unique_ptr<Agent> inner, std::filesystem::path transcript)
      : inner_(std::move(inner)), transcript_(std::move(transcript)) {}
  std::string provider() const override { return inner_->provider(); }
  std::string model() const override { return inner_->model(); }
  AgentReply complete(const AgentRequest& request) override;

 private:
  std::unique_ptr<Agent> inner_;
  std::filesystem::path transcript_;
};

}  // namespace headway::agents
