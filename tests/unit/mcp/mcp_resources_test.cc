// Workspace files as resources, the pure part (mcp/resources.h), and base64 (http/base64.h).
#include <gtest/gtest.h>

#include "base/base64.h"
#include "mcp/resources.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

TEST(McpResourcesTest, UrisRoundTrip) {
  for (const char* path : {"a.txt", "src/main.c", "a b/c%d.txt", "ünï/x", "x/.hidden"}) {
    std::string uri = WorkspaceUri(path);
    EXPECT_EQ(uri.rfind("file:///workspace/", 0), 0u) << uri;
    EXPECT_EQ(uri.find(' '), std::string::npos) << uri;
    auto back = WorkspacePathOfUri(uri);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(*back, std::string("/workspace/") + path);
  }
  EXPECT_EQ(WorkspaceUri("a b"), "file:///workspace/a%20b");
}

TEST(McpResourcesTest, UrisOutsideTheWorkspaceAreRefused) {
  for (const char* uri :
       {"file:///etc/passwd", "file:///workspace/../etc/passwd", "file:///workspace/a/%2e%2e/../x",
        "file:///workspace/a%00b", "file:///workspace/a%zz", "file:///workspace/a%2",
        "http://x/workspace/a", "file:///workspace/a?x=1", "file:///workspacex/a"}) {
    EXPECT_EQ(WorkspacePathOfUri(uri).status().code(), StatusCode::kInvalidArgument) << uri;
  }
}

TEST(McpResourcesTest, TextOrBlob) {
  json text = ResourceContents("file:///workspace/a.md", "/workspace/a.md", "# hi\n");
  EXPECT_EQ(text["text"], "# hi\n");
  EXPECT_EQ(text["mimeType"], "text/markdown");
  EXPECT_FALSE(text.contains("blob"));
  json png =
      ResourceContents("file:///workspace/i.png", "/workspace/i.png", std::string("\x89PNG\0", 5));
  EXPECT_EQ(png["mimeType"], "image/png");
  EXPECT_EQ(png["blob"], Base64Encode(std::string("\x89PNG\0", 5)));
  json odd = ResourceContents("file:///workspace/a.txt", "/workspace/a.txt", "\xff\xfe");
  EXPECT_EQ(odd["mimeType"], "application/octet-stream");
  EXPECT_TRUE(odd.contains("blob"));
}

TEST(McpResourcesTest, EntriesTemplateAndCursor) {
  json e = ResourceEntry("dir/x.json", 12);
  EXPECT_EQ(e["uri"], "file:///workspace/dir/x.json");
  EXPECT_EQ(e["name"], "dir/x.json");
  EXPECT_EQ(e["mimeType"], "application/json");
  EXPECT_EQ(e["size"], 12);
  EXPECT_EQ(WorkspaceTemplate()["uriTemplate"], "file:///workspace/{+path}");
  EXPECT_EQ(DecodeCursor(EncodeCursor(200)), 200u);
  for (const char* bad : {"", "200", "!!", "YWJj"}) EXPECT_FALSE(DecodeCursor(bad)) << bad;
}

TEST(Base64Test, RoundTripAndCanonical) {
  EXPECT_EQ(Base64Encode("bash"), "YmFzaA==");
  EXPECT_EQ(Base64Decode("YmFzaA=="), "bash");
  EXPECT_FALSE(Base64Decode("YmFzaA="));
  EXPECT_FALSE(Base64Decode("Ym Fz aA=="));
}

}  // namespace
}  // namespace agentbox::mcp
