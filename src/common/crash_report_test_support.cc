// Every test process reports the signal it dies of, with its stack (common/crash_report.h): a
// test that crashes once on a machine nobody can reach shows where.
#include "common/crash_report.h"

namespace {

const bool kCrashReportInstalled = (headway::install_crash_report("headway_tests"), true);

}  // namespace
