// The pure parts of a pull through the daemon: references split into the API's repo and tag,
// and the first error of a JSON progress stream.
#include <gtest/gtest.h>

#include "docker/image_pull.h"

namespace agentbox::docker {
namespace {

TEST(DockerImagePullTest, SplitsReferences) {
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(SplitReference("python"), Pair("python", "latest"));
  EXPECT_EQ(SplitReference("python:3.11"), Pair("python", "3.11"));
  EXPECT_EQ(SplitReference("127.0.0.1:5000/tools"), Pair("127.0.0.1:5000/tools", "latest"));
  EXPECT_EQ(SplitReference("127.0.0.1:5000/tools:v1"), Pair("127.0.0.1:5000/tools", "v1"));
  EXPECT_EQ(SplitReference("reg:5000/a/b@sha256:abc"), Pair("reg:5000/a/b", "sha256:abc"));
}

TEST(DockerImagePullTest, FindsTheFirstStreamError) {
  EXPECT_EQ(FirstStreamError("{\"status\":\"Pulling\"}\n{\"status\":\"Done\"}\n"), "");
  EXPECT_EQ(
      FirstStreamError("{\"status\":\"x\"}\n{\"error\":\"manifest unknown\",\"errorDetail\":{}}\n"
                       "{\"error\":\"second\"}"),
      "manifest unknown");
  EXPECT_EQ(FirstStreamError("not json\n{\"error\":{\"code\":1}}"), "{\"code\":1}");
}

}  // namespace
}  // namespace agentbox::docker
