#include "targets/cpu/runner/syscall_filter.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace headway::cpu::runner {

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
    // Names and metadata of files: with RLIMIT_FSIZE at 0 no file holds data, but a name, a mode
    // or a time stamp could still carry state from one child to the next.
    SCMP_SYS(creat),
    SCMP_SYS(mkdir),
    SCMP_SYS(mkdirat),
    SCMP_SYS(rmdir),
    SCMP_SYS(unlink),
    SCMP_SYS(unlinkat),
    SCMP_SYS(rename),
    SCMP_SYS(renameat),
    SCMP_SYS(renameat2),
    SCMP_SYS(link),
    SCMP_SYS(linkat),
    SCMP_SYS(symlink),
    SCMP_SYS(symlinkat),
    SCMP_SYS(mknod),
    SCMP_SYS(mknodat),
    SCMP_SYS(chmod),
    SCMP_SYS(fchmod),
    SCMP_SYS(fchmodat),
    SCMP_SYS(chown),
    SCMP_SYS(fchown),
    SCMP_SYS(lchown),
    SCMP_SYS(fchownat),
    SCMP_SYS(utime),
    SCMP_SYS(utimes),
    SCMP_SYS(futimesat),
    SCMP_SYS(utimensat),
    SCMP_SYS(setxattr),
    SCMP_SYS(lsetxattr),
    SCMP_SYS(fsetxattr),
    SCMP_SYS(removexattr),
    SCMP_SYS(lremovexattr),
    SCMP_SYS(fremovexattr),
};

}  // namespace

Status install_syscall_filter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return environment_error("cannot create the system-call filter");
  const auto self = static_cast<scmp_datum_t>(getpid());
  int rc = 0;
  for (int call : kKilled) rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, call, 0);
  // Threads only: a clone without CLONE_THREAD creates a process. clone3 hides its flags in
  // memory, so it answers ENOSYS and the C library falls back to clone.
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Opening may read what exists; creating a name is a way to leave state behind.
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(open), 1,
                          SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
  if (!rc)
    rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(openat), 1,
                          SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
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
    return environment_error(std::string("cannot install the system-call filter: ") +
                             std::strerror(-rc));
  }
  return {};
}

}  // namespace headway::cpu::runner
