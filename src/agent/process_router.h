// PID 1's table of the sandbox's background processes, and the router of their requests.
//
// A handler that starts a detached exec registers it here and becomes its keeper
// (agent/process_keeper.h); a handler serving a request about a process gives the client's
// connection here, and PID 1 passes it on to the keeper on the keeper's control socket. PID 1
// keeps only ids, keepers and the last info each keeper reported; a keeper that dies (a
// container's command can kill it: same uid) leaves its process listed as lost.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sys/unique_fd.h"

namespace agentbox {

class ProcessRouter {
 public:
  // A message from handler `from` on its control socket `control`. Returns the answer to send
  // back, if any; *release is set to a keeper PID 1 must let go of (close its control socket):
  // the oldest exited process, making room for a new one.
  std::optional<nlohmann::json> OnMessage(pid_t from, int control, const nlohmann::json& message,
                                          UniqueFd fd, pid_t* release);
  // Handler `pid` has been reaped.
  void OnHandlerGone(pid_t pid);
  // Whether `pid` keeps a background process (its connection is no longer PID 1's to answer).
  bool IsKeeper(pid_t pid) const;

 private:
  struct Entry {
    std::string id;
    pid_t keeper = -1;  // -1: gone
    int control = -1;   // the keeper's control socket (the agent owns it)
    nlohmann::json info;
    bool exited = false;
  };

  nlohmann::json Register(pid_t from, int control, const nlohmann::json& info, pid_t* release);
  nlohmann::json Route(const nlohmann::json& message, UniqueFd conn);
  nlohmann::json List() const;
  Entry* Find(const std::string& id);

  std::vector<Entry> entries_;  // in start order
  unsigned long next_id_ = 1;
};

}  // namespace agentbox
