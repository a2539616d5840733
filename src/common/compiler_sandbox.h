#pragma once
// What every target's compiler run in the sandbox shares: the limits it runs under, and how to
// tell that the compiler was missing from the sandbox.
#include <string>

#include "common/sandbox.h"
#include "common/subprocess.h"

namespace headway {

// The limits a build runs under: 4 GiB of address space, 120 s of CPU time, 256 MiB per file.
sandbox::Limits compiler_limits();

// bwrap's own message when the program it was to run does not exist in the sandbox, e.g.
// "execvp /opt/gcc/bin/g++: No such file or directory"; empty for any other failure.
std::string sandbox_exec_failure(const ProcessResult& r);

}  // namespace headway
