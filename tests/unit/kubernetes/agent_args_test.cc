// The pod's agent arguments as the host makes them are what the agent parses: the egress relay
// (--egress-relay-tcp) is asked for exactly when the sandbox has allow_hosts.
#include <gtest/gtest.h>

#include <algorithm>

#include "agent/agent_options.h"
#include "kubernetes/manifest_inputs.h"
#include "manifest_fixtures.h"
#include "proto/agent_protocol.h"

namespace agentbox::kubernetes {
namespace {

bool HasRelayFlag(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), kAgentEgressRelayTcpFlag) != args.end();
}

TEST(KubernetesAgentArgs, TheEgressRelayOnlyWithAllowHosts) {
  SandboxSpec strict = testing::StrictSpec();
  EXPECT_FALSE(HasRelayFlag(AgentArgs(strict)));
  auto parsed = ParseAgentArgs(AgentArgs(strict));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_FALSE(parsed->egress_relay_tcp);

  SandboxSpec with_hosts = strict;
  with_hosts.allow_hosts = {"example.com"};
  EXPECT_TRUE(HasRelayFlag(AgentArgs(with_hosts)));
  parsed = ParseAgentArgs(AgentArgs(with_hosts));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->egress_relay_tcp);
  EXPECT_FALSE(parsed->listen_tcp.empty());
}

}  // namespace
}  // namespace agentbox::kubernetes
