// The REST client over real TLS: a kubeconfig's CA and client certificate as PEM text (its
// *-data fields) reach libcurl, the server is verified against that CA, and the server sees
// the client's certificate. Against tests/unit/kubernetes/tls_api_server.py (python3 and
// openssl, the test dependencies of scripts/install-deps.sh).
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>

#include <cstring>
#include <string>

#include "kubernetes/api_client.h"
#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

TEST(KubernetesApiClientTls, CaAndClientCertificateAsPemText) {
  if (::system("command -v python3 >/dev/null && command -v openssl >/dev/null") != 0) {
    GTEST_SKIP() << "python3 or openssl missing (scripts/install-deps.sh test)";
  }
  char templ[] = "/tmp/agentbox-k8s-tls-XXXXXX";
  std::string dir = ::mkdtemp(templ);
  std::string command = std::string("python3 ") + AGENTBOX_SOURCE_DIR +
                        "/tests/unit/kubernetes/tls_api_server.py " + dir;
  FILE* server = ::popen(command.c_str(), "r");
  ASSERT_NE(server, nullptr);
  char line[32] = {};
  ASSERT_NE(::fgets(line, sizeof(line), server), nullptr) << "the TLS server did not start";

  ClusterAccess access;
  access.server = "https://127.0.0.1:" + std::string(line, std::strcspn(line, "\n"));
  access.ca_pem = *ReadFile(dir + "/ca.pem");
  access.client_cert_pem = *ReadFile(dir + "/client.pem");
  access.client_key_pem = *ReadFile(dir + "/client-key.pem");
  access.origin = "the test";
  auto pod = ApiClient::FromAccess(access).Get(kPods, "p");
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  EXPECT_EQ((*pod)["client"], "agentbox-test");

  ClusterAccess no_ca = access;  // the system's bundle does not know the test CA
  no_ca.ca_pem.clear();
  auto refused = ApiClient::FromAccess(no_ca).Get(kPods, "p");
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("TLS"), std::string::npos)
      << refused.status().message();

  ClusterAccess no_cert = access;  // the server wants a client certificate
  no_cert.client_cert_pem.clear();
  no_cert.client_key_pem.clear();
  EXPECT_EQ(ApiClient::FromAccess(no_cert).Get(kPods, "p").status().code(),
            StatusCode::kUnavailable);
  ::pclose(server);
  RemoveTree(dir);
}

}  // namespace
}  // namespace agentbox::kubernetes
