#include "kernels/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/hash.h"

namespace headway {

void poison_outputs(SharedBuffers& buffers, const std::vector<ExpectedOutput>& expected) {
  const auto& specs = buffers.specs();
  for (size_t r = 0; r < specs.size(); ++r) {
    if (specs[r].role != RegionRole::kOutput) continue;
    auto out = buffers.bytes(r);
    fill_poison(specs[r].element, out.data(), out.size() * 8 / element_bits(specs[r].element));
  }
  for (const auto& e : expected) {
    if (specs[e.region].role != RegionRole::kCache) continue;
    const ElementType type = specs[e.region].element;
    fill_poison(type, buffers.bytes(e.region).data() + element_bytes(type, e.first_element),
                e.values.size());
  }
}

Snapshot take_snapshot(const SharedBuffers& buffers) {
  const auto& specs = buffers.specs();
  Snapshot s;
  s.region_hash.resize(specs.size());
  s.row_hashes.resize(specs.size());
  for (size_t r = 0; r < specs.size(); ++r) {
    const auto bytes = buffers.bytes(r);
    if (specs[r].role == RegionRole::kInput) {
      s.region_hash[r] = hash_bytes(bytes.data(), bytes.size());
    } else if (specs[r].role == RegionRole::kCache) {
      for (size_t off = 0; off < bytes.size(); off += specs[r].row_bytes) {
        s.row_hashes[r].push_back(hash_bytes(bytes.data() + off, specs[r].row_bytes));
      }
    }
  }
  return s;
}

const char* to_string(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::kWroteInput:
      return "wrote-input";
    case Violation::Kind::kWroteOutsideRows:
      return "wrote-outside-rows";
    case Violation::Kind::kNotWritten:
      return "not-written";
    case Violation::Kind::kNonFinite:
      return "non-finite";
    case Violation::Kind::kWrongValue:
      return "wrong-value";
    case Violation::Kind::kUnchanged:
      return "unchanged";
  }
  return "wrong-value";
}

std::string Violation::describe() const {
  switch (kind) {
    case Kind::kWroteInput:
      return fmt::format("wrote into input `{}`", region);
    case Kind::kWroteOutsideRows:
      return fmt::format("wrote into `{}` row {}, which the kernel must not touch", region, index);
    case Kind::kNotWritten:
      if (failing == 0) return fmt::format("did not write `{}`[{}]", region, index);
      return fmt::format("did not write `{}`[{}] ({} elements wrong; expected {:.6g})", region,
                         index, failing, expected);
    case Kind::kNonFinite:
      if (failing == 0) return fmt::format("`{}`[{}] is {}", region, index, got);
      return fmt::format("`{}`[{}] is {} ({} elements wrong; expected {:.6g})", region, index, got,
                         failing, expected);
    case Kind::kUnchanged:
      return fmt::format("left `{}` as it was given", region);
    case Kind::kWrongValue:
      return fmt::format("`{}`[{}] = {:.6g}, expected {:.6g}, tolerance {:.3g} ({} elements wrong)",
                         region, index, got, expected, tolerance, failing);
  }
  return "";
}

std::vector<uint64_t> hash_inout_regions(const SharedBuffers& buffers) {
  const auto& specs = buffers.specs();
  std::vector<uint64_t> hashes(specs.size(), 0);
  for (size_t r = 0; r < specs.size(); ++r) {
    if (specs[r].role != RegionRole::kInOut) continue;
    const auto bytes = buffers.bytes(r);
    hashes[r] = hash_bytes(bytes.data(), bytes.size());
  }
  return hashes;
}

