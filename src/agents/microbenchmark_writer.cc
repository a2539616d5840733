#include "agents/microbenchmark_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "agents/kernel_prompt.h"
#include "agents/prompt_template.h"
#include "agents/response_parse.h"
#include "common/stats.h"
#include "knowledge/text_lines.h"

namespace headway::agents {

std::string check_fact_to_measure(const FactToMeasure& fact) {
  if (fact.name.empty()) return "the fact needs a name";
  for (const char c : fact.name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return fmt::format("fact name '{}': only letters, digits, '.', '_' and '-'", fact.name);
  }
  if (fact.unit.empty()) return "the fact needs a unit (e.g. GB/s, ns, cycles)";
  for (const char c : fact.unit) {
    if (std::iscntrl(static_cast<unsigned char>(c)))
      return "the fact's unit has a control character";
  }
  if (fact.description.find_first_not_of(" \t\r\n") == std::string::npos)
    return "the fact needs a description: what it means, for whoever writes the benchmark";
  return "";
}

Readings parse_readings(std::string_view output) {
  Readings r;
  const std::vector<std::string> lines = knowledge::split_lines(output);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    line.remove_suffix(line.size() - (line.find_last_not_of(" \t\r") + 1));
    constexpr std::string_view kWord = "reading ";
    if (line.substr(0, kWord.size()) != kWord) continue;
    std::string_view number = line.substr(kWord.size());
    number.remove_prefix(std::min(number.find_first_not_of(' '), number.size()));
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || ptr != number.data() + number.size() || !std::isfinite(v)) {
      r.malformed = fmt::format("line {}: '{}' is not `reading <finite number>`", i + 1,
                                std::string(line.substr(0, 80)));
      return r;
    }
    r.values.push_back(v);
  }
  if (r.values.size() < static_cast<size_t>(kMinReadings)) {
    r.malformed = fmt::format("{} `reading <number>` lines, at least {} needed", r.values.size(),
                              kMinReadings);
  }
  return r;
}

namespace {

// Why one program did not measure the fact, for the next attempt's prompt and the ledger.
std::string run_failure(const targets::MicrobenchmarkOutcome& run, const Readings& readings) {
  using Status = targets::MicrobenchmarkOutcome::Status;
  const std::string tail = cut_to(run.output, 4000);
  switch (run.status) {
    case Status::kBuildFailed:
      return "It did not build:\n```\n" + tail + "\n```";
    case Status::kRunFailed:
      return fmt::format("It {}. Its output:\n```\n{}\n```", run.failure, tail);
    case Status::kUnsupported:
      return run.failure;
    case Status::kRan:
      break;
  }
  return fmt::format("Its readings are unusable: {}. Its output:\n```\n{}\n```", readings.malformed,
                     tail);
}

}  // namespace

