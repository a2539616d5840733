#include "kernels/draw_range.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace headway {

namespace {

std::string range_text(ElementType type) {
  const ElementRange r = element_range(type);
  return fmt::format("{}'s range {} to {}", element_type_name(type), r.lowest, r.highest);
}

bool within(double v, const ElementRange& range) { return v >= range.lowest && v <= range.highest; }

bool is_integer(double v) { return std::isfinite(v) && std::floor(v) == v; }

}  // namespace

std::string draw_text(const Draw& draw) {
  switch (draw.kind) {
    case Draw::Kind::kNormal:
      return fmt::format("normal = {}", draw.a);
    case Draw::Kind::kUniform:
      return fmt::format("uniform = [{}, {}]", draw.a, draw.b);
    case Draw::Kind::kBelow:
      return draw.below_dim.empty() ? fmt::format("below = {}", draw.below_count)
                                    : fmt::format("below = \"{}\"", draw.below_dim);
    case Draw::Kind::kConstant:
      return fmt::format("constant = {}", draw.a);
    case Draw::Kind::kCodes:
      return "codes = true";
  }
  return "?";
}

Result<void> check_draw_range(const KernelSpec& spec, size_t a) {
  const SpecArgument& arg = spec.arguments[a];
  if (arg.role == ArgumentRole::kOutput) return {};
  const Draw& d = arg.draw;
  const ElementRange range = element_range(arg.type);
  const bool integers = !is_floating(arg.type);
  auto refuse = [&](const std::string& why) -> Result<void> {
    return invalid_input(fmt::format("argument '{}': {} {}", arg.name, draw_text(d), why));
  };
  switch (d.kind) {
    case Draw::Kind::kNormal:
    case Draw::Kind::kCodes:
      return {};
    case Draw::Kind::kConstant:
      if (integers && !is_integer(d.a)) {
        return refuse(fmt::format("is not an integer: {} holds the integers {} to {}",
                                  element_type_name(arg.type), range.lowest, range.highest));
      }
      if (!within(d.a, range)) return refuse("is outside " + range_text(arg.type));
      return {};
    case Draw::Kind::kUniform:
      for (const double bound : {d.a, d.b}) {
        if (integers && !is_integer(bound)) {
          return refuse(fmt::format("has {}, not an integer: {} holds the integers {} to {}", bound,
                                    element_type_name(arg.type), range.lowest, range.highest));
        }
        if (!within(bound, range))
          return refuse(fmt::format("reaches {}, outside {}", bound, range_text(arg.type)));
      }
      return {};
    case Draw::Kind::kBelow: {
      if (d.below_dim.empty()) {
        const int64_t top = d.below_count - 1;
        if (static_cast<double>(top) > range.highest)
          return refuse(fmt::format("draws up to {}, outside {}", top, range_text(arg.type)));
        return {};
      }
      const auto dim = static_cast<size_t>(
          std::find(spec.dims.begin(), spec.dims.end(), d.below_dim) - spec.dims.begin());
      for (const ShapeSet& shape : spec.shapes) {
        const int64_t top = shape.dims[dim] - 1;
        if (static_cast<double>(top) > range.highest) {
          return refuse(fmt::format("draws up to {} at shape set '{}' ({} = {}), outside {}", top,
                                    shape.name, d.below_dim, shape.dims[dim],
                                    range_text(arg.type)));
        }
      }
      return {};
    }
  }
  return {};
}

}  // namespace headway