std::optional<Violation> screen_writes(const SharedBuffers& buffers,
                                       const std::vector<uint64_t>& given) {
  const auto& specs = buffers.specs();
  for (size_t r = 0; r < specs.size(); ++r) {
    if (specs[r].role != RegionRole::kOutput && specs[r].role != RegionRole::kInOut) continue;
    const auto bytes = buffers.bytes(r);
    if (specs[r].role == RegionRole::kInOut && r < given.size() &&
        hash_bytes(bytes.data(), bytes.size()) == given[r]) {
      return Violation{Violation::Kind::kUnchanged, specs[r].name};
    }
    const ElementType type = specs[r].element;
    // An integer poison is a value a kernel may write; only verify can tell.
    if (!is_floating(type)) continue;
    // Every floating poison is a NaN: the first element not finite is the first flagged.
    const auto at = first_non_finite(type, bytes.data(), bytes.size() * 8 / element_bits(type));
    if (at && is_poison(type, bytes.data(), *at))
      return Violation{Violation::Kind::kNotWritten, specs[r].name, *at};
    if (at) {
      return Violation{Violation::Kind::kNonFinite, specs[r].name, *at,
                       read_element(type, bytes.data(), *at)};
    }
  }
  return std::nullopt;
}

std::optional<Violation> verify(const KernelContract& kernel, const SharedBuffers& buffers,
                                const Snapshot& before,
                                const std::vector<ExpectedOutput>& expected) {
  const auto& specs = buffers.specs();
  for (size_t r = 0; r < specs.size(); ++r) {
    if (specs[r].role != RegionRole::kInput) continue;
    const auto bytes = buffers.bytes(r);
    if (hash_bytes(bytes.data(), bytes.size()) != before.region_hash[r]) {
      return Violation{Violation::Kind::kWroteInput, specs[r].name};
    }
  }
  for (size_t r = 0; r < specs.size(); ++r) {
    if (specs[r].role != RegionRole::kCache) continue;
    const size_t row_elems = specs[r].row_bytes * 8 / element_bits(specs[r].element);
    const auto bytes = buffers.bytes(r);
    for (size_t row = 0; row < before.row_hashes[r].size(); ++row) {
      bool written_row = false;
      for (const auto& e : expected) {
        written_row |= e.region == r && row * row_elems >= e.first_element &&
                       row * row_elems < e.first_element + e.values.size();
      }
      if (written_row) continue;
      const size_t off = row * specs[r].row_bytes;
      if (hash_bytes(bytes.data() + off, specs[r].row_bytes) != before.row_hashes[r][row]) {
        return Violation{Violation::Kind::kWroteOutsideRows, specs[r].name, row};
      }
    }
  }
  return verify_values(kernel, buffers, expected);
}

namespace {

// Bytes of a written region compared at a time by disagreement(), before any is decoded.
constexpr size_t kAgreeChunkBytes = 4096;

// One written element judged against its expected value.
struct Judged {
  Violation as_wrong;  // kWrongValue, with the tolerance allowed there
  bool poison = false;
};

// Calls judge(Judged) for every element of `expected`, in order.
template <class Judge>
void judge_each(const KernelContract& kernel, const SharedBuffers& buffers,
                const std::vector<ExpectedOutput>& expected, Judge judge) {
  const auto& specs = buffers.specs();
  const Tolerance tol = kernel.tolerance();
  for (const auto& e : expected) {
    const ElementType type = specs[e.region].element;
    const std::byte* region = buffers.bytes(e.region).data();
    for (size_t i = 0; i < e.values.size(); ++i) {
      const size_t index = e.first_element + i;
      judge(Judged{{Violation::Kind::kWrongValue, specs[e.region].name, index,
                    read_element(type, region, index), e.values[i],
                    tol.atol + tol.rtol * std::fabs(e.values[i])},
                   is_poison(type, region, index)});
    }
  }
}

}  // namespace

