#include "kernels/kernel_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

const fs::path kSpecs = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs";

// A valid spec: one output row of N = 64 elements from one input.
constexpr const char* kValid = R"(name = "scale_row"
dims = ["N"]
reference = "ref.c"
tolerance = { atol = 0.01, rtol = 0.01 }

[[shapes]]
name = "small"
N = 64

[[arguments]]
name = "x"
role = "input"
type = "bf16"
shape = ["N"]

[[arguments]]
name = "out"
role = "output"
type = "f32"
shape = ["N"]  # out
)";

class KernelSpecFile : public ::testing::Test {
 protected:
  KernelSpecFile() { write_file(dir_.path() / "ref.c", "/* reference */\n"); }
  // Loads `text` as a spec; the error's message, or "" when it loads.
  std::string error_of(const std::string& text) {
    write_file(dir_.path() / "spec.toml", text);
    auto spec = load_kernel_spec(dir_.path() / "spec.toml");
    return spec ? "" : spec.error().message;
  }
  std::string at(int line) {
    return (dir_.path() / "spec.toml").string() + ":" + std::to_string(line) + ": ";
  }
  store::TestTempDir dir_;
};

TEST(KernelSpec, TheShippedExamplesLoadWithTheirArgumentsInOrder) {
  auto gemv = load_kernel_spec(kSpecs / "gemv_f8/gemv_f8.toml");
  ASSERT_TRUE(gemv) << gemv.error().message;
  const KernelSpec& g = gemv.value();
  EXPECT_EQ(g.name, "gemv_f8");
  EXPECT_EQ(g.dims, (std::vector<std::string>{"N", "K"}));
  ASSERT_EQ(g.arguments.size(), 4u);
  EXPECT_EQ(g.arguments[1].name, "w");
  EXPECT_EQ(g.arguments[1].role, ArgumentRole::kWeight);
  EXPECT_EQ(g.arguments[1].type, ElementType::kF8e4m3);
  EXPECT_EQ(g.arguments[3].type, ElementType::kF32);
  EXPECT_EQ(g.extents(1, 0).value(), (std::vector<int64_t>{2048, 3840}));
  EXPECT_EQ(g.tolerance.atol, 1e-3);
  EXPECT_TRUE(g.reference.is_absolute());
  EXPECT_EQ(g.baselines.at("cpu").filename(), "gemv_f8_cpu.cc");
  ASSERT_EQ(g.designs.at("cpu").size(), 1u);

  auto kv = load_kernel_spec(kSpecs / "kv_append/kv_append.toml");
  ASSERT_TRUE(kv) << kv.error().message;
  EXPECT_TRUE(kv.value().arguments[1].shape.empty());  // the slot is a scalar
  EXPECT_EQ(kv.value().arguments[1].draw.kind, Draw::Kind::kBelow);
  EXPECT_EQ(kv.value().arguments[1].draw.below_dim, "T");
  auto norm = load_kernel_spec(kSpecs / "rmsnorm/rmsnorm.toml");
  ASSERT_TRUE(norm) << norm.error().message;
  EXPECT_EQ(norm.value().shapes.size(), 2u);
}

TEST_F(KernelSpecFile, AValidSpecLoadsAndScaledExtentsDivideOut) {
  EXPECT_EQ(error_of(kValid), "");
  std::string text = kValid;
  text += R"(
[[arguments]]
name = "blocks"
role = "output"
type = "bf16"
shape = ["N/16", "2*N", 3]
)";
  ASSERT_EQ(error_of(text), "");
  auto spec = load_kernel_spec(dir_.path() / "spec.toml");
  EXPECT_EQ(spec.value().extents(2, 0).value(), (std::vector<int64_t>{4, 128, 3}));
}

