#pragma once
// The sim target's kernel landscape: what a simulated candidate "source" builds to, whether it is
// correct and how fast it truly is, all a deterministic function of its text. A sim source is any
// text; lines of the forms below (anywhere, leading spaces allowed) steer the model:
//   #define P_NAME value             a parameter value (a design library candidate starts so)
//   sim-x F                          true time = F x the kernel's sim baseline time (F > 0)
//   sim-best P_NAME v PENALTY        time x (1 + PENALTY x |log2(P_NAME / v)|)
//   sim-build-error MESSAGE          does not build: "candidate.sim:L:1: error: MESSAGE"
//   sim-wrong | sim-crash | sim-hang the built candidate computes wrong results, crashes, hangs
//   sim-cheat                        it passes its check and reads as fast as its factor says,
//                                    but the verification of its timed calls finds it out
//   sim-cost C                       the toolchain's cost model believes C instead of F
//   sim-cost-best P_NAME v PENALTY   and this penalty for P_NAME instead of its sim-best one
// Each of sim-build-error, sim-wrong, sim-crash, sim-hang and sim-cheat may end in
// "when P_NAME=v" (it then applies only with that value). Without sim-x, F is drawn from the
// text's hash, uniform in [0.8, 1.2).
//
// Every source that builds has a static cost (Target::static_cost), a factor of the baseline's:
// C (else F) times the parameters' penalties (sim-cost-best's where a parameter has one, else
// sim-best's), times an error of the cost model drawn from the text's hash, uniform in
// [0.93, 1.07). sim-cost and sim-cost-best make a design whose static cost misleads.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace headway::sim {

struct SimModel {
  enum class Behaviour { kCorrect, kWrong, kCrash, kHang } behaviour = Behaviour::kCorrect;
  std::optional<std::string> build_error;  // the diagnostic, when it does not build
  double time_factor = 1.0;                // true time over the kernel's sim baseline time
  double static_cost = 1.0;                // what the cost model predicts, the same way
  std::map<std::string, int> params;       // the #define P_ values
  bool cheats = false;                     // sim-cheat: breaks a rule of timing
};

SimModel simulate_source(std::string_view source);

std::string_view to_string(SimModel::Behaviour behaviour);  // "correct", "wrong", "crash", "hang"

}  // namespace headway::sim
