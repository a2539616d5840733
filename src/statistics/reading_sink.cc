#include "statistics/reading_sink.h"

#include <fmt/format.h>

namespace headway::statistics {

ReadingSink::~ReadingSink() = default;

void MemorySink::record(const Reading& reading) { readings_.push_back(reading); }

Result<std::unique_ptr<JsonLinesSink>> JsonLinesSink::open(const std::string& path, bool append) {
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  if (!out) return environment_error(fmt::format("cannot open '{}' for writing", path));
  return std::unique_ptr<JsonLinesSink>(new JsonLinesSink(std::move(out)));
}

void JsonLinesSink::record(const Reading& reading) {
  out_ << to_json(reading).dump() << '\n';
  out_.flush();
}

void TeeSink::record(const Reading& reading) {
  for (ReadingSink* sink : sinks_) {
    if (sink != nullptr) sink->record(reading);
  }
}

Result<std::vector<Reading>> read_json_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) return environment_error(fmt::format("cannot open '{}'", path));
  std::vector<Reading> readings;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return invalid_input(fmt::format("{}:{}: not JSON", path, line_number));
    auto reading = reading_from_json(j);
    if (!reading.ok()) {
      return Error{reading.error().code,
                   fmt::format("{}:{}: {}", path, line_number, reading.error().message)};
    }
    readings.push_back(std::move(reading).value());
  }
  return readings;
}

}  // namespace headway::statistics