TEST_F(KernelSpecFile, BadSpecsAreRefusedWithTheFileAndLine) {
  auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  EXPECT_EQ(error_of("colour = \"red\"\n" + std::string(kValid)),
            at(1) +
                "unknown key 'colour' in a kernel spec (known: name, summary, dims, shapes, "
                "arguments, reference, generator, tolerance, bytes, baselines, designs)");
  EXPECT_EQ(
      error_of(replaced(kValid, "type = \"bf16\"", "type = \"fp16\"")),
      at(13) + "unknown type 'fp16' (known: f32, f16, bf16, f8e4m3, f8e5m2, nvfp4, int8, int32)");
  EXPECT_EQ(error_of(replaced(kValid, "role = \"input\"", "role = \"scratch\"")),
            at(12) + "unknown role 'scratch' (known: input, weight, output, inout, cache)");
  EXPECT_EQ(error_of(replaced(kValid, "shape = [\"N\"]\n\n", "shape = [\"M\"]\n\n")),
            at(14) + "'M' names no dimension (dims: N)");
  EXPECT_EQ(error_of(replaced(kValid, "shape = [\"N\"]\n\n", "shape = [\"N/48\"]\n\n")),
            at(10) + "argument 'x': 64/48 does not divide out at shape set 'small'");
  EXPECT_EQ(error_of(replaced(kValid, "reference = \"ref.c\"", "reference = \"missing.c\"")),
            at(3) + "'reference': " + (dir_.path() / "missing.c").string() + " does not exist");
  EXPECT_EQ(error_of(replaced(kValid, "name = \"out\"", "name = \"x\"")),
            at(16) + "argument 'x' is named twice");
  EXPECT_EQ(error_of(replaced(kValid, "role = \"output\"", "role = \"input\"")),
            at(10) + "no argument is written (an output, inout or cache)");
  EXPECT_EQ(error_of(replaced(kValid, "type = \"bf16\"", "type = \"int32\"")),
            at(10) + "integer argument 'x' needs a 'draw' (uniform, below or constant)");
  EXPECT_EQ(error_of(replaced(kValid, "type = \"f32\"", "type = \"nvfp4\"")),
            at(19) + "nvfp4 is an input format: a kernel cannot be judged on it");
  EXPECT_EQ(error_of(replaced(kValid, "N = 64", "N = 0")),
            at(8) + "dimension N must be a positive integer");
  EXPECT_EQ(error_of(replaced(kValid, "shape = [\"N\"]  # out",
                              "shape = [\"N\"]\ndraw = { normal = 1.0 }")),
            at(21) + "an output is written by the kernel: it takes no 'draw'");
  EXPECT_EQ(error_of(replaced(kValid, "tolerance = { atol = 0.01, rtol = 0.01 }", "")),
            at(1) + "missing 'tolerance = { atol = A, rtol = R }'");
  EXPECT_EQ(error_of(replaced(kValid, "shape = [\"N\"]\n\n",
                              "shape = [\"N\"]\ndraw = { uniform = [2, 1] }\n\n")),
            at(15) + "'uniform' needs LO < HI");
  EXPECT_EQ(error_of("name = \"x\"\n[[shapes\n"),
            at(2) + "Error while parsing table header: expected ']', saw '\\n'");
  EXPECT_EQ(error_of(replaced(kValid, "name = \"scale_row\"", "name = \"qkv\"")),
            "");  // a name; add refuses built-ins
  // Streams, bytes and codes.
  EXPECT_EQ(error_of(replaced(kValid, "shape = [\"N\"]\n\n", "shape = [\"N\"]\nstream = 0\n\n")),
            at(15) + "'stream' takes a positive integer");
  EXPECT_EQ(
      error_of(replaced(kValid, "shape = [\"N\"]\n\n", "shape = [\"N\"]\npass = \"raw\"\n\n")),
      at(15) + "unknown pass 'raw' (known: values, bytes)");
  EXPECT_EQ(
      error_of(replaced(kValid, "shape = [\"N\"]  # out", "shape = [\"N\"]\npass = \"bytes\"")),
      at(21) +
          "only inputs and weights pass as bytes: what a kernel writes is judged in "
          "values");
  EXPECT_EQ(error_of(replaced(kValid, "shape = [\"N\"]\n\n",
                              "shape = [\"N\"]\ndraw = { codes = true }\n\n")),
            at(15) + "'codes' draws every bit pattern: the argument's type must be nvfp4");
}

