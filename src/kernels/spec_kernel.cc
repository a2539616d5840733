#include "kernels/spec_kernel.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "common/embedded.h"
#include "common/file_io.h"
#include "common/hash.h"
#include "common/rng.h"
#include "common/subprocess.h"
#include "kernels/declared_kernel.h"
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
                       SpecFunctions functions)
    : spec_(std::move(spec)), shape_(shape_set), functions_(functions) {
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

std::vector<std::vector<double>> SpecKernel::decoded(const SharedBuffers& buffers) const {
  std::vector<std::vector<double>> values(spec_->arguments.size());
  for (size_t a = 0; a < values.size(); ++a) {
    values[a].assign(element_count(extents_[a]), 0.0);
    if (spec_->arguments[a].role == ArgumentRole::kOutput) continue;
    const std::byte* in = buffers.bytes(a).data();
    for (size_t i = 0; i < values[a].size(); ++i)
      values[a][i] = read_element(regions_[a].element, in, i);
  }
  return values;
}

void SpecKernel::generate(uint64_t seed, SharedBuffers& buffers) const {
  const auto dims = shape_set().dims;
  std::memcpy(buffers.bytes(regions_.size() - 1).data(), dims.data(),
              dims.size() * sizeof(int64_t));
  for (size_t a = 0; a < spec_->arguments.size(); ++a) {
    const SpecArgument& arg = spec_->arguments[a];
    if (arg.role == ArgumentRole::kOutput) continue;
    const uint64_t stream = mix_seed(seed, a + 1);
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
    Rng rng(stream);
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
          v = rng.uniform(d.a, d.b);
          break;
        case Draw::Kind::kBelow:
          v = static_cast<double>(rng.below(static_cast<uint64_t>(below)));
          break;
        case Draw::Kind::kConstant:
          break;
      }
      write_element(arg.type, out, i, v);
    }
  }
  if (!functions_.generate) return;
  std::vector<std::vector<double>> values = decoded(buffers);
  const size_t count = values.size();
  std::vector<double*> args(count);
  for (size_t a = 0; a < count; ++a) args[a] = values[a].data();
  functions_.generate(seed, args.data(), shape_set().dims.data());
  for (size_t a = 0; a < count; ++a) {
    if (spec_->arguments[a].role == ArgumentRole::kOutput) continue;
    // Only what the generator changed is encoded again: a weight it only reads stays as drawn.
    std::byte* out = buffers.bytes(a).data();
    const ElementType type = regions_[a].element;
    for (size_t i = 0; i < values[a].size(); ++i) {
      const double v = values[a][i];
      if (v != read_element(type, out, i)) write_element(type, out, i, v);
    }
  }
}

