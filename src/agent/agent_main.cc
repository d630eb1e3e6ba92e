// agentbox-agent: PID 1 of every persistent sandbox. See agent/agent_server.cc.
//
//   agentbox-agent                 a native sandbox: serves the listening socket inherited as fd 3
//   agentbox-agent --listen PATH   a box agentbox did not build (docker): binds PATH itself
//   agentbox-agent --listen-tcp HOST:PORT --token-file PATH
//                                  a pod (kubernetes): listens on TCP, every connection's hello
//                                  carries the token read once from PATH (proto/agent_hello.h)
//   agentbox-agent --listen-tcp HOST:PORT --token-by-claim
//                                  a pod of a shared SandboxTemplate: no token until the first
//                                  claim hello sets it (agent/hello_gate.h)
#include <cstdio>
#include <string>
#include <vector>

#include "agent/agent_options.h"
#include "agent/agent_server.h"

int main(int argc, char** argv) {
  auto options = agentbox::ParseAgentArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!options.ok()) {
    std::fprintf(stderr, "agentbox-agent: %s\n%s\n", options.status().message().c_str(),
                 agentbox::kAgentUsage);
    return 2;
  }
  // Before anything listens: an agent that could not check its clients must never serve any.
  if (auto read = agentbox::ReadAgentToken(&*options); !read.ok()) {
    std::fprintf(stderr, "agentbox-agent: %s\n", read.message().c_str());
    return 2;
  }
  return agentbox::RunAgent(*options);
}
