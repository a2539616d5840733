#pragma once
// For tests of the agent roles: transcripts for the replay agent, and nodes to link calls to.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/workspace.h"

namespace headway::agents::testing {

// Writes `entries` as a transcript (replay_agent.h's format) to path and returns path.
inline std::filesystem::path write_transcript(const std::filesystem::path& path,
                                              const std::vector<nlohmann::json>& entries) {
  std::ofstream out(path);
  for (const auto& e : entries) out << e.dump() << "\n";
  return path;
}

// Registers `kernel` with its baseline as node 1 and adds node `id` (a child of it, of `kind` and
// `status`), so that agent calls can be linked to a node.
inline void insert_test_node(store::Workspace& ws, const std::string& kernel, int64_t id,
                             const std::string& kind, const std::string& status) {
  ws.db().exec(
      fmt::format("INSERT INTO kernels(name, target) VALUES ('{0}', 'cpu');"
                  "INSERT INTO nodes(id, kernel, kind, source_hash, status) VALUES (1, '{0}', "
                  "'baseline', 'h0', 'accepted');"
                  "INSERT INTO nodes(id, kernel, parent_id, kind, source_hash, status) VALUES "
                  "({1}, '{0}', 1, '{2}', 'h{1}', '{3}');",
                  kernel, id, kind, status));
}

}  // namespace headway::agents::testing
