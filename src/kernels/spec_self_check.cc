#include "kernels/spec_self_check.h"

#include <fmt/format.h>

#include <cmath>

#include "kernels/verify.h"

namespace headway {

namespace {

// Writes the expected values, rounded to each region's type, where the kernel would write them.
void write_expected(SharedBuffers& buffers, const std::vector<ExpectedOutput>& expected) {
  for (const auto& e : expected) {
    const ElementType type = buffers.specs()[e.region].element;
    std::byte* base = buffers.bytes(e.region).data();
    for (size_t i = 0; i < e.values.size(); ++i)
      write_element(type, base, e.first_element + i, e.values[i]);
  }
}

}  // namespace

Result<void> self_check(const KernelContract& kernel, uint64_t seed) {
  SharedBuffers buffers(kernel.regions());
  kernel.generate(seed, buffers);
  const std::vector<ExpectedOutput> expected = kernel.reference(buffers);
  size_t judged = 0;
  for (const auto& e : expected) {
    const std::string& region = buffers.specs()[e.region].name;
    for (size_t i = 0; i < e.values.size(); ++i) {
      if (!std::isfinite(e.values[i])) {
        return invalid_input(fmt::format("the reference gives `{}`[{}] = {}: it must be finite",
                                         region, e.first_element + i, e.values[i]));
      }
    }
    judged += e.values.size();
  }
  if (judged == 0) return invalid_input("the reference writes nothing that could be judged");
  const Snapshot before = take_snapshot(buffers);
  poison_outputs(buffers, expected);
  write_expected(buffers, expected);
  if (auto v = verify(kernel, buffers, before, expected)) {
    return invalid_input(fmt::format(
        "outputs holding the reference's own values, rounded to their types, fail: {} (the "
        "tolerance is tighter than the output type holds)",
        v->describe()));
  }
  // One element off by half the output's root mean square must fail: a tolerance that lets it
  // pass cannot tell a wrong kernel from a right one.
  const ExpectedOutput& first = expected.front();
  const ElementType type = buffers.specs()[first.region].element;
  const Tolerance tol = kernel.tolerance();
  double sum_sq = 0;
  for (const double v : first.values) sum_sq += v * v;
  const double rms = std::sqrt(sum_sq / static_cast<double>(first.values.size()));
  const double e = first.values.front();
  const double wrong = e + (rms > 0 ? 0.5 * rms : 1.0);
  write_element(type, buffers.bytes(first.region).data(), first.first_element, wrong);
  if (!verify(kernel, buffers, before, expected)) {
    return invalid_input(fmt::format(
        "a wrong output passes: `{}`[{}] = {:.6g} where the reference says {:.6g} (atol {}, rtol "
        "{})",
        buffers.specs()[first.region].name, first.first_element,
        read_element(type, buffers.bytes(first.region).data(), first.first_element), e, tol.atol,
        tol.rtol));
  }
  return {};
}

}  // namespace headway
