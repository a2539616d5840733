// Fuzzes load_kernel_spec (kernels/kernel_spec.h) on arbitrary TOML text, as `headway kernel check
// SPEC` reads it: the TOML parser, every key's validation, the shapes at every shape set.
// Invariants: it returns a spec or one error line "FILE:LINE: ..." naming the file, never throws,
// and a spec it returns has every argument's extents defined at every shape set.
#include <unistd.h>

#include <fstream>
#include <string>

#include "fuzz_support.h"
#include "kernels/kernel_spec.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = "/tmp/headway-fuzz-spec-" + std::to_string(getpid());
  static const std::string path = [] {
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/ref.c") << "/* a reference */\n";
    return dir + "/spec.toml";
  }();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto spec = load_kernel_spec(path);
  if (!spec.ok()) {
    const std::string& message = spec.error().message;
    FUZZ_CHECK(message.rfind(path, 0) == 0 || message.rfind(dir, 0) == 0);
    FUZZ_CHECK(message.find('\n') == std::string::npos);
    return 0;
  }
  const KernelSpec& k = spec.value();
  FUZZ_CHECK(!k.shapes.empty() && !k.arguments.empty());
  for (size_t a = 0; a < k.arguments.size(); ++a) {
    for (size_t s = 0; s < k.shapes.size(); ++s) FUZZ_CHECK(k.extents(a, s).ok());
  }
  return 0;
}
