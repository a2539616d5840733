#include "targets/spec_designs.h"

#include <fmt/format.h>

#include "common/file_io.h"
#include "targets/design_library.h"

namespace headway::targets {

namespace {

// The baseline counts as a design when its header says so, in any comment syntax.
bool declares_design(std::string_view text) {
  return text.find("headway-design:") != std::string_view::npos;
}

}  // namespace

std::vector<DocFile> spec_design_files(const KernelSpec& spec, std::string_view target) {
  std::vector<DocFile> out;
  if (const auto b = spec.baselines.find(std::string(target)); b != spec.baselines.end()) {
    if (auto text = read_file(b->second); text && declares_design(*text))
      out.push_back({b->second.string(), std::move(*text)});
  }
  if (const auto d = spec.designs.find(std::string(target)); d != spec.designs.end()) {
    for (const auto& path : d->second) {
      if (auto text = read_file(path)) out.push_back({path.string(), std::move(*text)});
    }
  }
  return out;
}

Result<void> spec_designs_check(const KernelSpec& spec, std::string_view target,
                                const KernelLanguage& language) {
  std::vector<std::filesystem::path> paths;
  if (const auto d = spec.designs.find(std::string(target)); d != spec.designs.end())
    paths = d->second;
  for (const auto& path : paths) {
    if (!read_file(path))
      return invalid_input(fmt::format("{}: cannot read the design", path.string()));
  }
  for (const DocFile& file : spec_design_files(spec, target)) {
    const auto parsed = parse_design(spec.name, file.text, language);
    if (parsed) continue;
    const auto [line, message] = design_error_at(parsed.error().message);
    return invalid_input(fmt::format("{}:{}: design: {}", file.path, line, message));
  }
  return {};
}

}  // namespace headway::targets
