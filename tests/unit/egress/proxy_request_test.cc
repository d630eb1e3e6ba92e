#include "egress/proxy_request.h"

#include <gtest/gtest.h>

namespace agentbox::egress {
namespace {

ProxyRequest Http(const std::string& text) {
  auto r = ParseHttpProxyRequest(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  EXPECT_TRUE(r.ok() && r->has_value()) << text;
  return r.ok() && *r ? **r : ProxyRequest{};
}

std::string HttpError(const std::string& text) {
  auto r = ParseHttpProxyRequest(text);
  return r.ok() ? "" : r.status().message();
}

TEST(ProxyRequestTest, ConnectNamesItsTarget) {
  ProxyRequest r = Http("CONNECT PyPI.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n\x16\x03");
  EXPECT_EQ(r.protocol, ProxyProtocol::kHttpConnect);
  EXPECT_EQ(r.target.host, "pypi.org");
  EXPECT_EQ(r.target.port, 443);
  EXPECT_FALSE(r.target.is_address);
  EXPECT_EQ(r.consumed, 53u);
  ProxyRequest v6 = Http("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(v6.target.is_address);
  EXPECT_EQ(v6.target.host, "2001:db8::1");
  EXPECT_NE(HttpError("CONNECT pypi.org HTTP/1.1\r\n\r\n"), "");  // no port
}

TEST(ProxyRequestTest, NeedsTheWholeHeadButNotMoreThan16KiB) {
  auto partial = ParseHttpProxyRequest("CONNECT pypi.org:443 HTTP/1.1\r\n");
  ASSERT_TRUE(partial.ok());
  EXPECT_FALSE(partial->has_value());
  EXPECT_NE(HttpError("GET http://a.test/ HTTP/1.1\r\nX: " + std::string(17000, 'a')), "");
}

TEST(ProxyRequestTest, PlainRequestsGoUpstreamInOriginFormAndClose) {
  ProxyRequest r = Http(
      "GET http://index.test:8080/simple/?x=1 HTTP/1.1\r\nHost: index.test:8080\r\n"
      "Proxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\nBODY");
  EXPECT_EQ(r.protocol, ProxyProtocol::kHttpPlain);
  EXPECT_EQ(r.target.host, "index.test");
  EXPECT_EQ(r.target.port, 8080);
  EXPECT_EQ(r.upstream_head,
            "GET /simple/?x=1 HTTP/1.1\r\nHost: index.test:8080\r\nAccept: */*\r\n"
            "Connection: close\r\n\r\n");
  ProxyRequest no_host = Http("GET http://a.test HTTP/1.0\r\n\r\n");
  EXPECT_EQ(no_host.upstream_head, "GET / HTTP/1.0\r\nHost: a.test\r\nConnection: close\r\n\r\n");
}

TEST(ProxyRequestTest, AHostHeaderThatDisagreesIsRefused) {
  EXPECT_NE(HttpError("GET http://allowed.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"), "");
  EXPECT_NE(HttpError("GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test:81\r\n\r\n"), "");
  EXPECT_NE(HttpError("CONNECT allowed.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n"), "");
  EXPECT_NE(HttpError("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n"), "");
}

TEST(ProxyRequestTest, MalformedHeadsAreRefused) {
  for (const char* bad :
       {"GET http://a.test/ HTTP/2\r\n\r\n", "GET\r\n\r\n", "GET https://a.test/ HTTP/1.1\r\n\r\n",
        "GET http://user@a.test/ HTTP/1.1\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\n folded\r\n\r\n",
        "GET http://a.test/ HTTP/1.1\r\nBad Name: x\r\n\r\n", "GET /relative HTTP/1.1\r\n\r\n",
        "G\x01T http://a.test/ HTTP/1.1\r\n\r\n", "CONNECT 127.1:80 HTTP/1.1\r\n\r\n"}) {
    EXPECT_NE(HttpError(bad), "") << bad;
  }
}

TEST(ProxyRequestTest, Socks5ConnectOnly) {
  auto greeting = ParseSocks5Greeting(std::string("\x05\x02\x02\x00", 4));
  ASSERT_TRUE(greeting.ok() && greeting->has_value());
  EXPECT_TRUE((*greeting)->no_auth_offered);
  EXPECT_EQ((*greeting)->consumed, 4u);
  uint8_t code = 0;
  auto named = ParseSocks5Request(std::string("\x05\x01\x00\x03\x08pypi.org\x01\xbb", 15), &code);
  ASSERT_TRUE(named.ok() && named->has_value());
  EXPECT_EQ((*named)->target.host, "pypi.org");
  EXPECT_EQ((*named)->target.port, 443);
  auto v4 = ParseSocks5Request(std::string("\x05\x01\x00\x01\xc6\x33\x64\x07\x00\x50", 10), &code);
  ASSERT_TRUE(v4.ok() && v4->has_value());
  EXPECT_EQ((*v4)->target.host, "198.51.100.7");
  auto udp = ParseSocks5Request(std::string("\x05\x03\x00\x01\x00\x00\x00\x00\x00\x35", 10), &code);
  EXPECT_FALSE(udp.ok());
  EXPECT_EQ(code, 7);
  auto partial = ParseSocks5Request(std::string("\x05\x01\x00\x03\x08pypi", 9), &code);
  ASSERT_TRUE(partial.ok());
  EXPECT_FALSE(partial->has_value());
}

// A ClientHello with one server_name, split over records as `split` says (0: one record).
std::string Hello(const std::string& name, size_t split = 0) {
  std::string ext;
  const std::string entry =
      std::string("\x00", 1) + char(name.size() >> 8) + char(name.size()) + name;
  const std::string list = std::string(1, char(entry.size() >> 8)) + char(entry.size()) + entry;
  ext += std::string("\x00\x00", 2) + char(list.size() >> 8) + char(list.size()) + list;
  std::string body = std::string("\x03\x03", 2) + std::string(32, 'r') + std::string("\x00", 1) +
                     std::string("\x00\x02\x13\x01", 4) + std::string("\x01\x00", 2) +
                     char(ext.size() >> 8) + char(ext.size()) + ext;
  std::string hs = std::string("\x01\x00", 2) + char(body.size() >> 8) + char(body.size()) + body;
  auto record = [](const std::string& part) {
    return std::string("\x16\x03\x01", 3) + char(part.size() >> 8) + char(part.size()) + part;
  };
  if (split == 0) return record(hs);
  return record(hs.substr(0, split)) + record(hs.substr(split));
}

TEST(ProxyRequestTest, TlsServerNameIsRead) {
  auto name = ParseTlsServerName(Hello("Allowed.Test"));
  ASSERT_TRUE(name.ok() && name->has_value()) << name.status().message();
  EXPECT_EQ(**name, "allowed.test");
  auto split = ParseTlsServerName(Hello("allowed.test", 10));
  ASSERT_TRUE(split.ok() && split->has_value());
  EXPECT_EQ(**split, "allowed.test");
  const std::string whole = Hello("allowed.test");
  auto partial = ParseTlsServerName(whole.substr(0, whole.size() - 3));
  ASSERT_TRUE(partial.ok());
  EXPECT_FALSE(partial->has_value());
  auto plain = ParseTlsServerName("SSH-2.0-OpenSSH\r\n");
  ASSERT_TRUE(plain.ok() && plain->has_value());
  EXPECT_EQ(**plain, "");
  EXPECT_FALSE(ParseTlsServerName(Hello("bad name")).ok());
}

}  // namespace
}  // namespace agentbox::egress
