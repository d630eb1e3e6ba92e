// RunNetwork: what `agentbox run` puts in its sandbox's network namespace before the command
// runs, and what it saw there afterwards.
//
// Always: the DNS catcher (proc/dns_catcher.h) on the sandbox's 127.0.0.1:53, served by a thread
// of this process for the run's life, so a lookup the command makes is answered REFUSED at once
// and named in the result. With allow_hosts: the run's own egress proxy (egress/proxy.h),
// reached through a listener on the sandbox's 127.0.0.1:3128 (egress/proxy_process.h). Both are
// made by one thread that enters the namespace (sys/netns.h) between clone and the sandbox's
// first step, so they exist before the command does. The proxy ends when this process hangs up.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <thread>

#include "base/status.h"
#include "egress/proxy_process.h"
#include "native/launch.h"
#include "proc/dns_catcher.h"
#include "proto/exec_result.h"
#include "spec/sandbox_spec.h"
#include "sys/unique_fd.h"

namespace agentbox {

class RunNetwork {
 public:
  RunNetwork() = default;
  RunNetwork(const RunNetwork&) = delete;
  RunNetwork& operator=(const RunNetwork&) = delete;
  ~RunNetwork();

  // Starts the proxy when spec has allow_hosts, and sets request's extra_env (the proxy
  // variables) and before_release (what is made in the namespace).
  Status Start(const SandboxSpec& spec, LaunchRequest& request);
  // Once the command is over: the proxy's report (egress false without one) and the names the
  // catcher saw. Stops both.
  NetworkReport Finish();

 private:
  Status OpenInNamespace(pid_t child);
  void ServeCatcher();
  void Stop();

  bool egress_ = false;
  pid_t proxy_pid_ = -1;
  UniqueFd control_;
  std::optional<egress::ExecChannel> channel_;
  std::unique_ptr<DnsCatcher> catcher_;
  UniqueFd stop_;  // an eventfd: written when the catcher's thread must end
  std::thread catcher_thread_;
};

}  // namespace agentbox
