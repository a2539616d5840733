#include "targets/target.h"

#include "targets/error_diagnostics.h"

namespace headway::targets {

Diagnostic Target::normalize_diagnostic(std::string_view diagnostics) const {
  return {targets::normalize_diagnostic(diagnostics), first_error_line(diagnostics)};
}

}  // namespace headway::targets
