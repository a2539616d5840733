#pragma once
// Files whose pages the kernel may back with 2 MiB pages, for the large shared buffers a fresh
// runner child maps for every reading. A child pays for every page it maps (a fault and, under a
// hypervisor, an exit for the first touch: 60-70 ms for 141 MiB of 4 KiB pages on one VM, 2 ms
// for 2 MiB pages), and a kernel streaming its weights misses the TLB on every 4 KiB page.
// memfd_create's pages come from the kernel's own tmpfs mount, which many distributions keep on
// 4 KiB pages (/sys/kernel/mm/transparent_hugepage/shmem_enabled "never"); a tmpfs mounted with
// huge=always follows its own option unless that setting is "deny" or the kernel has no THP.
#include <cstddef>

#include "common/result.h"

namespace headway {

// A read-write, close-on-exec descriptor of a new unlinked file of `bytes` on a tmpfs mounted
// with huge=always in a user and mount namespace of a short-lived child: no privilege is needed
// where unprivileged user namespaces are allowed, and the file and its mount live as long as a
// descriptor or mapping of the file. An environment error says which step failed and why.
Result<int> huge_page_file(size_t bytes);

// The share of [data, data + bytes) mapped with 2 MiB pages in this process (ShmemPmdMapped or
// FilePmdMapped of the mapping in /proc/self/smaps), in [0, 1]; 0 when it cannot be read.
double huge_page_share(const void* data, size_t bytes);

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

}  // namespace headway
