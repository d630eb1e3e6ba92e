// Exec credential plugins: the ExecCredential a plugin prints, its expiry, the cache, and a real
// plugin (a shell script) run with KUBERNETES_EXEC_INFO and its kubeconfig env.
#include "kubernetes/exec_credential.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

constexpr const char* kV1 = "client.authentication.k8s.io/v1";

std::string Credential(const std::string& status) {
  return std::string(R"({"apiVersion":")") + kV1 + R"(","kind":"ExecCredential","status":)" +
         status + "}";
}

TEST(KubernetesExecCredential, ReadsTheTokenAndItsExpiry) {
  auto token = ParseExecCredential(
      Credential(R"({"token":"abc","expirationTimestamp":"2026-12-05T08:00:00Z"})"), kV1);
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(token->token, "abc");
  EXPECT_EQ(WallClock::to_time_t(*token->expires), 1796457600);
  auto forever = ParseExecCredential(Credential(R"({"token":"abc"})"), kV1);
  ASSERT_TRUE(forever.ok());
  EXPECT_FALSE(forever->expires);
}

TEST(KubernetesExecCredential, RefusesWhatIsNoToken) {
  for (const std::string& out :
       {std::string("not json"), Credential(R"({"clientCertificateData":"x"})"),
        Credential(R"({"token":"a","expirationTimestamp":"tomorrow"})"),
        std::string(R"({"apiVersion":"client.authentication.k8s.io/v1beta1",)"
                    R"("kind":"ExecCredential","status":{"token":"a"}})")}) {
    EXPECT_EQ(ParseExecCredential(out, kV1).status().code(), StatusCode::kUnavailable) << out;
  }
}

TEST(KubernetesExecCredential, Rfc3339) {
  auto t = [](const char* s) { return ParseRfc3339(s); };
  EXPECT_EQ(WallClock::to_time_t(*t("1970-01-01T00:00:10Z")), 10);
  EXPECT_EQ(WallClock::to_time_t(*t("1970-01-01T01:00:10.123456+01:00")), 10);
  EXPECT_EQ(WallClock::to_time_t(*t("1970-01-01T00:00:10-00:30")), 1810);
  for (const char* bad : {"", "1970-01-01", "1970-01-01T00:00:10", "1970-01-01 00:00:10Z",
                          "1970-01-01T00:00:10+0100", "1970-01-01T00:00:10Zjunk"}) {
    EXPECT_FALSE(t(bad)) << bad;
  }
}

TEST(KubernetesExecCredential, CachedUntilAMinuteBeforeItExpires) {
  int runs = 0;
  WallClock::time_point now = WallClock::from_time_t(1000);
  ExecTokenSource source(
      ExecPlugin{kV1, "plugin", {}, {}},
      [&](const ExecPlugin&) -> StatusOr<std::string> {
        ++runs;
        return Credential(R"({"token":"t)" + std::to_string(runs) +
                          R"(","expirationTimestamp":"1970-01-01T00:30:00Z"})");  // 1800
      },
      [&] { return now; });
  EXPECT_EQ(*source.Token(), "t1");
  now = WallClock::from_time_t(1739);
  EXPECT_EQ(*source.Token(), "t1");
  now = WallClock::from_time_t(1741);  // within the minute: run again
  EXPECT_EQ(*source.Token(), "t2");
  source.Invalidate();
  EXPECT_EQ(*source.Token(), "t3");
}

TEST(KubernetesExecCredential, RunsARealPluginWithItsEnvironment) {
  char templ[] = "/tmp/agentbox-k8s-exec-XXXXXX";
  std::string dir = ::mkdtemp(templ);
  std::string script = dir + "/plugin.sh";
  ASSERT_TRUE(
      WriteFile(script,
                "#!/bin/sh\n"
                "case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; *) exit 3;; esac\n"
                "printf '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\","
                "\"status\":{\"token\":\"%s-%s\"}}' \"$API\" \"$PREFIX\" \"$1\"\n",
                0755)
          .ok());
  ExecPlugin plugin{kV1, script, {"arg1"}, {{"PREFIX", "tok"}, {"API", kV1}}};
  auto out = RunExecPlugin(plugin);
  ASSERT_TRUE(out.ok()) << out.status().message();
  auto token = ParseExecCredential(*out, kV1);
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(token->token, "tok-arg1");

  plugin.env.clear();
  plugin.command = dir + "/missing";
  EXPECT_EQ(RunExecPlugin(plugin).status().code(), StatusCode::kUnavailable);
  ASSERT_TRUE(WriteFile(script, "#!/bin/sh\nexit 7\n", 0755).ok());
  plugin.command = script;
  auto failed = RunExecPlugin(plugin);
  EXPECT_NE(failed.status().message().find("exited 7"), std::string::npos)
      << failed.status().message();
  RemoveTree(dir);
}

}  // namespace
}  // namespace agentbox::kubernetes
