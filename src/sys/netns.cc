#include "sys/netns.h"

#include <sched.h>

#include <thread>

#include "sys/loopback.h"

namespace agentbox::sys {

Status InNetworkNamespace(int netns_fd, const std::function<Status()>& fn) {
  Status result;
  std::thread([&] {
    if (::setns(netns_fd, CLONE_NEWNET) != 0) {
      result = ErrnoStatus("enter the sandbox's network");
    } else if (!BringUpLoopback()) {
      result = ErrnoStatus("bring up the sandbox's lo");
    } else {
      result = fn();
    }
  }).join();
  return result;
}

}  // namespace agentbox::sys
