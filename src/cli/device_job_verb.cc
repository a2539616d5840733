// `headway device-job --request JSON`: one job of a cpu or cuda run's device pool, run on the
// worker's node (targets/remote/device_job.h has the request and the reply).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "common/cache_dir.h"
#include "kernels/spec_kernel.h"
#include "targets/registry/registry.h"
#include "targets/remote/device_job.h"

namespace headway::cli {

namespace {

int run_device_job_verb(const std::string& text) {
  const auto request = nlohmann::json::parse(text, nullptr, false);
  if (!request.is_object()) throw UsageError("--request is not a JSON object");
  const std::string name = request.value("target", "");
  if (name != "cpu" && name != "cuda")
    throw UsageError(fmt::format("device jobs are for the cpu and cuda targets, not '{}'", name));
  if (request.value("sandbox_disabled", false)) sandbox::set_mode(sandbox::Mode::kDisabled);
  auto target = targets::make_target(name, request.value("toolchain", ""));
  if (request.value("one_core", false)) {
    if (const std::string why = target->time_on_one_core(true); !why.empty())
      throw EnvironmentError(why);
  }
  std::unique_ptr<KernelContract> spec;
  const KernelContract* kernel = nullptr;
  if (request.contains("kernel")) {
    const auto& k = request["kernel"];
    const std::string kernel_name = k.value("name", "");
    if (k.contains("spec")) {
      auto loaded =
          load_spec_kernel(k.value("spec", ""), build_cache_dir(), k.value("shape_set", ""));
      if (!loaded) throw EnvironmentError(loaded.error().message);
      spec = std::move(loaded).value();
      kernel = spec.get();
    } else {
      kernel = builtin_kernel(kernel_name);
      if (!kernel) throw UsageError(fmt::format("unknown kernel '{}'", kernel_name));
    }
  }
  nlohmann::json reply;
  try {
    reply = remote::run_device_job(*target, kernel, request);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::cout << reply.dump() << std::endl;
  return 0;
}

}  // namespace

void add_device_job(CLI::App& app, int* exit_code) {
  auto text = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "device-job",
      "Run one piece of a cpu or cuda run's device work on this machine and print its JSON "
      "reply (a device pool's worker starts it; docs/POOL.md)");
  cmd->add_option("--request", *text, "the job, a JSON object")->required();
  cmd->callback(
      [text, exit_code] { run_verb(exit_code, [&] { return run_device_job_verb(*text); }); });
}

}  // namespace headway::cli
