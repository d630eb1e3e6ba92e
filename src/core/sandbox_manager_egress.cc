// SandboxManager's egress proxies beyond create: a sandbox with allow_hosts used through a state
// dir whose proxy for it is gone, or never was (kubernetes: adopted from another state dir or
// serve replica, or its proxy ended with its relay's background listener), gets one on this host
// before its command runs (Backend::ResumeEgress), under the sandbox dir's lock so that
// concurrent execs, of this process or another on the same state dir, start one between them.
#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>

#include "core/sandbox_manager.h"
#include "sys/unique_fd.h"

namespace agentbox {

StatusOr<SandboxRecord> SandboxManager::WithEgress(const SandboxRecord& record) {
  // Elsewhere the proxy is made with the box and ends with it: the record says it all.
  if (record.spec.allow_hosts.empty() || !Adopts(record.backend)) return record;
  AB_ASSIGN_OR_RETURN(Backend * backend, BackendFor(record.backend));
  UniqueFd dir(::open(record.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return NotFound("no such sandbox: " + record.id);  // removed meanwhile
  while (::flock(dir.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return ErrnoStatus("lock " + record.state_dir);
  }
  // Read again under the lock: another exec may have started the proxy since `record` was read.
  AB_ASSIGN_OR_RETURN(SandboxRecord current, store_.Load(record.id));
  const pid_t before = current.egress_pid;
  const uint64_t before_start = current.egress_start_time;
  if (Status st = backend->ResumeEgress(current); !st.ok()) {
    return Status(st.code(), "sandbox " + record.id +
                                 ": its egress proxy (allow_hosts) could not start on this "
                                 "host, so nothing was run: " +
                                 st.message());
  }
  if (current.egress_pid != before || current.egress_start_time != before_start) {
    // Kept so that rm, gc and a stale record's drop through this state dir end it.
    AB_RETURN_IF_ERROR(store_.Save(current));
  }
  return current;
}

}  // namespace agentbox
