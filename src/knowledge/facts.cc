#include "knowledge/facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <stdexcept>

#include "store/transaction.h"

namespace headway::knowledge {

namespace {

Fact read_row(const store::Statement& s) {
  Fact f;
  f.name = s.text(0);
  f.toolchain = s.text(1);
  f.device_model = s.text(2);
  f.value = s.real(3);
  f.unit = s.text(4);
  f.spread = s.optional_real(5);
  f.method = s.text(6);
  f.measured_at = s.text(7);
  return f;
}

constexpr const char* kColumns =
    "name, toolchain, device_model, value, unit, spread, method, measured_at";

}  // namespace

void store_fact(store::Workspace& ws, const Fact& fact) {
  if (fact.name.empty() || fact.toolchain.empty()) {
    throw std::invalid_argument("a fact needs a name and a toolchain");
  }
  auto s = ws.db().prepare(
      "INSERT OR REPLACE INTO facts(name, toolchain, device_model, value, unit, spread, method, "
      "measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
      "COALESCE(NULLIF(?8, ''), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))");
  s.bind(1, fact.name).bind(2, fact.toolchain).bind(3, fact.device_model).bind(4, fact.value);
  s.bind(5, fact.unit).bind(6, fact.spread).bind(7, fact.method).bind(8, fact.measured_at);
  s.run();
}

std::vector<Fact> list_facts(store::Workspace& ws, std::optional<std::string_view> toolchain) {
  std::vector<Fact> out;
  auto s =
      ws.db().prepare(fmt::format("SELECT {} FROM facts WHERE ?1 IS NULL OR toolchain = ?1 ORDER "
                                  "BY toolchain, device_model, name",
                                  kColumns));
  if (toolchain)
    s.bind(1, *toolchain);
  else
    s.bind(1, std::nullopt);
  while (s.step()) out.push_back(read_row(s));
  return out;
}

std::optional<Fact> find_fact(store::Workspace& ws, std::string_view name,
                              std::string_view toolchain, std::optional<std::string_view> model) {
  // The model's own first, then the unknown model's, then (without a model) any other's.
  auto s = ws.db().prepare(
      fmt::format("SELECT {} FROM facts WHERE name = ?1 AND toolchain = ?2 AND "
                  "(?3 IS NULL OR device_model = ?3 OR device_model = '') "
                  "ORDER BY device_model = ?3 DESC, device_model = '' DESC, device_model LIMIT 1",
                  kColumns));
  s.bind(1, name).bind(2, toolchain);
  if (model)
    s.bind(3, *model);
  else
    s.bind(3, std::nullopt);
  if (!s.step()) return std::nullopt;
  return read_row(s);
}

std::string models_text(const std::vector<std::string>& models) {
  std::string out;
  for (size_t i = 0; i < models.size(); ++i) {
    if (i) out += i + 1 == models.size() ? " and " : ", ";
    out += models[i].empty() ? "(unnamed)" : "'" + models[i] + "'";
  }
  return out.empty() ? "none" : out;
}

std::vector<std::string> fact_models(store::Workspace& ws, std::string_view toolchain) {
  std::vector<std::string> out;
  auto s = ws.db().prepare(
      "SELECT DISTINCT device_model FROM facts WHERE toolchain = ?1 ORDER BY device_model");
  s.bind(1, toolchain);
  while (s.step()) out.push_back(s.text(0));
  return out;
}

std::vector<Fact> measure_and_store_facts(store::Workspace& ws, targets::Target& target,
                                          std::string_view toolchain,
                                          const targets::FactOptions& options) {
  const std::vector<std::string> present = target.device_models();
  std::vector<std::string> models = present;
  if (!options.model.empty()) {
    if (std::find(present.begin(), present.end(), options.model) == present.end()) {
      throw std::invalid_argument(
          fmt::format("no device of model '{}' to measure chip facts on: the {} target's devices "
                      "are of {}",
                      options.model, target.name(), models_text(present)));
    }
    models = {options.model};
  }
  // One measurement per model, at once where there are several (a pool's devices).
  std::vector<std::future<std::vector<targets::ChipFact>>> running;
  for (const auto& model : models) {
    targets::FactOptions pinned = options;
    pinned.model = model;
    running.push_back(std::async(models.size() > 1 ? std::launch::async : std::launch::deferred,
                                 [&target, pinned] { return target.measure_facts(pinned); }));
  }
  std::vector<std::vector<targets::ChipFact>> measured;
  for (auto& r : running) measured.push_back(r.get());
  store::Transaction txn(ws.db());
  // A model's fact replaces the one of the unknown model (the workspace's one device before).
  auto forget =
      ws.db().prepare("DELETE FROM facts WHERE name = ?1 AND toolchain = ?2 AND device_model = ''");
  for (size_t m = 0; m < models.size(); ++m) {
    for (const auto& f : measured[m]) {
      if (!models[m].empty()) {
        forget.reset();
        forget.bind(1, f.name).bind(2, toolchain);
        forget.run();
      }
      store_fact(
          ws, {f.name, std::string(toolchain), f.value, f.unit, f.spread, f.method, "", models[m]});
    }
  }
  txn.commit();
  return list_facts(ws, toolchain);
}

}  // namespace headway::knowledge