// `check_only` marks a shape set checked and never timed: true or false only, and never on every
// shape set of a spec.
TEST_F(KernelSpecFile, ACheckOnlyShapeSetIsReadAndAtLeastOneSetIsTimed) {
  std::string text = kValid;
  const std::string small = "[[shapes]]\nname = \"small\"\nN = 64\n";
  const std::string check_only_first =
      "[[shapes]]\nname = \"tiny\"\ncheck_only = true\nN = 16\n\n" + small;
  text.replace(text.find(small), small.size(), check_only_first);
  ASSERT_EQ(error_of(text), "");
  auto spec = load_kernel_spec(dir_.path() / "spec.toml");
  ASSERT_EQ(spec.value().shapes.size(), 2u);
  EXPECT_TRUE(spec.value().shapes[0].check_only);
  EXPECT_EQ(spec.value().shapes[0].dims, (std::vector<int64_t>{16}));
  EXPECT_FALSE(spec.value().shapes[1].check_only);
  EXPECT_EQ(spec.value().first_timed_shape(), 1u);

  // `false` is the default, written out.
  std::string written = text;
  written.replace(written.find("check_only = true"), 17, "check_only = false");
  ASSERT_EQ(error_of(written), "");
  EXPECT_FALSE(load_kernel_spec(dir_.path() / "spec.toml").value().shapes[0].check_only);
  EXPECT_EQ(load_kernel_spec(dir_.path() / "spec.toml").value().first_timed_shape(), 0u);

  // Anything but a boolean is refused at its line.
  for (const char* bad : {"check_only = 1", "check_only = \"true\"", "check_only = [true]"}) {
    std::string refused = text;
    refused.replace(refused.find("check_only = true"), 17, bad);
    EXPECT_EQ(error_of(refused), at(8) + "'check_only' takes true or false") << bad;
  }

  // Every shape set check-only: nothing to time, refused.
  std::string all = text;
  all.replace(all.find(small), small.size(),
              "[[shapes]]\nname = \"small\"\ncheck_only = true\nN = 64\n");
  EXPECT_EQ(error_of(all),
            at(6) +
                "every shape set is check_only: a kernel needs one to time (drop check_only from "
                "one)");
}

