#include "common/result.h"

namespace headway {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput:
      return "invalid input";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kEnvironment:
      return "environment";
    case ErrorCode::kDatabase:
      return "database";
  }
  return "unknown";
}

}  // namespace headway
