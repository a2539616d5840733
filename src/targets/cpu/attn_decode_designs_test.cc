// The cpu design library of the decode attention specs (kernels/designs/attn_decode/ and
// attn_decode_f8/, kernels/specs/gemma4/attn_decode/): a workspace that adds either spec gets its
// designs from the library proposer; each design builds and passes the check at its defaults at the
// filling shape set (a part-filled ring), at sliding (the full ring) and at global4k (global32k,
// 256 MiB of K and V, is left to the loop in kernels/designs/README.md); and the split-K driver
// (include/headway/headway_attn.h) with a planted merge, rescale or value-pass bug fails the check
// at small shape sets (the bf16 spec's design: both specs share the driver). Real builds, real
// checks, a real workspace.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/embedded.h"
#include "common/file_io.h"
#include "kernels/kernel_spec.h"
#include "kernels/shared_buffers.h"
#include "kernels/spec_kernel.h"
#include "knowledge/workspace_kernels.h"
#include "loop/library_proposer.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"
#include "targets/design_library.h"
#include "targets/registry/registry.h"

namespace headway::targets {
namespace {

namespace fs = std::filesystem;

const fs::path kSpecDir = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/gemma4/attn_decode";
constexpr const char* kSpecs[] = {"attn_decode", "attn_decode_f8"};

Target& cpu() {
  static const std::unique_ptr<Target> target = make_target("cpu");
  return *target;
}

// The spec at `file`, one contract per shape set (references built under cache_dir).
std::vector<std::unique_ptr<SpecKernel>> kernels_of(const fs::path& file, const fs::path& cache) {
  auto spec = load_kernel_spec(file);
  EXPECT_TRUE(spec) << spec.error().message;
  if (!spec) return {};
  auto kernels = spec_kernels(std::make_shared<KernelSpec>(spec.value()), cache);
  EXPECT_TRUE(kernels) << kernels.error().message;
  return kernels ? std::move(kernels).value() : std::vector<std::unique_ptr<SpecKernel>>{};
}

// The first seed whose input set (the check's first call) has fewer valid slots than the cache
// (part_filled) or exactly as many (full).
uint64_t seed_with(const SpecKernel& kernel, bool part_filled) {
  for (uint64_t seed = 1;; ++seed) {
    SharedBuffers b(kernel.regions());
    kernel.generate(seed, b);
    const bool part = b.as<int32_t>("valid")[0] < kernel.shape_set().dims[0];
    if (part == part_filled) return seed;
  }
}

CheckOutcome check(const SpecKernel& kernel, const Artifact& artifact, uint64_t seed) {
  CheckOptions options;
  options.seed = seed;
  return cpu().check(kernel, artifact, options);
}

TEST(AttnDecodeDesigns, AWorkspaceThatAddsTheSpecGetsItsDesignsFromTheLibraryProposer) {
  store::TestTempDir tmp;
  auto ws = store::Workspace::create(tmp.path() / "ws");
  ASSERT_TRUE(ws) << ws.error().message;
  for (const char* name : kSpecs) {
    auto added = knowledge::add_workspace_kernel(ws.value(),
                                                 kSpecDir / (std::string(name) + ".toml"), false);
    ASSERT_TRUE(added) << added.error().message;
  }
  // A spec of another name has no directory in the library: it gets its own designs only.
  auto other = knowledge::add_workspace_kernel(
      ws.value(), fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/rmsnorm/rmsnorm.toml", false);
  ASSERT_TRUE(other) << other.error().message;
  auto catalog = knowledge::workspace_catalog(ws->root(), tmp.path() / "cache");
  ASSERT_TRUE(catalog) << catalog.error().message;

  for (const char* name : kSpecs) {
    const KernelContract* kernel = catalog->find_kernel(name);
    ASSERT_NE(kernel, nullptr) << name;
    const auto& designs = designs_for(cpu(), *kernel);
    ASSERT_FALSE(designs.empty()) << name;
    // The f8 cache's shift decode makes f32 subnormals, and says so (docs/KERNELS.md); the f16
    // decode makes none.
    for (const auto& d : designs)
      EXPECT_EQ(!d.subnormals.empty(), d.name == "split_sext") << d.name;
    // Without the workspace's facts, a design that requires an ISA extension is not offered.
    std::vector<targets::Design> offered;
    for (const auto& d : designs) {
      if (d.requires_isa.empty()) offered.push_back(d);
    }
    EXPECT_EQ(offered.size() + (std::string(name) == "attn_decode_f8" ? 1 : 0), designs.size())
        << name << ": split_f16c (requires f16c) is the only design with requirements";
    std::set<std::string> tried;
    loop::ProposalContext ctx;
    ctx.kernel = kernel;
    ctx.head_design = "baseline";
    ctx.already_tried = [&tried](const std::string& s) { return tried.count(s) > 0; };
    ctx.max_proposals = 100;
    loop::LibraryProposer proposer(cpu());
    const auto proposals = proposer.propose(ctx);
    ASSERT_GE(proposals.size(), offered.size()) << name;
    for (size_t i = 0; i < offered.size(); ++i) {
      EXPECT_EQ(proposals[i].source, offered[i].render(offered[i].defaults()))
          << name << ": " << offered[i].name << " at its defaults first";
      EXPECT_NE(proposals[i].source.find("hw_" + std::string(name) + "("), std::string::npos)
          << name << ": the design defines the spec's entry point";
    }
  }
  const KernelContract* rmsnorm = catalog->find_kernel("rmsnorm");
  ASSERT_NE(rmsnorm, nullptr);
  EXPECT_TRUE(designs_for(cpu(), *rmsnorm).empty());
}

// Every design at its defaults and in each order of the driver (P_BLOCK 0: two passes over a
// thread's range; 8: K and V of each block in turn; 256: two passes over each block): the ring
// part filled (filling, check-only) and full (sliding), and global4k.
TEST(AttnDecodeDesigns, EveryDesignPassesTheCheckAtItsDefaultsAndInEveryOrder) {
  ASSERT_TRUE(cpu().identity().found) << cpu().identity().error;
  store::TestTempDir tmp;
  for (const char* name : kSpecs) {
    const auto kernels = kernels_of(kSpecDir / (std::string(name) + ".toml"), tmp.path() / "ref");
    ASSERT_EQ(kernels.size(), 4u) << name;
    const SpecKernel& sliding = *kernels[0];
    const SpecKernel& global4k = *kernels[1];
    const SpecKernel& filling = *kernels[3];
    ASSERT_EQ(sliding.shape_set().name, "sliding");
    ASSERT_EQ(global4k.shape_set().name, "global4k");
    ASSERT_EQ(filling.shape_set().name, "filling");
    const auto& designs = designs_for(cpu(), sliding);
    ASSERT_FALSE(designs.empty()) << name;
    for (const Design& design : designs) {
      std::vector<Params> orders = {design.defaults()};
      for (const int block : {0, 8, 256}) {
        if (block == design.defaults().at("P_BLOCK")) continue;
        orders.push_back(design.defaults());
        orders.back()["P_BLOCK"] = block;
      }
      for (const Params& params : orders) {
        const std::string id =
            fmt::format("{}/{} at P_BLOCK {}", name, design.name, params.at("P_BLOCK"));
        const BuildOutcome built = cpu().build(design.render(params), tmp.path() / "b");
        ASSERT_TRUE(built.built()) << id << ":\n" << built.diagnostics;
        const CheckOutcome part = check(filling, built.artifact, seed_with(filling, true));
        EXPECT_TRUE(part.correct()) << id << " at filling (part filled): " << part.description;
        const CheckOutcome full = check(sliding, built.artifact, seed_with(sliding, false));
        EXPECT_TRUE(full.correct()) << id << " at sliding (full): " << full.description;
        const CheckOutcome outcome = check(global4k, built.artifact, 20261206);
        EXPECT_TRUE(outcome.correct()) << id << " at global4k: " << outcome.description;
      }
    }
  }
}

// Small shape sets for the planted bugs: a ring of 1024 slots (D = 32, the SIMD paths; two
// blocks of 256 a thread when full) that may be part filled, and a full cache of D = 8.
const char* kSmallShapes = R"([[shapes]]
name = "ring"
T = 1024
N = 2
G = 2
D = 32
VMIN = 1

[[shapes]]
name = "full"
T = 40
N = 3
G = 2
D = 8
VMIN = 40

)";

// The design at `block` (8: several blocks a thread at the small shapes, K and V in turn;
// 256: two passes a block, two blocks a thread where the ring is full; 0: two passes a range)
// after a copy of the driver with `from` replaced by `to`: the copy's include guard keeps the
// shipped driver out.
std::string planted(const Design& design, int block, const std::string& from,
                    const std::string& to) {
  std::string driver(embedded_file("include/headway/headway_attn.h"));
  const size_t at = driver.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) driver.replace(at, from.size(), to);
  Params params = design.defaults();
  params["P_BLOCK"] = block;
  params["P_THREADS"] = 2;
  return driver + design.render(params);
}

TEST(AttnDecodeDesigns, ADriverWithAPlantedMergeRescaleOrValuePassBugFails) {
  ASSERT_TRUE(cpu().identity().found) << cpu().identity().error;
  store::TestTempDir tmp;
  struct Bug {
    std::string what, from, to;
    std::vector<int> blocks;  // the P_BLOCK values whose driver code the bug is in
  };
  const std::string weigh = "weight[t] = p.l[h] > 0.0f ? std::exp(p.m[h] - top) : 0.0f;";
  const std::string value_pass = "axpy_rows<2>(row_of(D::values(a), t, n), 1,";
  const std::vector<Bug> bugs = {
      {"none", "", "", {8, 0, 256}},
      {"the last thread's partial dropped",
       weigh,
       "weight[t] = t + 1 < threads && p.l[h] > 0.0f ? std::exp(p.m[h] - top) : 0.0f;",
       {8, 0, 256}},
      {"partials added unweighted", weigh, "weight[t] = p.l[h] > 0.0f ? 1.0f : 0.0f;", {8, 0, 256}},
      {"the accumulator not rescaled", "p.acc[h * d + i] *= shrink;", ";", {8, 256}},
      {"the sum not rescaled", "p.l[h] *= shrink;", ";", {8, 256}},
      {"the value pass missing the block's first slot",
       value_pass,
       "if (t > b) axpy_rows<2>(row_of(D::values(a), t, n), 1,",
       {0, 256}},
      {"the last block of a range dropped",
       "two_passes(p, b, b + step < range_end ? b + step : range_end);",
       "if (b + step < range_end) two_passes(p, b, b + step);",
       {256}},
  };
  // The driver is the same for both specs: the bf16 one, whose builds are quicker.
  const std::string name = "attn_decode";
  const fs::path dir = tmp.path() / name;
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(kSpecDir))
    fs::copy_file(entry.path(), dir / entry.path().filename());
  const fs::path toml = dir / (std::string(name) + ".toml");
  std::string text = read_file(toml).value();
  const size_t first = text.find("[[shapes]]"), args = text.find("[[arguments]]");
  text.replace(first, args - first, kSmallShapes);
  write_file(toml, text);
  const auto kernels = kernels_of(toml, dir / "ref");
  ASSERT_EQ(kernels.size(), 2u) << name;
  const uint64_t part = seed_with(*kernels[0], true), full = seed_with(*kernels[0], false);
  for (const Design& design : designs_for(cpu(), *kernels[0])) {
    for (const Bug& bug : bugs) {
      for (const int block : bug.blocks) {
        const std::string id =
            fmt::format("{}/{} at P_BLOCK {}, {}", name, design.name, block, bug.what);
        const BuildOutcome built =
            cpu().build(bug.from.empty() ? planted(design, block, weigh, weigh)
                                         : planted(design, block, bug.from, bug.to),
                        tmp.path() / "b");
        ASSERT_TRUE(built.built()) << id << ":\n" << built.diagnostics;
        int wrong = 0;
        for (const uint64_t seed : {part, full}) {
          for (const auto& kernel : kernels) {
            const CheckOutcome outcome = check(*kernel, built.artifact, seed);
            if (bug.from.empty()) {
              EXPECT_TRUE(outcome.correct()) << id << ": " << outcome.description;
            }
            wrong += outcome.status == CheckOutcome::Status::kIncorrect;
          }
        }
        if (!bug.from.empty()) {
          EXPECT_GE(wrong, 1) << id << " passed every check";
        }
      }
    }
  }
}

}  // namespace
}  // namespace headway::targets
