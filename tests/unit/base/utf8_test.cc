#include "base/utf8.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

const std::string kR = "\xEF\xBF\xBD";  // U+FFFD

TEST(SanitizeUtf8Test, ValidIsUnchanged) {
  const std::string valid[] = {"",
                               "hello",
                               std::string("a\0b", 3),
                               "\xC2\x80",          // U+0080
                               "\xDF\xBF",          // U+07FF
                               "\xE0\xA0\x80",      // U+0800
                               "\xED\x9F\xBF",      // U+D7FF
                               "\xEE\x80\x80",      // U+E000
                               "\xEF\xBF\xBF",      // U+FFFF
                               "\xF0\x90\x80\x80",  // U+10000
                               "\xF4\x8F\xBF\xBF",  // U+10FFFF
                               "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"};
  for (const std::string& s : valid) {
    EXPECT_EQ(SanitizeUtf8(s), s);
    EXPECT_TRUE(IsValidUtf8(s));
  }
}

TEST(SanitizeUtf8Test, StrayBytes) {
  EXPECT_EQ(SanitizeUtf8("a\xFF"
                         "b"),
            "a" + kR + "b");
  EXPECT_EQ(SanitizeUtf8("\x80"), kR);
  EXPECT_EQ(SanitizeUtf8("\xFE\xFF"), kR + kR);
  EXPECT_EQ(SanitizeUtf8("\xF5\x80\x80\x80"), kR + kR + kR + kR);
  EXPECT_FALSE(IsValidUtf8("\xFF"));
}

TEST(SanitizeUtf8Test, OverlongsAreBadPerByte) {
  EXPECT_EQ(SanitizeUtf8("\xC0\xAF"), kR + kR);  // overlong '/'
  EXPECT_EQ(SanitizeUtf8("\xC1\xBF"), kR + kR);
  EXPECT_EQ(SanitizeUtf8("\xE0\x80\xAF"), kR + kR + kR);  // overlong 3-byte
  EXPECT_EQ(SanitizeUtf8("\xF0\x80\x80\xAF"), kR + kR + kR + kR);
}

TEST(SanitizeUtf8Test, SurrogatesAndTooLarge) {
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), kR + kR + kR);           // U+D800
  EXPECT_EQ(SanitizeUtf8("\xED\xBF\xBF"), kR + kR + kR);           // U+DFFF
  EXPECT_EQ(SanitizeUtf8("\xF4\x90\x80\x80"), kR + kR + kR + kR);  // U+110000
}

TEST(SanitizeUtf8Test, TruncatedSequences) {
  EXPECT_EQ(SanitizeUtf8("\xE2\x82"), kR + kR);
  EXPECT_EQ(SanitizeUtf8("\xE2\x82"
                         "a"),
            kR + kR + "a");
  EXPECT_EQ(SanitizeUtf8("\xF0\x9F\x98"), kR + kR + kR);
  EXPECT_EQ(SanitizeUtf8("\xC3"), kR);
  // A valid sequence right after a broken one survives.
  EXPECT_EQ(SanitizeUtf8("\xE2\xC3\xA9"), kR + "\xC3\xA9");
}

TEST(Utf8CountTest, CharactersNotBytes) {
  const std::string text =
      "a\xC3\xA9"
      "b\xE2\x82\xAC"
      "c";  // a é b € c
  EXPECT_EQ(Utf8Length(text), 5u);
  EXPECT_EQ(Utf8Length(""), 0u);
  EXPECT_EQ(Utf8PrefixBytes(text, 0), 0u);
  EXPECT_EQ(Utf8PrefixBytes(text, 2), 3u);
  EXPECT_EQ(Utf8PrefixBytes(text, 4), 7u);
  EXPECT_EQ(Utf8PrefixBytes(text, 99), text.size());
  EXPECT_EQ(Utf8SuffixStart(text, 0), text.size());
  EXPECT_EQ(Utf8SuffixStart(text, 2), 4u);
  EXPECT_EQ(Utf8SuffixStart(text, 4), 1u);
  EXPECT_EQ(Utf8SuffixStart(text, 99), 0u);
}

}  // namespace
}  // namespace agentbox
