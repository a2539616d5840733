#pragma once
// Where readings go as they are taken: memory, a JSON-lines file, or both.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "statistics/reading.h"

namespace headway::statistics {

class ReadingSink {
 public:
  virtual ~ReadingSink();
  // Stores one reading; readings arrive in the order they were taken.
  virtual void record(const Reading& reading) = 0;
};

class MemorySink final : public ReadingSink {
 public:
  void record(const Reading& reading) override;
  const std::vector<Reading>& readings() const { return readings_; }
  void clear() { readings_.clear(); }

 private:
  std::vector<Reading> readings_;
};

// One JSON object (to_json(Reading)) per line, flushed after each line so that a crash loses at
// most the reading being written.
class JsonLinesSink final : public ReadingSink {
 public:
  // Creates or truncates `path` (append = false) or appends to it; an error when it cannot be
  // opened.
  static Result<std::unique_ptr<JsonLinesSink>> open(const std::string& path, bool append = false);
  void record(const Reading& reading) override;

 private:
  explicit JsonLinesSink(std::ofstream out) : out_(std::move(out)) {}
  std::ofstream out_;
};

// Forwards every reading to each of its sinks, none of which it owns; null sinks are skipped.
class TeeSink final : public ReadingSink {
 public:
  explicit TeeSink(std::vector<ReadingSink*> sinks) : sinks_(std::move(sinks)) {}
  void record(const Reading& reading) override;

 private:
  std::vector<ReadingSink*> sinks_;
};

// Reads a file written by JsonLinesSink; blank lines are skipped; an error names the line.
Result<std::vector<Reading>> read_json_lines(const std::string& path);

}  // namespace headway::statistics
