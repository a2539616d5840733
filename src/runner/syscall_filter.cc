#include "runner/syscall_filter.h"

#include <sched.h>
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace headway::runner {

namespace {

constexpr int kKilled[] = {
    SCMP_SYS(fork),
    SCMP_SYS(vfork),
    SCMP_SYS(execve),
    SCMP_SYS(execveat),
    SCMP_SYS(socket),
    SCMP_SYS(ptrace),
    SCMP_SYS(process_vm_readv),
    SCMP_SYS(process_vm_writev),
    SCMP_SYS(pidfd_open),
    SCMP_SYS(pidfd_send_signal),
    SCMP_SYS(pidfd_getfd),
    SCMP_SYS(tkill),
    SCMP_SYS(unshare),
    SCMP_SYS(setns),
    SCMP_SYS(mount),
    SCMP_SYS(chroot),
    SCMP_SYS(kexec_load),
    SCMP_SYS(bpf),
    SCMP_SYS(perf_event_open),
    SCMP_SYS(userfaultfd),
    SCMP_SYS(io_uring_setup),
    SCMP_SYS(shmget),
    SCMP_SYS(msgget),
    SCMP_SYS(semget),
};

}  // namespace

bool install_syscall_filter(std::string* error) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    *error = "cannot create the system-call filter";
    return false;
  }
  const auto self = static_cast<scmp_datum_t>(getpid());
  int rc = 0;
  for (int call : kKilled) rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, call, 0);
  // Threads only: a clone without CLONE_THREAD creates a process. clone3 hides its flags in
  // memory, so it answers ENOSYS and the C library falls back to clone.
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Signals only to itself (raise, abort, pthread_kill).
  if (!rc)
    rc =
        seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, self));
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(tgkill), 1,
                          SCMP_A0(SCMP_CMP_NE, self));
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(rt_sigqueueinfo), 1,
                          SCMP_A0(SCMP_CMP_NE, self));
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(rt_tgsigqueueinfo), 1,
                          SCMP_A0(SCMP_CMP_NE, self));
  if (!rc) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc) {
    *error = std::string("cannot install the system-call filter: ") + std::strerror(-rc);
    return false;
  }
  return true;
}

}  // namespace headway::runner
