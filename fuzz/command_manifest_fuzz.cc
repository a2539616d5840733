// Fuzzes parse_manifest (targets/command/pack_manifest.h) on arbitrary TOML text, as `headway init
// --target command --manifest FILE` reads it: the TOML parser, the validation of every key and
// command, and each output parser run on the example output it carries. Invariants: it returns
// a manifest or one error line "FILE:LINE: ..." naming the file, and never throws.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "fuzz_support.h"
#include "targets/command/pack_manifest.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path =
      "/tmp/headway-fuzz-manifest-" + std::to_string(getpid()) + ".toml";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto m = command::parse_manifest(path);
  if (!m.ok()) {
    const std::string& message = m.error().message;
    FUZZ_CHECK(!message.empty());
    FUZZ_CHECK(message.rfind(path, 0) == 0);
    FUZZ_CHECK(message.find('\n') == std::string::npos);
    return 0;
  }
  FUZZ_CHECK(m.value().command("build") != nullptr);
  (void)m.value().seconds_per_unit();
  return 0;
}
