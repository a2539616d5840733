#include "agents/replay_agent.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "common/file_io.h"

namespace headway::agents {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::array kKinds = {
    AgentError::Kind::kAuth,    AgentError::Kind::kUnknownModel, AgentError::Kind::kBadRequest,
    AgentError::Kind::kTimeout, AgentError::Kind::kTransient,    AgentError::Kind::kMalformed,
    AgentError::Kind::kCommand,
};

std::optional<AgentError::Kind> parse_kind(const std::string& text) {
  for (AgentError::Kind kind : kKinds) {
    if (text == to_string(kind)) return kind;
  }
  return std::nullopt;
}

// Reads one transcript line's object into an entry; throws std::runtime_error (without the
// location, which the caller adds).
struct LineEntry {
  std::string role;
  AgentReply reply;
  std::optional<AgentError> error;
};

LineEntry parse_entry(const std::string& line) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("not JSON: {}", e.what()));
  }
  if (!j.is_object()) throw std::runtime_error("not a JSON object");
  auto field = [&](const char* name, bool (json::*is)() const, const char* type) -> const json* {
    auto it = j.find(name);
    if (it == j.end()) return nullptr;
    if (!((*it).*is)()) throw std::runtime_error(fmt::format("\"{}\" is not {}", name, type));
    return &*it;
  };
  LineEntry entry;
  const json* role = field("role", &json::is_string, "a string");
  if (role == nullptr) throw std::runtime_error("no \"role\"");
  entry.role = role->get<std::string>();
  if (const json* error = field("error", &json::is_string, "a string")) {
    const std::string kind = error->get<std::string>();
    const auto parsed = parse_kind(kind);
    if (!parsed) throw std::runtime_error(fmt::format("unknown error kind \"{}\"", kind));
    const json* message = field("message", &json::is_string, "a string");
    entry.error.emplace(
        *parsed, message ? message->get<std::string>() : fmt::format("replayed {} error", kind));
    return entry;
  }
  const json* response = field("response", &json::is_string, "a string");
  if (response == nullptr) throw std::runtime_error("no \"response\" (and no \"error\")");
  AgentReply& reply = entry.reply;
  reply.text = response->get<std::string>();
  if (const json* files = field("files", &json::is_object, "an object")) {
    for (const auto& [path, bytes] : files->items()) {
      if (!bytes.is_string()) {
        throw std::runtime_error(fmt::format("file \"{}\" is not a string", path));
      }
      reply.files.emplace(path, bytes.get<std::string>());
    }
  }
  if (const json* model = field("model", &json::is_string, "a string")) {
    reply.model = model->get<std::string>();
  }
  auto count = [&](const char* name, int64_t min) -> std::optional<int64_t> {
    const json* n = field(name, &json::is_number_integer, "an integer");
    if (n == nullptr) return std::nullopt;
    const auto value = n->get<int64_t>();
    if (value < min) throw std::runtime_error(fmt::format("\"{}\" is below {}", name, min));
    return value;
  };
  reply.input_tokens = count("input_tokens", 0).value_or(0);
  reply.output_tokens = count("output_tokens", 0).value_or(0);
  reply.attempts = static_cast<int>(count("attempts", 1).value_or(1));
  if (const json* latency = field("latency_s", &json::is_number, "a number")) {
    reply.latency_s = latency->get<double>();
    if (reply.latency_s < 0) throw std::runtime_error("\"latency_s\" is negative");
  }
  if (const json* truncated = field("truncated", &json::is_boolean, "a boolean")) {
    reply.truncated = truncated->get<bool>();
  }
  return entry;
}

void append_line(const fs::path& path, const json& entry) {
  static std::mutex mutex;
  const std::string line = entry.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  const std::lock_guard lock(mutex);
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("cannot open transcript {}: {}", path.string(), std::strerror(errno)));
  }
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      throw std::runtime_error(
          fmt::format("cannot write transcript {}: {}", path.string(), std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    throw std::runtime_error(
        fmt::format("cannot write transcript {}: {}", path.string(), std::strerror(errno)));
  }
}

}  // namespace

std::string ordinal(size_t n) {
  const size_t last_two = n % 100;
  const char* suffix = "th";
  if (last_two < 11 || last_two > 13) {
    switch (n % 10) {
      case 1:
        suffix = "st";
        break;
      case 2:
        suffix = "nd";
        break;
      case 3:
        suffix = "rd";
        break;
      default:
        break;
    }
  }
  return std::to_string(n) + suffix;
}

ReplayAgent::ReplayAgent(const fs::path& transcript) : path_(transcript) {
  const std::optional<std::string> text = read_file(transcript);
  if (!text) throw std::runtime_error("cannot read transcript " + transcript.string());
  std::istringstream in(*text);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      LineEntry entry = parse_entry(line);
      entries_[entry.role].push_back(Entry{std::move(entry.reply), std::move(entry.error)});
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(fmt::format("{}:{}: {}", transcript.string(), number, e.what()));
    }
  }
  if (in.bad()) throw std::runtime_error("cannot read transcript " + transcript.string());
}

size_t ReplayAgent::remaining(const std::string& role) const {
  const std::lock_guard lock(mutex_);
  const auto entries = entries_.find(role);
  if (entries == entries_.end()) return 0;
  const auto next = next_.find(role);
  return entries->second.size() - (next == next_.end() ? 0 : next->second);
}

AgentReply ReplayAgent::complete(const AgentRequest& request) {
  const Entry* entry = nullptr;
  size_t held = 0, index = 0;
  {
    const std::lock_guard lock(mutex_);
    const auto entries = entries_.find(request.role);
    held = entries == entries_.end() ? 0 : entries->second.size();
    index = next_[request.role];
    if (index < held) {
      entry = &entries->second[index];
      ++next_[request.role];
    }
  }
  if (entry == nullptr) {
    throw AgentError(AgentError::Kind::kBadRequest,
                     fmt::format("the transcript {} has no {} answer for role {} (it holds {})",
                                 path_.string(), ordinal(index + 1), request.role, held));
  }
  if (entry->error) throw *entry->error;
  return entry->reply;
}

void append_transcript_entry(const fs::path& path, const std::string& role,
                             const AgentReply& reply) {
  json entry = {{"role", role},
                {"response", reply.text},
                {"model", reply.model},
                {"input_tokens", reply.input_tokens},
                {"output_tokens", reply.output_tokens},
                {"latency_s", reply.latency_s},
                {"attempts", reply.attempts},
                {"truncated", reply.truncated}};
  if (!reply.files.empty()) entry["files"] = reply.files;
  append_line(path, entry);
}

void append_transcript_error(const fs::path& path, const std::string& role,
                             const AgentError& error) {
  append_line(path,
              {{"role", role}, {"error", to_string(error.kind())}, {"message", error.what()}});
}

}  // namespace headway::agents
