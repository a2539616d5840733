#include "common/cache_flush.h"

#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace headway {

namespace {

constexpr uintptr_t kLine = 64;

#if defined(__x86_64__)
bool cpuid_has_clflushopt() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  constexpr unsigned kClflushoptBit = 1u << 23;  // CPUID.(EAX=7,ECX=0):EBX[23]
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & kClflushoptBit) != 0;
}

void flush_with_clflush(uintptr_t begin, uintptr_t end) {
  for (uintptr_t p = begin; p < end; p += kLine) _mm_clflush(reinterpret_cast<const void*>(p));
  _mm_mfence();
}

// Built for clflushopt whatever the build's -march: called only where the CPU has it.
__attribute__((target("clflushopt"))) void flush_with_clflushopt(uintptr_t begin, uintptr_t end) {
  for (uintptr_t p = begin; p < end; p += kLine) _mm_clflushopt(reinterpret_cast<void*>(p));
  // clflushopt is ordered by fences only: the fence makes every flush above complete before
  // anything after it (the caller resuming a stopped process, say).
  _mm_mfence();
}
#endif

}  // namespace

bool cpu_has(FlushInstruction instruction) {
#if defined(__x86_64__)
  static const bool clflushopt = cpuid_has_clflushopt();
  switch (instruction) {
    case FlushInstruction::kNone:
    case FlushInstruction::kClflush:
      return true;
    case FlushInstruction::kClflushopt:
      return clflushopt;
  }
  return false;
#else
  return instruction == FlushInstruction::kNone;
#endif
}

FlushInstruction best_flush_instruction() {
#if defined(__x86_64__)
  return cpu_has(FlushInstruction::kClflushopt) ? FlushInstruction::kClflushopt
                                                : FlushInstruction::kClflush;
#else
  return FlushInstruction::kNone;
#endif
}

std::string_view to_string(FlushInstruction instruction) {
  switch (instruction) {
    case FlushInstruction::kNone:
      return "none";
    case FlushInstruction::kClflush:
      return "clflush";
    case FlushInstruction::kClflushopt:
      return "clflushopt";
  }
  return "unknown";
}

void flush_lines(const std::byte* data, size_t bytes) {
  static const FlushInstruction best = best_flush_instruction();
  flush_lines(data, bytes, best);
}

void flush_lines(const std::byte* data, size_t bytes, FlushInstruction instruction) {
  if (!cpu_has(instruction)) {
    throw std::invalid_argument("flush_lines: this CPU has no " +
                                std::string(to_string(instruction)));
  }
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data) & ~(kLine - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(data) + bytes;
#if defined(__x86_64__)
  if (instruction == FlushInstruction::kClflushopt) {
    flush_with_clflushopt(begin, end);
  } else if (instruction == FlushInstruction::kClflush) {
    flush_with_clflush(begin, end);
  }
#else
  (void)begin;
  (void)end;
#endif
}

}  // namespace headway
