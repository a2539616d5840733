#include "targets/cuda/runner/options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "common/cache_dir.h"

namespace headway::cuda_runner {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "headway-cuda-runner: %s\n", why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("a mode is needed: info, check, serve or facts");
  o.mode = argv[1];
  for (int i = 2; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) usage(key + " needs a value");
    const std::string value = argv[i + 1];
    try {
      if (key == "--kernel")
        o.kernel = value;
      else if (key == "--spec")
        o.spec = value;
      else if (key == "--shape-set")
        o.shape_set = value;
      else if (key == "--module")
        o.modules.push_back(value);
      else if (key == "--seed")
        o.seed = std::stoull(value);
      else if (key == "--sets")
        o.sets = std::max(2, std::stoi(value));
      else if (key == "--readings")
        o.readings = std::max(3, std::stoi(value));
      else
        usage("unknown option " + key);
    } catch (const std::logic_error&) {
      usage(key + " takes a number, not '" + value + "'");
    }
  }
  return o;
}

cuda::LoadedKernel kernel_of(const Options& o) {
  auto loaded = cuda::load_runner_kernel(o.kernel, o.spec, o.shape_set, build_cache_dir());
  if (!loaded) usage(loaded.error().message);
  return std::move(loaded).value();
}

}  // namespace headway::cuda_runner