std::vector<ExpectedOutput> SpecKernel::reference(const SharedBuffers& buffers) const {
  std::vector<std::vector<double>> values = decoded(buffers);
  const size_t count = values.size();
  std::vector<double*> args(count);
  for (size_t a = 0; a < count; ++a) args[a] = values[a].data();
  functions_.reference(args.data(), shape_set().dims.data());
  std::vector<ExpectedOutput> expected;
  for (size_t a = 0; a < count; ++a) {
    const ArgumentRole role = spec_->arguments[a].role;
    if (role == ArgumentRole::kOutput || role == ArgumentRole::kInOut) {
      expected.push_back({a, 0, std::move(values[a])});
      continue;
    }
    if (role != ArgumentRole::kCache) continue;
    const size_t rows = static_cast<size_t>(extents_[a][0]);
    const size_t row = values[a].size() / rows;
    const std::byte* before = buffers.bytes(a).data();
    ExpectedOutput* run = nullptr;
    for (size_t r = 0; r < rows; ++r) {
      bool changed = false;
      for (size_t i = r * row; i < (r + 1) * row && !changed; ++i) {
        const double was = read_element(regions_[a].element, before, i);
        changed = !(values[a][i] == was || (std::isnan(values[a][i]) && std::isnan(was)));
      }
      if (!changed) {
        run = nullptr;
        continue;
      }
      if (!run) run = &expected.emplace_back(ExpectedOutput{a, r * row, {}});
      run->values.insert(run->values.end(), values[a].begin() + static_cast<ptrdiff_t>(r * row),
                         values[a].begin() + static_cast<ptrdiff_t>((r + 1) * row));
    }
  }
  return expected;
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

Result<void*> build_spec_function(const fs::path& source, std::string_view symbol,
                                  const fs::path& cache_dir) {
  const std::optional<std::string> text = read_file(source);
  const std::string_view role = symbol == "headway_generate" ? "generator" : "reference";
  if (!text) return invalid_input(fmt::format("{}: cannot read the {}", source.string(), role));
  const std::string ext = source.extension().string();
  const bool c = ext == ".c";
  const char* env = std::getenv(c ? "CC" : "CXX");
  const std::string compiler = env && *env ? env : (c ? "cc" : "c++");
  const std::string_view header = embedded_file("include/headway/headway_reference.h");
  std::vector<std::string> argv = {compiler, "-O2", "-fPIC", "-shared",
                                   c ? "-std=c11" : "-std=c++20"};
  std::string key = *text + '\0' + std::string(header) + '\0' + compiler;
  const fs::path dir = cache_dir / "references";
  const fs::path object =
      dir / fmt::format("reference-{:016x}.so", hash_bytes(key.data(), key.size()));
  std::error_code ec;
  if (!fs::exists(object, ec)) {
    const fs::path work = dir / fmt::format("build-{:016x}-{}", hash_bytes(key.data(), key.size()),
                                            static_cast<long>(getpid()));
    try {
      write_file_creating_folders(work / "include/headway_reference.h", header);
    } catch (const std::runtime_error& e) {
      return environment_error(e.what());
    }
    const fs::path built = work / "reference.so";
    argv.insert(argv.end(),
                {"-I", (work / "include").string(), "-o", built.string(), source.string(), "-lm"});
    const ProcessResult r = run_process(argv, 300.0);
    if (!r.started) {
      fs::remove_all(work, ec);
      return environment_error(
          fmt::format("cannot run {} to build the {}: {}", compiler, role, r.error));
    }
    if (!r.ok()) {
      fs::remove_all(work, ec);
      return invalid_input(
          fmt::format("{}: the {} does not build:\n{}", source.string(), role, r.output));
    }
    fs::rename(built, object, ec);  // atomic: a concurrent build of the same key wins either way
    fs::remove_all(work, ec);
    if (ec)
      return environment_error(fmt::format("cannot store {}: {}", object.string(), ec.message()));
  }
  // Never closed: contracts made from it live as long as the process.
  void* handle = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return invalid_input(
        fmt::format("{}: cannot load the built reference: {}", source.string(), dlerror()));
  void* entry = dlsym(handle, std::string(symbol).c_str());
  if (!entry) {
    return invalid_input(
        fmt::format("{}: defines no '{}' with C linkage (include/headway/headway_reference.h)",
                    source.string(), symbol));
  }
  return entry;
}

Result<std::vector<std::unique_ptr<SpecKernel>>> spec_kernels(
    std::shared_ptr<const KernelSpec> spec, const fs::path& cache_dir) {
  auto reference = build_spec_function(spec->reference, "headway_reference", cache_dir);
  if (!reference) return reference.error();
  SpecFunctions functions;
  functions.reference =
      reinterpret_cast<void (*)(double* const*, const int64_t*)>(reference.value());
  if (!spec->generator.empty()) {
    auto generate = build_spec_function(spec->generator, "headway_generate", cache_dir);
    if (!generate) return generate.error();
    functions.generate =
        reinterpret_cast<void (*)(uint64_t, double* const*, const int64_t*)>(generate.value());
  }
  std::vector<std::unique_ptr<SpecKernel>> out;
  for (size_t s = 0; s < spec->shapes.size(); ++s)
    out.push_back(std::make_unique<SpecKernel>(spec, s, functions));
  return out;
}

Result<const KernelContract*> load_spec_kernel(const fs::path& file, const fs::path& cache_dir,
                                               std::string_view shape_set) {
  auto spec = load_kernel_spec(file);
  if (!spec) return spec.error();
  auto shared = std::make_shared<const KernelSpec>(std::move(spec.value()));
  size_t index = 0;
  if (!shape_set.empty()) {
    while (index < shared->shapes.size() && shared->shapes[index].name != shape_set) ++index;
    if (index == shared->shapes.size()) {
      std::string known;
      for (const auto& s : shared->shapes) known += (known.empty() ? "" : ", ") + s.name;
      return invalid_input(
          fmt::format("{}: no shape set '{}' (it has: {})", file.string(), shape_set, known));
    }
  }
  auto kernels = spec_kernels(shared, cache_dir);
  if (!kernels) return kernels.error();
  auto& all = kernels.value();
  std::unique_ptr<SpecKernel> chosen = std::move(all[index]);
  all.erase(all.begin() + static_cast<ptrdiff_t>(index));
  chosen->adopt(std::move(all));
  return declare_contract(std::move(chosen));
}

}  // namespace headway
