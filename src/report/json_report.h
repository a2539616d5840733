#pragma once
// The report as one JSON object, schema "headway-report/1" (docs/REPORT.md lists every field):
// the workspace's figures, then per kernel its figures, head history, nodes and acceptance
// tests with their readings and replayed wealth. Numbers that are unknown are null.
#include <nlohmann/json.hpp>

#include "report/report_model.h"

namespace headway::report {

inline constexpr const char* kReportSchema = "headway-report/1";

nlohmann::json to_json(const Report& report);

}  // namespace headway::report
