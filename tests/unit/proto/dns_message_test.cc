// The DNS catcher's parsing of a query and its REFUSED answer (proto/dns_message.h).
#include "proto/dns_message.h"

#include <gtest/gtest.h>

#include <string>

namespace agentbox {
namespace {

// A standard query for `labels` (type A, class IN), with RD set.
std::string Query(std::initializer_list<std::string> labels) {
  std::string m = {'\x12', '\x34', '\x01', '\x00', 0, 1, 0, 0, 0, 0, 0, 0};
  for (const std::string& l : labels) {
    m.push_back(static_cast<char>(l.size()));
    m += l;
  }
  m += std::string{0, 0, 1, 0, 1};
  return m;
}

TEST(DnsMessageTest, ParsesTheQuestion) {
  const std::string m = Query({"PyPI", "org"});
  auto q = ParseDnsQuery(m);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->id, 0x1234);
  EXPECT_EQ(q->name, "pypi.org");  // lowercased
  EXPECT_EQ(q->qtype, 1);
  EXPECT_EQ(q->question_end, m.size());
}

TEST(DnsMessageTest, OddBytesArePrintable) {
  auto q = ParseDnsQuery(Query({std::string("a\x01 b", 4), "test"}));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->name, "a\\001\\032b.test");
  EXPECT_EQ(ParseDnsQuery(Query({}))->name, ".");
}

TEST(DnsMessageTest, RefusesWhatIsNoQuery) {
  std::string response = Query({"a", "test"});
  response[2] = static_cast<char>(0x81);  // QR set
  EXPECT_FALSE(ParseDnsQuery(response).has_value());
  std::string compressed = Query({});
  compressed[12] = static_cast<char>(0xC0);  // a pointer in the question
  EXPECT_FALSE(ParseDnsQuery(compressed).has_value());
  const std::string whole = Query({"a", "test"});
  for (size_t n = 0; n < whole.size(); ++n) {
    EXPECT_FALSE(ParseDnsQuery(whole.substr(0, n)).has_value()) << n;  // truncated
  }
  EXPECT_FALSE(ParseDnsQuery(Query({std::string(64, 'a')})).has_value());  // label > 63
}

TEST(DnsMessageTest, AnswersRefused) {
  std::string m = Query({"a", "test"});
  m += std::string(11, '\0');  // an EDNS record after the question: not echoed
  auto q = ParseDnsQuery(m);
  ASSERT_TRUE(q.has_value());
  const std::string a = DnsRefusedAnswer(m, *q);
  ASSERT_EQ(a.size(), q->question_end);
  EXPECT_EQ(a.substr(0, 2), m.substr(0, 2));                         // same id
  EXPECT_EQ(static_cast<uint8_t>(a[2]), 0x81);                       // QR, RD copied
  EXPECT_EQ(static_cast<uint8_t>(a[3]) & 0x0f, 5);                   // REFUSED
  EXPECT_EQ(a.substr(4, 8), std::string({0, 1, 0, 0, 0, 0, 0, 0}));  // one question only
  EXPECT_EQ(a.substr(12), m.substr(12, q->question_end - 12));
}

}  // namespace
}  // namespace agentbox