MicrobenchmarkResult write_microbenchmark(AgentLedger& ledger, store::Workspace& ws,
                                          targets::Target& target, const std::string& toolchain,
                                          const FactToMeasure& fact,
                                          const MicrobenchmarkOptions& options,
                                          const loop::ProposerLog& log) {
  MicrobenchmarkResult result;
  const auto say = [&](const std::string& line) {
    if (log) log(fmt::format("microbenchmark ({}): {}", fact.name, line));
  };
  if (std::string bad = check_fact_to_measure(fact); !bad.empty()) {
    result.failure = bad;
    return result;
  }
  const std::string language = target.microbenchmark_language();
  if (language.empty()) {
    result.failure = fmt::format("the {} target cannot run microbenchmarks", target.name());
    return result;
  }
  const auto known = knowledge::list_facts(ws, toolchain);
  for (const auto& f : known) {
    if (f.name == fact.name && f.method.rfind(kAgentMethodPrefix, 0) != 0) {
      result.failure = fmt::format(
          "{} is measured by the {} target's own microbenchmarks ({}); choose another name",
          fact.name, target.name(), f.method);
      return result;
    }
  }
  nlohmann::json facts = nlohmann::json::array();
  for (const auto& f : known) {
    if (f.name == fact.name) continue;
    facts.push_back(
        {{"name", f.name}, {"value", fmt::format("{:.6g}", f.value)}, {"unit", f.unit}});
  }
  const std::string skeleton = "// the microbenchmark: prints `reading <number>` per reading\n";
  std::string previous_source, previous_failure;
  for (int attempt = 1; attempt <= std::max(1, options.attempts); ++attempt) {
    const nlohmann::json data = {{"target", target.name()},
                                 {"toolchain", target.identity().version},
                                 {"language", language},
                                 {"timeout_s", fmt::format("{:g}", options.timeout_s)},
                                 {"min_readings", kMinReadings},
                                 {"fact_name", fact.name},
                                 {"fact_unit", fact.unit},
                                 {"fact_description", fact.description},
                                 {"facts", facts},
                                 {"has_previous", !previous_failure.empty()},
                                 {"previous_source", cut_to(previous_source, 12000)},
                                 {"previous_failure", previous_failure}};
    AgentRequest request;
    request.role = "microbenchmark";
    request.prompt = render_template(load_template(options.prompts_dir, "microbenchmark"), data,
                                     options.prompts_dir);
    request.files = {{"bench.cc", skeleton}};
    CallRecord call;
    try {
      call = ledger.call(request);
    } catch (const BudgetSpent& e) {
      result.failure = e.what();
      say(result.failure);
      return result;
    }
    ++result.calls;
    if (call.error) {
      result.failure = fmt::format("{}: {}", to_string(call.error->kind()), call.error->what());
      say(result.failure);
      return result;
    }
    std::string source;
    if (const auto edited = call.reply->files.find("bench.cc");
        edited != call.reply->files.end() && edited->second != skeleton) {
      source = edited->second;
    } else {
      const ParsedCode code = extract_code(call.reply->text);
      if (!code.ok()) {
        ledger.set_outcome(call.id, "malformed", code.malformed);
        previous_source.clear();
        previous_failure = "Your answer held no usable program: " + code.malformed;
        result.failure = previous_failure;
        say("malformed: " + code.malformed);
        continue;
      }
      source = code.code;
    }
    const targets::MicrobenchmarkOutcome run =
        target.run_microbenchmark(source, options.cache_dir, options.timeout_s);
    const Readings readings = run.status == targets::MicrobenchmarkOutcome::Status::kRan
                                  ? parse_readings(run.output)
                                  : Readings{{}, "did not run"};
    if (!readings.ok()) {
      previous_source = source;
      previous_failure = run_failure(run, readings);
      const std::string outcome =
          run.status == targets::MicrobenchmarkOutcome::Status::kBuildFailed ? "build-failed"
          : run.status == targets::MicrobenchmarkOutcome::Status::kRan       ? "malformed"
                                                                             : "run-failed";
      const std::string first_line = previous_failure.substr(0, previous_failure.find('\n'));
      ledger.set_outcome(call.id, outcome, first_line);
      result.failure = first_line;
      say(fmt::format("attempt {}: {}", attempt, first_line));
      continue;
    }
    const auto stored_source = ws.artifacts().put(source);
    knowledge::Fact f;
    f.name = fact.name;
    f.toolchain = toolchain;
    f.value = median(readings.values);
    f.unit = fact.unit;
    f.spread = 100.0 * coefficient_of_variation(readings.values);
    f.method = fmt::format("{} (call {}, {} {}): median of {} readings in {:.1f} s; source {}",
                           kAgentMethodPrefix, call.id, ledger.agent().provider(),
                           call.reply->model, readings.values.size(), run.seconds,
                           stored_source ? *stored_source : "not stored");
    knowledge::store_fact(ws, f);
    ledger.set_outcome(call.id, "fact", fmt::format("{} = {:.6g} {}", f.name, f.value, f.unit));
    say(fmt::format("{} = {:.6g} {} (median of {})", f.name, f.value, f.unit,
                    readings.values.size()));
    result.fact = knowledge::find_fact(ws, fact.name, toolchain);
    result.failure.clear();
    return result;
  }
  return result;
}

}  // namespace headway::agents
