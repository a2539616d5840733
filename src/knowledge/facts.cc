#include "knowledge/facts.h"

#include <fmt/format.h>

#include <stdexcept>

#include "store/transaction.h"

namespace headway::knowledge {

namespace {

Fact read_row(const store::Statement& s) {
  Fact f;
  f.name = s.text(0);
  f.toolchain = s.text(1);
  f.value = s.real(2);
  f.unit = s.text(3);
  f.spread = s.optional_real(4);
  f.method = s.text(5);
  f.measured_at = s.text(6);
  return f;
}

constexpr const char* kColumns = "name, toolchain, value, unit, spread, method, measured_at";

}  // namespace

void store_fact(store::Workspace& ws, const Fact& fact) {
  if (fact.name.empty() || fact.toolchain.empty()) {
    throw std::invalid_argument("a fact needs a name and a toolchain");
  }
  auto s = ws.db().prepare(
      "INSERT OR REPLACE INTO facts(name, toolchain, value, unit, spread, method, measured_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
      "COALESCE(NULLIF(?7, ''), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))");
  s.bind(1, fact.name).bind(2, fact.toolchain).bind(3, fact.value).bind(4, fact.unit);
  s.bind(5, fact.spread).bind(6, fact.method).bind(7, fact.measured_at);
  s.run();
}

std::vector<Fact> list_facts(store::Workspace& ws, std::optional<std::string_view> toolchain) {
  std::vector<Fact> out;
  auto s = ws.db().prepare(fmt::format(
      "SELECT {} FROM facts WHERE ?1 IS NULL OR toolchain = ?1 ORDER BY toolchain, name", kColumns));
  if (toolchain) s.bind(1, *toolchain); else s.bind(1, std::nullopt);
  while (s.step()) out.push_back(read_row(s));
  return out;
}

std::optional<Fact> find_fact(store::Workspace& ws, std::string_view name, std::string_view toolchain) {
  auto s = ws.db().prepare(
      fmt::format("SELECT {} FROM facts WHERE name = ?1 AND toolchain = ?2", kColumns));
  s.bind(1, name).bind(2, toolchain);
  if (!s.step()) return std::nullopt;
  return read_row(s);
}

std::vector<Fact> measure_and_store_facts(store::Workspace& ws, targets::Target& target,
                                          std::string_view toolchain,
                                          const targets::FactOptions& options) {
  const std::vector<targets::ChipFact> measured = target.measure_facts(options);
  store::Transaction txn(ws.db());
  for (const auto& f : measured) {
    store_fact(ws, {f.name, std::string(toolchain), f.value, f.unit, f.spread, f.method, ""});
  }
  txn.commit();
  return list_facts(ws, toolchain);
}

}  // namespace headway::knowledge