// Every draw's values must be ones its argument's type holds: a bound beyond it is refused at
// load, naming the argument, the draw, the value and the range, never stored saturated.
TEST_F(KernelSpecFile, ADrawMustStayWithinItsArgumentsType) {
  // kValid with `x` of `type` drawn by `draw` (line 15), at N = `n`.
  auto x_drawn = [](const std::string& type, const std::string& draw, int n = 64) {
    std::string text = kValid;
    text.replace(text.find("type = \"bf16\""), 13, "type = \"" + type + "\"");
    text.replace(text.find("shape = [\"N\"]\n\n"), 13, "shape = [\"N\"]\ndraw = " + draw + "\n");
    text.replace(text.find("N = 64"), 6, "N = " + std::to_string(n));
    return text;
  };
  for (const auto& [type, draw] : std::vector<std::pair<std::string, std::string>>{
           {"int8", "{ uniform = [-128, 127] }"},
           {"int8", "{ uniform = [-3, 3.0] }"},
           {"int8", "{ below = 128 }"},
           {"int8", "{ below = \"N\" }"},
           {"int8", "{ constant = -128 }"},
           {"int32", "{ uniform = [-2147483648, 2147483647] }"},
           {"int32", "{ below = 2147483648 }"},
           {"int32", "{ constant = 2147483647 }"},
           {"f8e4m3", "{ uniform = [-448, 448] }"},
           {"f8e5m2", "{ constant = -57344 }"},
           {"f16", "{ uniform = [0, 65504] }"},
           {"nvfp4", "{ uniform = [-6, 6] }"},
           {"bf16", "{ constant = 1e38 }"},
           {"f32", "{ uniform = [-1e38, 3e38] }"},
       }) {
    EXPECT_EQ(error_of(x_drawn(type, draw)), "") << type << " " << draw;
  }
  EXPECT_EQ(error_of(x_drawn("int8", "{ below = 256 }")),
            at(15) + "argument 'x': below = 256 draws up to 255, outside int8's range -128 to 127");
  EXPECT_EQ(error_of(x_drawn("int8", "{ below = \"N\" }", 300)),
            at(15) +
                "argument 'x': below = \"N\" draws up to 299 at shape set 'small' (N = 300), "
                "outside int8's range -128 to 127");
  EXPECT_EQ(error_of(x_drawn("int8", "{ constant = 128 }")),
            at(15) + "argument 'x': constant = 128 is outside int8's range -128 to 127");
  EXPECT_EQ(
      error_of(x_drawn("int8", "{ uniform = [-129, 0] }")),
      at(15) + "argument 'x': uniform = [-129, 0] reaches -129, outside int8's range -128 to 127");
  EXPECT_EQ(error_of(x_drawn("int8", "{ uniform = [0, 1.5] }")),
            at(15) +
                "argument 'x': uniform = [0, 1.5] has 1.5, not an integer: int8 holds the "
                "integers -128 to 127");
  EXPECT_EQ(error_of(x_drawn("int8", "{ constant = 0.5 }")),
            at(15) +
                "argument 'x': constant = 0.5 is not an integer: int8 holds the integers -128 to "
                "127");
  EXPECT_EQ(error_of(x_drawn("int8", "{ normal = 1.0 }")),
            at(15) + "an integer argument is drawn with 'uniform', 'below' or 'constant'");
  EXPECT_EQ(error_of(x_drawn("int32", "{ below = 2147483649 }")),
            at(15) +
                "argument 'x': below = 2147483649 draws up to 2147483648, outside int32's range "
                "-2147483648 to 2147483647");
  EXPECT_EQ(error_of(x_drawn("int32", "{ constant = -2147483649 }")),
            at(15) +
                "argument 'x': constant = -2147483649 is outside int32's range -2147483648 to "
                "2147483647");
  EXPECT_EQ(error_of(x_drawn("int32", "{ uniform = [0, 3000000000] }")),
            at(15) +
                "argument 'x': uniform = [0, 3000000000] reaches 3000000000, outside int32's "
                "range -2147483648 to 2147483647");
  EXPECT_EQ(error_of(x_drawn("f8e4m3", "{ uniform = [0, 1000] }")),
            at(15) +
                "argument 'x': uniform = [0, 1000] reaches 1000, outside f8e4m3's range -448 to "
                "448");
  EXPECT_EQ(error_of(x_drawn("f16", "{ constant = 70000 }")),
            at(15) + "argument 'x': constant = 70000 is outside f16's range -65504 to 65504");
  EXPECT_EQ(error_of(x_drawn("f16", "{ constant = inf }")),
            at(15) + "argument 'x': constant = inf is outside f16's range -65504 to 65504");
  EXPECT_EQ(error_of(x_drawn("nvfp4", "{ uniform = [-7, 6] }")),
            at(15) + "argument 'x': uniform = [-7, 6] reaches -7, outside nvfp4's range -6 to 6");
}

TEST_F(KernelSpecFile, StreamsBytesAndCodesAreReadAsWritten) {
  std::string text = kValid;
  text.replace(text.find("shape = [\"N\"]\n\n"), 13,
               "shape = [\"N\"]\nstream = 12\npass = \"bytes\"\n");
  text +=
      "\n[[arguments]]\nname = \"w\"\nrole = \"weight\"\ntype = \"nvfp4\"\n"
      "shape = [\"N\"]\ndraw = { codes = true }\n";
  ASSERT_EQ(error_of(text), "");
  const KernelSpec spec = load_kernel_spec(dir_.path() / "spec.toml").value();
  EXPECT_EQ(spec.arguments[0].stream, 12u);
  EXPECT_TRUE(spec.arguments[0].pass_bytes);
  EXPECT_EQ(spec.arguments[1].stream, 0u);  // its position + 1 when drawn
  EXPECT_FALSE(spec.arguments[1].pass_bytes);
  EXPECT_EQ(spec.arguments[2].draw.kind, Draw::Kind::kCodes);
}

TEST_F(KernelSpecFile, TheFilesOfASpecIncludeTheHeadersBesideItsSources) {
  write_file(dir_.path() / "spec.toml", kValid);
  write_file(dir_.path() / "shared_math.h", "/* included by ref.c */\n");
  write_file(dir_.path() / "notes.txt", "not a header\n");
  const auto files = spec_files(load_kernel_spec(dir_.path() / "spec.toml").value());
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(f.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"spec.toml", "ref.c", "shared_math.h"}));
}

}  // namespace
}  // namespace headway