std::optional<Violation> verify_values(const KernelContract& kernel, const SharedBuffers& buffers,
                                       const std::vector<ExpectedOutput>& expected) {
  const Tolerance tol = kernel.tolerance();
  std::optional<Violation> worst;
  double worst_excess = -1.0;
  size_t failing = 0;
  judge_each(kernel, buffers, expected, [&](const Judged& j) {
    Violation v = j.as_wrong;
    if (tol.accepts(v.got, v.expected)) return;
    ++failing;
    double excess = std::fabs(v.got - v.expected) - v.tolerance;
    if (j.poison) {
      v.kind = Violation::Kind::kNotWritten;
      excess = std::numeric_limits<double>::max();
    } else if (!std::isfinite(v.got)) {
      v.kind = Violation::Kind::kNonFinite;
      excess = std::numeric_limits<double>::max();
    }
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = v;
    }
  });
  if (worst) worst->failing = failing;
  return worst;
}

ErrorShare error_share(const KernelContract& kernel, const SharedBuffers& buffers,
                       const std::vector<ExpectedOutput>& expected) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  ErrorShare out;
  judge_each(kernel, buffers, expected, [&](const Judged& j) {
    const Violation& v = j.as_wrong;
    const double error = std::fabs(v.got - v.expected);
    double share = v.tolerance > 0 ? error / v.tolerance : error > 0 ? kInfinity : 0.0;
    if (!std::isfinite(v.got) || j.poison) share = kInfinity;
    if (out.at && !(share > out.share)) return;
    out.share = share;
    out.at = v;
  });
  return out;
}

namespace {

// The first element of region `r` in bytes [from, to) of it where `a` and `b` disagree (as
// disagreement() says), chunk by chunk: bytes alike are values alike, so only the chunks that
// differ are decoded.
std::optional<Violation> disagreement_in(const KernelContract& kernel, const SharedBuffers& a,
                                         const SharedBuffers& b, double share, size_t r,
                                         size_t from, size_t to) {
  const Tolerance tol = kernel.tolerance();
  const RegionSpec& spec = a.specs()[r];
  const auto x = a.bytes(r);
  const auto y = b.bytes(r);
  const size_t bits = element_bits(spec.element);
  const size_t elements = x.size() * 8 / bits;
  const size_t chunk = kAgreeChunkBytes * 8 / bits;
  const size_t last = std::min(elements, (to * 8 + bits - 1) / bits);
  for (size_t begin = from * 8 / bits; begin < last; begin += chunk) {
    const size_t end = std::min(last, begin + chunk);
    const size_t lo = begin * bits / 8;
    const size_t hi = std::min(x.size(), (end * bits + 7) / 8);
    if (std::memcmp(x.data() + lo, y.data() + lo, hi - lo) == 0) continue;
    for (size_t i = begin; i < end; ++i) {
      const double got = read_element(spec.element, x.data(), i);
      const double other = read_element(spec.element, y.data(), i);
      const double allowed =
          share * (tol.atol + tol.rtol * std::max(std::fabs(got), std::fabs(other)));
      if (!(std::fabs(got - other) <= allowed)) {
        return Violation{Violation::Kind::kWrongValue, spec.name, i, got, other, allowed};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Violation> disagreement(const KernelContract& kernel, const SharedBuffers& a,
                                      const SharedBuffers& b, double share) {
  return disagreement_within(kernel, a, b, share, {{0, a.layout().writable_bytes}});
}

std::optional<Violation> disagreement_within(const KernelContract& kernel, const SharedBuffers& a,
                                             const SharedBuffers& b, double share,
                                             const std::vector<std::pair<size_t, size_t>>& ranges) {
  const auto& specs = a.specs();
  for (size_t r = 0; r < specs.size(); ++r) {
    if (specs[r].role == RegionRole::kInput) continue;
    const auto offset = static_cast<size_t>(a.bytes(r).data() - a.writable_block());
    for (const auto& [begin, end] : ranges) {
      const size_t from = std::max(begin, offset);
      const size_t to = std::min(end, offset + specs[r].bytes);
      if (from >= to) continue;
      if (auto v = disagreement_in(kernel, a, b, share, r, from - offset, to - offset)) return v;
    }
  }
  return std::nullopt;
}

}  // namespace headway
