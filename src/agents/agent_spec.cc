#include "agents/agent_spec.h"

#include <fmt/format.h>

#include "agents/anthropic_provider.h"
#include "agents/command_agent.h"
#include "agents/openai_provider.h"
#include "agents/replay_agent.h"

namespace headway::agents {
namespace {

constexpr const char* kForms =
    "expected openai:MODEL, anthropic:MODEL, cmd:'COMMAND' or replay:FILE";

std::unique_ptr<Agent> make_inner(const std::string& kind, const std::string& rest,
                                  const AgentSpecOptions& options) {
  const bool http = kind == "openai" || kind == "anthropic";
  if (!http && !options.base_url.empty()) {
    throw std::invalid_argument(
        fmt::format("--agent-base-url is for openai: and anthropic: agents, not {}:", kind));
  }
  if (http) {
    ProviderOptions p = options_from_env(
        kind == "openai" ? OpenAiProvider::kIdentity : AnthropicProvider::kIdentity, rest,
        options.base_url);
    if (options.timeout_seconds > 0) p.timeout = Seconds(options.timeout_seconds);
    if (kind == "openai") return std::make_unique<OpenAiProvider>(std::move(p));
    return std::make_unique<AnthropicProvider>(std::move(p));
  }
  if (kind == "cmd") {
    CommandAgentOptions c;
    c.command = rest;
    if (options.timeout_seconds > 0) c.timeout_seconds = options.timeout_seconds;
    return std::make_unique<CommandAgent>(std::move(c));
  }
  if (kind == "replay") return std::make_unique<ReplayAgent>(rest);
  throw std::invalid_argument(fmt::format("unknown agent kind '{}': {}", kind, kForms));
}

}  // namespace

std::unique_ptr<Agent> make_agent(const std::string& spec, const AgentSpecOptions& options) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos || colon == 0) {
    throw std::invalid_argument(fmt::format("--agent '{}': {}", spec, kForms));
  }
  const std::string kind = spec.substr(0, colon);
  const std::string rest = spec.substr(colon + 1);
  if (rest.find_first_not_of(" \t") == std::string::npos) {
    throw std::invalid_argument(fmt::format("--agent '{}' names no {}: {}", spec,
                                            kind == "cmd"      ? "command"
                                            : kind == "replay" ? "file"
                                                               : "model",
                                            kForms));
  }
  auto agent = make_inner(kind, rest, options);
  if (options.record.empty()) return agent;
  return std::make_unique<RecordingAgent>(std::move(agent), options.record);
}

AgentReply RecordingAgent::complete(const AgentRequest& request) {
  try {
    AgentReply reply = inner_->complete(request);
    append_transcript_entry(transcript_, request.role, reply);
    return reply;
  } catch (const AgentError& e) {
    append_transcript_error(transcript_, request.role, e);
    throw;
  }
}

}  // namespace headway::agents
