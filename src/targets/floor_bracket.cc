#include "targets/floor_bracket.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace headway::targets {

namespace {

// The largest difference between each kernel's memory floor from `a` and from `b`, as a share of
// the smaller.
double memory_floors_moved(const Target& target, const std::vector<const KernelContract*>& kernels,
                           const FloorFacts& a, const FloorFacts& b) {
  double moved = 0.0;
  for (const KernelContract* k : kernels) {
    const double x = target.floors(*k, a.values).memory_ms;
    const double y = target.floors(*k, b.values).memory_ms;
    moved = std::max(moved, std::abs(x - y) / std::min(x, y));
  }
  return moved;
}

// The facts of `before` with each value the larger of it and its value in `after`: floor facts
// are rates, and the faster spell the chip showed around a timing gives the floor no reading in
// it can beat.
FloorFacts faster_of(const FloorFacts& before, const FloorFacts& after) {
  FloorFacts out = before;
  for (ChipFact& f : out.measured) {
    const auto later = after.values.find(f.name);
    if (later == after.values.end()) continue;
    const double first = f.value;
    f.value = out.values[f.name] = std::max(first, later->second);
    out.repeats[f.name] = {first, later->second};
    f.method += fmt::format(
        "; the larger of its measurements just before ({:.4g}) and just after ({:.4g}) the "
        "timing",
        first, later->second);
  }
  return out;
}

}  // namespace

std::string BracketedFloor::text(const std::vector<std::string>& names) const {
  std::string text;
  for (const ChipFact& f : facts.measured) {
    if (std::find(names.begin(), names.end(), f.name) == names.end()) continue;
    text += fmt::format("{}{} {:.4g} {}", text.empty() ? "" : "; ", f.name, f.value, f.unit);
    const std::vector<double>& each = facts.repeats.at(f.name);
    if (each.size() == 2) text += fmt::format(" ({:.4g} before, {:.4g} after)", each[0], each[1]);
  }
  return text;
}

std::string BracketedFloor::movement() const {
  if (!held) {
    return fmt::format("the floor moved by {:.0f}% during the readings {}", 100 * moved,
                       moved_timings == timings
                           ? fmt::format("in each of {} timings", timings)
                           : fmt::format("of the last of {} timings", timings));
  }
  if (beaten) {
    return beaten_timings == timings
               ? fmt::format("the readings beat the floor in each of {} timings", timings)
               : fmt::format("the readings of the last of {} timings beat the floor", timings);
  }
  if (timings == 1) return "";
  const char* why = moved_timings == 0    ? "the readings having beaten the floor"
                    : beaten_timings == 0 ? "the floor having moved"
                                          : "the floor having moved or been beaten by the readings";
  return fmt::format("timed {} times, {} during the earlier ones", timings, why);
}

FloorBracket::FloorBracket(Target& target, FloorBracketOptions options)
    : target_(target), options_(options) {}

Result<FloorFacts> FloorBracket::measure() {
  return measure_floor_facts(target_, options_.facts, options_.readings);
}

Result<BracketedFloor> FloorBracket::around(const std::vector<const KernelContract*>& kernels,
                                            const std::function<bool()>& timing,
                                            const std::function<bool(const FloorFacts&)>& beaten) {
  if (!last_) {
    auto first = measure();
    if (!first) return first.error();
    last_ = std::move(first).value();
  }
  BracketedFloor out;
  if (!target_.times_on_host()) {
    timing();
    out.facts = *last_;
    return out;
  }
  out.around = true;
  for (out.timings = 1;; ++out.timings) {
    const FloorFacts before = *last_;
    const bool succeeded = timing();
    auto after = measure();
    if (!after) return after.error();
    last_ = std::move(after).value();
    out.moved = memory_floors_moved(target_, kernels, before, *last_);
    out.held = out.moved <= options_.held_within;
    out.facts = faster_of(before, *last_);
    out.beaten = succeeded && out.held && beaten && beaten(out.facts);
    out.moved_timings += !out.held;
    out.beaten_timings += out.beaten;
    if (!succeeded || (out.held && !out.beaten) || out.timings >= options_.max_timings) return out;
  }
}

}  // namespace headway::targets
