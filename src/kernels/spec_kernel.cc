#include "kernels/spec_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "common/cache_dir.h"
#include "common/embedded.h"
#include "common/hash.h"
#include "common/rng.h"
#include "kernels/generate.h"

namespace headway {

namespace fs = std::filesystem;

namespace {

size_t element_count(const std::vector<int64_t>& extents) {
  size_t n = 1;
  for (const int64_t e : extents) n *= static_cast<size_t>(e);
  return n;
}

RegionRole region_role(ArgumentRole role) {
  switch (role) {
    case ArgumentRole::kInput:
    case ArgumentRole::kWeight:
      return RegionRole::kInput;
    case ArgumentRole::kOutput:
      return RegionRole::kOutput;
    case ArgumentRole::kInOut:
      return RegionRole::kInOut;
    case ArgumentRole::kCache:
      return RegionRole::kCache;
  }
  return RegionRole::kInput;
}

}  // namespace

SpecKernel::SpecKernel(std::shared_ptr<const KernelSpec> spec, size_t shape_set,
                       std::shared_ptr<const SpecBuild> build)
    : spec_(std::move(spec)), shape_(shape_set), build_(std::move(build)) {
  for (size_t a = 0; a < spec_->arguments.size(); ++a) {
    const SpecArgument& arg = spec_->arguments[a];
    extents_.push_back(spec_->extents(a, shape_).value());
    RegionSpec r;
    r.name = arg.name;
    r.role = region_role(arg.role);
    r.element = arg.type;
    r.bytes = element_bytes(arg.type, element_count(extents_.back()));
    if (arg.role == ArgumentRole::kCache) r.row_bytes = r.bytes / extents_.back()[0];
    regions_.push_back(std::move(r));
  }
  regions_.push_back({"dims", sizeof(int64_t) * std::max<size_t>(spec_->dims.size(), 1),
                      RegionRole::kInput, 0, ElementType::kInt32});
}

std::vector<double*> SpecKernel::arguments(const SharedBuffers& buffers, Scratch& scratch,
                                           bool keep_caches) const {
  std::vector<std::vector<double>>& values = scratch.values;
  values.resize(spec_->arguments.size());
  std::vector<std::optional<uint64_t>>& decoded = scratch.cache_decoded;
  if (keep_caches) {
    decoded.resize(values.size());
    scratch.given.resize(values.size());
  } else {
    decoded.clear();
  }
  std::vector<double*> args(values.size());
  for (size_t a = 0; a < values.size(); ++a) {
    const SpecArgument& arg = spec_->arguments[a];
    const std::byte* in = buffers.bytes(a).data();
    if (arg.pass_bytes) {
      // Read-only by contract (include/headway/headway_reference.h, hw_bytes).
      args[a] = reinterpret_cast<double*>(const_cast<std::byte*>(in));
      continue;
    }
    values[a].resize(element_count(extents_[a]));
    args[a] = values[a].data();
    if (arg.role == ArgumentRole::kOutput) {
      std::fill(values[a].begin(), values[a].end(), 0.0);
    } else if (keep_caches && arg.role == ArgumentRole::kCache) {
      const uint64_t hash = hash_bytes(in, regions_[a].bytes);
      if (decoded[a] == hash) continue;
      read_elements(regions_[a].element, in, values[a]);
      scratch.given[a] = values[a];
      decoded[a] = hash;
    } else {
      read_elements(regions_[a].element, in, values[a]);
    }
  }
  return args;
}

void SpecKernel::generate(uint64_t seed, SharedBuffers& buffers) const {
  const auto dims = shape_set().dims;
  std::memcpy(buffers.bytes(regions_.size() - 1).data(), dims.data(),
              dims.size() * sizeof(int64_t));
  for (size_t a = 0; a < spec_->arguments.size(); ++a) {
    const SpecArgument& arg = spec_->arguments[a];
    if (arg.role == ArgumentRole::kOutput) continue;
    const uint64_t stream = mix_seed(seed, arg.stream ? arg.stream : a + 1);
    const size_t n = element_count(extents_[a]);
    std::byte* out = buffers.bytes(a).data();
    const Draw& d = arg.draw;
    // The bulk formats' own fillers: a weight of 100 MB is drawn in well under a second.
    if (arg.type == ElementType::kBf16 && d.kind == Draw::Kind::kNormal) {
      fill_bf16_normal(stream, d.a, {reinterpret_cast<bf16*>(out), n});
      continue;
    }
    if (arg.type == ElementType::kF8e4m3 && d.kind == Draw::Kind::kNormal && d.a == 1.0) {
      fill_f8_normal(stream, {reinterpret_cast<uint8_t*>(out), n});
      continue;
    }
    if (d.kind == Draw::Kind::kCodes) {
      fill_random_bytes(stream, {reinterpret_cast<uint8_t*>(out), regions_[a].bytes});
      continue;
    }
    Rng rng(stream);
    const bool integers = !is_floating(arg.type);
    int64_t below = d.below_count;
    if (!d.below_dim.empty()) {
      const auto at = std::find(spec_->dims.begin(), spec_->dims.end(), d.below_dim);
      below = shape_set().dims[static_cast<size_t>(at - spec_->dims.begin())];
    }
    for (size_t i = 0; i < n; ++i) {
      double v = d.a;
      switch (d.kind) {
        case Draw::Kind::kNormal:
          v = d.a * rng.normal();
          break;
        case Draw::Kind::kUniform:
          // An integer type: every integer from lo to hi, both included (kernel_spec.h, Draw).
          v = integers ? d.a + static_cast<double>(rng.below(static_cast<uint64_t>(d.b - d.a) + 1))
                       : rng.uniform(d.a, d.b);
          break;
        case Draw::Kind::kBelow:
          v = static_cast<double>(rng.below(static_cast<uint64_t>(below)));
          break;
        case Draw::Kind::kConstant:
        case Draw::Kind::kCodes:
          break;
      }
      write_element(arg.type, out, i, v);
    }
  }
  if (spec_->generator.empty()) return;
  const SpecFunctions& functions = build_->functions();
  with_scratch([&](Scratch& scratch) {
    const std::vector<double*> args = arguments(buffers, scratch, false);
    std::vector<std::vector<double>>& values = scratch.values;
    std::vector<std::vector<double>>& drawn = scratch.given;
    drawn.resize(values.size());
    for (size_t a = 0; a < values.size(); ++a) drawn[a] = values[a];
    functions.generate(seed, args.data(), shape_set().dims.data());
    for (size_t a = 0; a < values.size(); ++a) {
      const SpecArgument& arg = spec_->arguments[a];
      if (arg.role == ArgumentRole::kOutput || arg.pass_bytes) continue;
      // Only what the generator changed is encoded again: a weight it only reads stays as drawn.
      std::byte* out = buffers.bytes(a).data();
      const ElementType type = regions_[a].element;
      for (size_t i = 0; i < values[a].size(); ++i) {
        if (std::memcmp(&values[a][i], &drawn[a][i], sizeof(double)) != 0)
          write_element(type, out, i, values[a][i]);
      }
    }
  });
}

std::vector<ExpectedOutput> SpecKernel::reference(const SharedBuffers& buffers) const {
  const SpecFunctions& functions = build_->functions();
  std::vector<ExpectedOutput> expected;
  with_scratch([&](Scratch& scratch) {
    const std::vector<double*> args = arguments(buffers, scratch, true);
    std::vector<std::vector<double>>& values = scratch.values;
    const std::vector<std::vector<double>>& caches = scratch.given;  // to find the rows written
    // Until the written rows are put back below, no cache is as its hash says.
    const std::vector<std::optional<uint64_t>> hashes = std::exchange(scratch.cache_decoded, {});
    functions.reference(args.data(), shape_set().dims.data());
    const size_t count = values.size();
    for (size_t a = 0; a < count; ++a) {
      const ArgumentRole role = spec_->arguments[a].role;
      if (role == ArgumentRole::kOutput || role == ArgumentRole::kInOut) {
        expected.push_back({a, 0, values[a]});
        continue;
      }
      if (role != ArgumentRole::kCache) continue;
      const size_t rows = static_cast<size_t>(extents_[a][0]);
      const size_t row = values[a].size() / rows;
      ExpectedOutput* run = nullptr;
      for (size_t r = 0; r < rows; ++r) {
        const bool changed = std::memcmp(values[a].data() + r * row, caches[a].data() + r * row,
                                         row * sizeof(double)) != 0;
        if (!changed) {
          run = nullptr;
          continue;
        }
        if (!run) run = &expected.emplace_back(ExpectedOutput{a, r * row, {}});
        run->values.insert(run->values.end(), values[a].begin() + static_cast<ptrdiff_t>(r * row),
                           values[a].begin() + static_cast<ptrdiff_t>((r + 1) * row));
        std::memcpy(values[a].data() + r * row, caches[a].data() + r * row, row * sizeof(double));
      }
    }
    scratch.cache_decoded = hashes;
  });
  return expected;
}

void SpecKernel::with_scratch(const std::function<void(Scratch&)>& use) const {
  std::unique_ptr<Scratch> mine;
  {
    const std::lock_guard lock(scratch_.mutex);
    if (!scratch_.idle.empty()) {
      mine = std::move(scratch_.idle.back());
      scratch_.idle.pop_back();
    }
  }
  if (!mine) mine = std::make_unique<Scratch>();
  use(*mine);
  const std::lock_guard lock(scratch_.mutex);
  scratch_.idle.push_back(std::move(mine));
}

KernelContract::WeightFormat SpecKernel::weight_format() const {
  bool f8 = false;
  for (const auto& arg : spec_->arguments) {
    if (arg.role != ArgumentRole::kWeight) continue;
    if (arg.type == ElementType::kNvfp4) return WeightFormat::kNvfp4;
    f8 |= arg.type == ElementType::kF8e4m3;
  }
  return f8 ? WeightFormat::kF8e4m3 : WeightFormat::kNone;
}

uint64_t SpecKernel::quantized_weight_bytes() const {
  const WeightFormat format = weight_format();
  if (format == WeightFormat::kNone) return 0;
  uint64_t bytes = 0;
  for (size_t a = 0; a < spec_->arguments.size(); ++a) {
    const SpecArgument& arg = spec_->arguments[a];
    if (arg.role != ArgumentRole::kWeight) continue;
    if (arg.type == ElementType::kNvfp4 || arg.type == ElementType::kF8e4m3)
      bytes += regions_[a].bytes;
  }
  return bytes;
}

std::vector<const KernelContract*> SpecKernel::shape_sets() const {
  std::vector<const KernelContract*> out = {this};
  for (const auto& k : others_) out.push_back(k.get());
  return out;
}

void SpecKernel::adopt(std::vector<std::unique_ptr<SpecKernel>> others) {
  others_ = std::move(others);
}

uint64_t SpecKernel::bytes_to_move() const {
  if (spec_->bytes) return *spec_->bytes;
  const uint64_t dims = regions_.back().bytes;  // headway's, not the kernel's work
  return KernelContract::bytes_to_move() - dims;
}

Result<std::vector<std::unique_ptr<SpecKernel>>> spec_kernels(
    std::shared_ptr<const KernelSpec> spec, const fs::path& cache_dir) {
  auto functions = build_spec_functions(*spec, cache_dir);
  if (!functions) return functions.error();
  auto build = std::make_shared<const SpecBuild>([f = functions.value()] { return f; });
  std::vector<std::unique_ptr<SpecKernel>> out;
  for (size_t s = 0; s < spec->shapes.size(); ++s)
    out.push_back(std::make_unique<SpecKernel>(spec, s, build));
  return out;
}

namespace {

// The contract at shape set `chosen`, owning the others in the spec's order.
std::unique_ptr<SpecKernel> family(const std::shared_ptr<const KernelSpec>& spec, size_t chosen,
                                   const std::shared_ptr<const SpecBuild>& build) {
  auto first = std::make_unique<SpecKernel>(spec, chosen, build);
  std::vector<std::unique_ptr<SpecKernel>> others;
  for (size_t s = 0; s < spec->shapes.size(); ++s) {
    if (s != chosen) others.push_back(std::make_unique<SpecKernel>(spec, s, build));
  }
  first->adopt(std::move(others));
  return first;
}

}  // namespace

std::unique_ptr<SpecKernel> embedded_spec_kernel(std::string_view spec_file) {
  auto parsed =
      parse_kernel_spec(embedded_file(spec_file), fs::path(spec_file), SpecOrigin::kEmbedded);
  if (!parsed) throw std::logic_error("an embedded spec is invalid: " + parsed.error().message);
  auto spec = std::make_shared<const KernelSpec>(std::move(parsed.value()));
  auto build = std::make_shared<const SpecBuild>(
      [spec] { return build_spec_functions(*spec, build_cache_dir()); });
  return family(spec, spec->first_timed_shape(), build);
}

Result<std::unique_ptr<SpecKernel>> load_spec_kernel(const fs::path& file,
                                                     const fs::path& cache_dir,
                                                     std::string_view shape_set,
                                                     std::string label) {
  auto spec = load_kernel_spec(file);
  if (!spec) return spec.error();
  auto shared = std::make_shared<const KernelSpec>(std::move(spec.value()));
  size_t index = shared->first_timed_shape();
  if (!shape_set.empty()) {
    index = 0;
    while (index < shared->shapes.size() && shared->shapes[index].name != shape_set) ++index;
    if (index == shared->shapes.size()) {
      std::string known;
      for (const auto& s : shared->shapes) known += (known.empty() ? "" : ", ") + s.name;
      return invalid_input(
          fmt::format("{}: no shape set '{}' (it has: {})", file.string(), shape_set, known));
    }
  }
  auto build = std::make_shared<const SpecBuild>([shared, cache_dir,
                                                  label =
                                                      std::move(label)]() -> Result<SpecFunctions> {
    auto functions = build_spec_functions(*shared, cache_dir);
    if (!functions && !label.empty())
      return Error{functions.error().code, fmt::format("{}: {}", label, functions.error().message)};
    return functions;
  });
  return family(shared, index, build);
}

}  // namespace headway
