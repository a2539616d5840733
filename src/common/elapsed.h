#pragma once
// Seconds on the steady clock since a point in time.
#include <chrono>

namespace headway {

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace headway
