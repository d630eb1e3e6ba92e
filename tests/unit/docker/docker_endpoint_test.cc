// Where the Docker daemon is: DOCKER_HOST and the TLS variables, read as the docker CLI reads them.
#include "docker/docker_endpoint.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "sys/file_util.h"

namespace agentbox::docker {
namespace {

TEST(DockerEndpointTest, DefaultUnixAndTcp) {
  auto def = ParseEndpoint("");
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def->kind, Endpoint::Kind::kUnix);
  EXPECT_EQ(def->path, "/var/run/docker.sock");

  auto unix_ep = ParseEndpoint("unix:///run/user/1000/docker.sock");
  ASSERT_TRUE(unix_ep.ok());
  EXPECT_EQ(unix_ep->path, "/run/user/1000/docker.sock");

  auto tcp = ParseEndpoint("tcp://127.0.0.1:2375");
  ASSERT_TRUE(tcp.ok());
  EXPECT_EQ(tcp->kind, Endpoint::Kind::kTcp);
  EXPECT_EQ(tcp->host, "127.0.0.1");
  EXPECT_EQ(tcp->port, "2375");

  auto v6 = ParseEndpoint("tcp://[::1]:2375");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
}

TEST(DockerEndpointTest, RejectsWhatItCannotSpeak) {
  EXPECT_FALSE(ParseEndpoint("ssh://host").ok());
  EXPECT_FALSE(ParseEndpoint("unix://relative.sock").ok());
  EXPECT_FALSE(ParseEndpoint("tcp://hostonly").ok());
  EXPECT_FALSE(ParseEndpoint("tcp://127.0.0.1:0").ok());
  EXPECT_FALSE(ParseEndpoint("tcp://127.0.0.1:http").ok());
  EXPECT_FALSE(ParseEndpoint("npipe:////./pipe/docker_engine").ok());
}

// A directory of the files DOCKER_CERT_PATH names, removed at the end of the test.
class CertDir {
 public:
  CertDir() {
    char templ[] = "/tmp/agentbox-certs-XXXXXX";
    path_ = ::mkdtemp(templ);
  }
  ~CertDir() { RemoveTree(path_); }
  void Put(const std::string& name) { ASSERT_TRUE(WriteFile(path_ + "/" + name, "pem").ok()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(DockerEndpointTest, NamesAndPlainTcpNeedNoTls) {
  auto named = ResolveEndpoint({"tcp://docker.example:2375", "", "", "", "/root"});
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_FALSE(named->tls);
  EXPECT_EQ(TargetOf(*named).base_url, "http://docker.example:2375");
  auto v6 = ResolveEndpoint({"tcp://[::1]:2375", "", "", "", "/root"});
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(TargetOf(*v6).base_url, "http://[::1]:2375");
  // DOCKER_CERT_PATH alone does not turn TLS on (the CLI's rule).
  auto plain = ResolveEndpoint({"tcp://127.0.0.1:2375", "", "", "/nonexistent", "/root"});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->tls);
}

TEST(DockerEndpointTest, UnixSocketTarget) {
  auto ep = ResolveEndpoint({"unix:///run/d.sock", "1", "", "/nonexistent", "/root"});
  ASSERT_TRUE(ep.ok()) << ep.status().message();  // TLS is for tcp:// only
  auto target = TargetOf(*ep);
  EXPECT_EQ(target.unix_socket, "/run/d.sock");
  EXPECT_EQ(target.base_url, "http://docker");
}

TEST(DockerEndpointTest, TlsVerifyTakesTheCertPathFiles) {
  CertDir dir;
  dir.Put("ca.pem");
  auto ca_only = ResolveEndpoint({"tcp://127.0.0.1:2376", "1", "", dir.path(), "/root"});
  ASSERT_TRUE(ca_only.ok()) << ca_only.status().message();
  EXPECT_TRUE(ca_only->tls);
  EXPECT_EQ(ca_only->ca_file, dir.path() + "/ca.pem");
  EXPECT_EQ(ca_only->cert_file, "");
  dir.Put("cert.pem");
  auto half = ResolveEndpoint({"tcp://127.0.0.1:2376", "1", "", dir.path(), "/root"});
  EXPECT_EQ(half.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(half.status().message().find("no key.pem"), std::string::npos);
  dir.Put("key.pem");
  auto full = ResolveEndpoint({"tcp://127.0.0.1:2376", "1", "", dir.path(), "/root"});
  ASSERT_TRUE(full.ok());
  auto target = TargetOf(*full);
  EXPECT_EQ(target.base_url, "https://127.0.0.1:2376");
  EXPECT_EQ(target.cert_file, dir.path() + "/cert.pem");
  EXPECT_EQ(target.key_file, dir.path() + "/key.pem");
  // No DOCKER_HOST with TLS: the CLI's default TLS daemon; the cert dir defaults to ~/.docker.
  auto def = ResolveEndpoint({"", "1", "", "", dir.path() + "/.."});
  EXPECT_EQ(def.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(def.status().message().find("/.docker/ca.pem"), std::string::npos);
}

TEST(DockerEndpointTest, RefusesAnUnverifiedDaemon) {
  auto ep = ResolveEndpoint({"tcp://127.0.0.1:2376", "", "1", "", "/root"});
  EXPECT_EQ(ep.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(ep.status().message().find("DOCKER_TLS_VERIFY"), std::string::npos);
  auto no_ca = ResolveEndpoint({"tcp://127.0.0.1:2376", "1", "", "/nonexistent", "/root"});
  EXPECT_EQ(no_ca.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_ca.status().message().find("/nonexistent/ca.pem"), std::string::npos);
}

}  // namespace
}  // namespace agentbox::docker
