// The key of an MCP session shared between serve's replicas (mcp/session_key.h): a digest of the
// id that names its record in the cluster and labels its sandbox, never the id itself.
#include <gtest/gtest.h>

#include "mcp/session_key.h"

namespace agentbox::mcp {
namespace {

TEST(McpSessionKey, IsTheIdsSha256PrefixAndALabelValue) {
  // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
  EXPECT_EQ(SessionKey("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9c");
  const std::string id = "0123456789abcdef0123456789abcdef";
  const std::string key = SessionKey(id);
  EXPECT_EQ(key.size(), 48u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key.find(id), std::string::npos);
  EXPECT_NE(SessionKey(id + "0"), key);
  EXPECT_EQ(SessionKey(id), key);  // every replica computes the same
}

}  // namespace
}  // namespace agentbox::mcp
