#include "http/access_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace agentbox {
namespace {

TEST(AccessLogTest, OneLineWithWhoWhatResultAndDuration) {
  AccessRecord r;
  r.tenant = "team-a";
  r.method = "POST";
  r.path = "/v1/sandboxes/abc/exec";
  r.sandbox = "abc";
  r.status = 200;
  r.duration_ms = 12.34567;
  r.detail = {{"reason", "exited"}, {"exit_code", 3}};
  EXPECT_EQ(AccessLog::Line(r, 1764765296789),
            R"({"time":"2025-12-03T12:34:56.789Z","tenant":"team-a","method":"POST",)"
            R"("path":"/v1/sandboxes/abc/exec","sandbox":"abc","status":200,)"
            R"("duration_ms":12.346,"exit_code":3,"reason":"exited"})");  // details by name
}

// An anonymous or unauthenticated caller is null; a request naming no sandbox has no key for it;
// bytes that are not UTF-8 (a path is the client's) cannot break the line.
TEST(AccessLogTest, AnonymousNoSandboxAndBadBytes) {
  AccessRecord r{"", "GET", "/v1/\xff", "", 401, 0, nlohmann::json::object()};
  nlohmann::json j = nlohmann::json::parse(AccessLog::Line(r, 0));
  EXPECT_TRUE(j["tenant"].is_null());
  EXPECT_FALSE(j.contains("sandbox"));
  EXPECT_EQ(j["path"], "/v1/\xEF\xBF\xBD");
  EXPECT_EQ(j["time"], "1970-01-01T00:00:00.000Z");
}

TEST(AccessLogTest, AppendsWholeLinesToAFile) {
  char dir[] = "/tmp/abaccesslog.XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/access.log";
  {
    auto log = AccessLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status().message();
    (*log)->Write(AccessRecord{"a", "GET", "/healthz", "", 200, 0.1, nlohmann::json::object()});
    (*log)->Write(AccessRecord{"b", "GET", "/metrics", "", 200, 0.2, nlohmann::json::object()});
  }
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
    ++n;
  }
  EXPECT_EQ(n, 2);
  ::unlink(path.c_str());
  ::rmdir(dir);
}

TEST(AccessLogTest, AnUnwritablePlaceIsAnError) {
  EXPECT_FALSE(AccessLog::Open("/nonexistent-dir/access.log").ok());
  EXPECT_FALSE(AccessLog::Open("").ok());
}

}  // namespace
}  // namespace agentbox
