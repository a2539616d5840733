#pragma once
// The system-call filter a runner child installs before it loads candidate code. Candidate code
// may compute, allocate, read files the sandbox shows it and start threads; it may not create
// processes, run programs, open sockets, trace or signal other processes, share System V memory,
// change namespaces, or create, rename, remove or change the metadata of files. (The runner also
// sets RLIMIT_FSIZE to 0: no child can leave data, a name or a mark in a file for the next one.)
// A forbidden call kills the whole child with SIGSYS, which headway reports as such.
#include "common/result.h"

namespace headway::cpu::runner {

// Installs the filter in the calling process (all its threads from now on). An environment
// error when the filter cannot be installed.
Status install_syscall_filter();

// The reason headway gives for a child killed with SIGSYS.
inline constexpr const char* kForbiddenCallReason =
    "was killed by the system-call filter (it tried to create a process, run a program, open a "
    "socket, create, rename or remove a file, or signal or trace another process)";

}  // namespace headway::cpu::runner
