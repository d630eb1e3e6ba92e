#include "base/json_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace agentbox {
namespace {

std::string Nested(int depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(JsonLimitsTest, OrdinaryMessagesPass) {
  for (const char* text :
       {"{}", "[]", "0", "-1.5e10", R"({"a":[1,2,{"b":"c"}],"d":null,"e":true})",
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"x":[1]}}})"}) {
    EXPECT_TRUE(CheckJsonLimits(text).ok()) << text;
    EXPECT_TRUE(ParseJsonWithLimits(text).ok()) << text;
  }
}

TEST(JsonLimitsTest, DepthIsBounded) {
  EXPECT_TRUE(CheckJsonLimits(Nested(64)).ok());
  Status deep = CheckJsonLimits(Nested(65));
  EXPECT_EQ(deep.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(deep.message(), "JSON nested deeper than 64 levels");
  // The crash of issue #12: ~200 KB of brackets, objects or a mix, even unterminated.
  EXPECT_FALSE(CheckJsonLimits(std::string(200000, '[')).ok());
  EXPECT_FALSE(CheckJsonLimits(std::string(100000, '{')).ok());
  std::string mixed;
  for (int i = 0; i < 50000; ++i) mixed += "{\"a\":[";
  EXPECT_FALSE(ParseJsonWithLimits(mixed).ok());
  EXPECT_FALSE(CheckJsonLimits(Nested(10), {.max_depth = 9}).ok());
}

TEST(JsonLimitsTest, BracketsInStringsDoNotCount) {
  std::string text = "[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"]";
  EXPECT_TRUE(CheckJsonLimits(text).ok());
  EXPECT_TRUE(ParseJsonWithLimits(text).ok());
}

TEST(JsonLimitsTest, HugeNumbersAreRefused) {
  EXPECT_FALSE(CheckJsonLimits("[" + std::string(101, '9') + "]").ok());
  EXPECT_TRUE(CheckJsonLimits("[" + std::string(100, '9') + "]").ok());
  EXPECT_FALSE(CheckJsonLimits(R"({"timeout":1e999})").ok());
  EXPECT_FALSE(CheckJsonLimits("-1E+400").ok());
  EXPECT_TRUE(CheckJsonLimits("1e300").ok());
  EXPECT_TRUE(CheckJsonLimits("1e-400").ok());  // underflows to 0: harmless
}

TEST(JsonLimitsTest, SizeIsBoundedWhenAsked) {
  EXPECT_TRUE(CheckJsonLimits("[1,2,3]", {.max_bytes = 7}).ok());
  EXPECT_EQ(CheckJsonLimits("[1,2,3]", {.max_bytes = 6}).message(),
            "JSON text larger than 6 bytes");
}

TEST(JsonLimitsTest, MalformedTextIsTheParsersToReport) {
  EXPECT_TRUE(CheckJsonLimits("{nope").ok());
  auto parsed = ParseJsonWithLimits("{nope");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "malformed JSON");
}

}  // namespace
}  // namespace agentbox
