#pragma once
// For tests: processes in known states.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

namespace headway {

// The pid of a process that has exited and been reaped (no process has it, until the pid is
// reused).
inline int64_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

}  // namespace headway
