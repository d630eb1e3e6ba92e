// The OpenAPI document describes what the server really sends: every field a result always
// carries is `required` (generated clients then type it as present), and every field the
// server sends is a property of its schema.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/build_info.h"
#include "http/http_status.h"
#include "http/openapi.h"
#include "proto/exec_result.h"
#include "proto/process_wire.h"

namespace agentbox {
namespace {

const nlohmann::json& Schema(const std::string& name) {
  static const nlohmann::json doc = OpenApiDocument();
  return doc["components"]["schemas"][name];
}

// `object`'s keys are all properties of `schema`, and each required property is in `object`.
void ExpectMatches(const nlohmann::json& schema, const nlohmann::json& object,
                   const std::string& what) {
  for (const auto& [key, value] : object.items()) {
    EXPECT_TRUE(schema["properties"].contains(key)) << what << ": " << key << " undocumented";
  }
  ASSERT_TRUE(schema.contains("required")) << what;
  for (const auto& key : schema["required"]) {
    EXPECT_TRUE(object.contains(key.get<std::string>())) << what << ": " << key << " absent";
  }
}

TEST(OpenApiResultsTest, ExecResultRequiresWhatEveryResultHas) {
  ExecResult plain;
  ExpectMatches(Schema("ExecResult"), nlohmann::json::parse(ExecResultToJson(plain)), "plain");
  ExecResult error = ErrorResult(NotFound("no such sandbox"));
  ExpectMatches(Schema("ExecResult"), nlohmann::json::parse(ExecResultToJson(error)), "error");
  for (const char* key : {"exit_code", "signal", "reason", "stdout", "stderr", "limits_hit",
                          "duration_ms", "stdout_truncated"}) {
    EXPECT_NE(std::find(Schema("ExecResult")["required"].begin(),
                        Schema("ExecResult")["required"].end(), key),
              Schema("ExecResult")["required"].end())
        << key;
  }
}

TEST(OpenApiResultsTest, ProcessAndItsResult) {
  ProcessInfo info;
  info.id = "p1";
  info.argv = {"sleep", "1"};
  ExpectMatches(Schema("Process"), nlohmann::json::parse(ProcessInfoToJson(info)), "running");
  info.result = ExecResult();
  const auto exited = nlohmann::json::parse(ProcessInfoToJson(info));
  ExpectMatches(Schema("Process"), exited, "exited");
  ExpectMatches(Schema("ProcessResult"), exited["result"], "its result");
}

TEST(OpenApiResultsTest, EveryObjectSchemaOfAResultListsRequiredFields) {
  for (const char* name :
       {"Error", "Sandbox", "SandboxSummary", "SandboxList", "ExecResult", "ProcessResult",
        "Process", "ProcessList", "DirListing", "Written", "Removed", "Extracted", "VerifyReport",
        "DiskLimit", "StreamEvent", "ProcessLogEvent"}) {
    EXPECT_FALSE(Schema(name)["required"].empty()) << name;
  }
}

TEST(OpenApiResultsTest, ServersLicenseAndVersion) {
  const nlohmann::json doc = OpenApiDocument();
  EXPECT_EQ(doc["info"]["license"]["name"], "Apache-2.0");
  EXPECT_EQ(doc["info"]["version"], kAgentboxVersion);
  ASSERT_FALSE(doc["servers"].empty());
  EXPECT_NE(doc["servers"][0]["url"].get<std::string>().find("{port}"), std::string::npos);
  for (const auto& [path, ops] : doc["paths"].items()) {
    for (const auto& [method, op] : ops.items()) EXPECT_FALSE(op["tags"].empty()) << path;
  }
}

// A busy sandbox is a conflict, with a code of its own (docs/api.md, DELETE).
TEST(OpenApiResultsTest, FailedPreconditionIs409) {
  EXPECT_EQ(HttpStatusFor(FailedPrecondition("busy")), 409);
  EXPECT_EQ(StatusCodeName(StatusCode::kFailedPrecondition), std::string("failed_precondition"));
  EXPECT_EQ(StatusCodeFromName("failed_precondition"), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace agentbox
