#include "statistics/reading.h"

namespace headway::statistics {

std::string_view to_string(Arm arm) { return arm == Arm::kHead ? "head" : "candidate"; }

std::optional<Arm> parse_arm(std::string_view text) {
  if (text == "head") return Arm::kHead;
  if (text == "candidate") return Arm::kCandidate;
  return std::nullopt;
}

Arm other(Arm arm) { return arm == Arm::kHead ? Arm::kCandidate : Arm::kHead; }

nlohmann::json to_json(const Reading& r) {
  return nlohmann::json{
      {"kernel", r.kernel},     {"node", r.node},         {"test_id", r.test_id},
      {"pair", r.pair_index},   {"position", r.position}, {"arm", std::string(to_string(r.arm))},
      {"start_ns", r.start_ns}, {"seconds", r.seconds},   {"clock", r.clock}};
}

Result<Reading> reading_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return invalid_input("reading is not a JSON object");
  auto need = [&j](const char* key, bool ok) -> std::optional<Error> {
    if (!j.contains(key)) return invalid_input(std::string("reading lacks '") + key + "'");
    if (!ok) return invalid_input(std::string("reading has a mistyped '") + key + "'");
    return std::nullopt;
  };
  auto has = [&j](const char* key) { return j.contains(key); };
  if (auto e = need("kernel", has("kernel") && j["kernel"].is_string())) return *e;
  if (auto e = need("node", has("node") && j["node"].is_string())) return *e;
  if (auto e = need("test_id", has("test_id") && j["test_id"].is_number_integer())) return *e;
  if (auto e = need("pair", has("pair") && j["pair"].is_number_integer())) return *e;
  if (auto e = need("position", has("position") && j["position"].is_number_integer())) return *e;
  if (auto e = need("arm", has("arm") && j["arm"].is_string() &&
                               parse_arm(j["arm"].get<std::string>()).has_value())) {
    return *e;
  }
  if (auto e = need("start_ns", has("start_ns") && j["start_ns"].is_number_integer())) return *e;
  if (auto e = need("seconds", has("seconds") && j["seconds"].is_number())) return *e;
  Reading r;
  r.kernel = j["kernel"].get<std::string>();
  r.node = j["node"].get<std::string>();
  r.test_id = j["test_id"].get<int64_t>();
  r.pair_index = j["pair"].get<int>();
  r.position = j["position"].get<int>();
  r.arm = *parse_arm(j["arm"].get<std::string>());
  r.start_ns = j["start_ns"].get<int64_t>();
  r.seconds = j["seconds"].get<double>();
  if (j.contains("clock")) r.clock = j["clock"];
  return r;
}

}  // namespace headway::statistics
