#pragma once
// Writing lines back to memory and out of every cache, with the cheapest instruction the CPU
// offers for it. On some chips the difference is large: on a 2-vCPU Intel Xeon (family 6, model
// 207) `clflush` over 256 MiB ran at 0.4 GB/s and `clflushopt` at 20 GB/s, because each `clflush`
// waits for the one before it and `clflushopt`s overlap.
#include <cstddef>
#include <string_view>

namespace headway {

enum class FlushInstruction {
  kNone,        // not an x86-64 build: nothing flushes (callers that need cold data must know)
  kClflush,     // every x86-64 chip
  kClflushopt,  // where CPUID leaf 7 reports it
};

// The instruction flush_lines uses on this CPU: clflushopt where the CPU has it, else clflush.
FlushInstruction best_flush_instruction();
// Whether this CPU can run `instruction` (kNone: always).
bool cpu_has(FlushInstruction instruction);
std::string_view to_string(FlushInstruction instruction);

// Writes every cache line of [data, data + bytes) back to memory and out of every cache, and
// returns once every such write has completed (a fence after the last flush). Uses
// best_flush_instruction().
void flush_lines(const std::byte* data, size_t bytes);
// As above with a given instruction, which the CPU must have (cpu_has); for measuring each.
void flush_lines(const std::byte* data, size_t bytes, FlushInstruction instruction);

}  // namespace headway
