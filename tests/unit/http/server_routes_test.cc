#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "http/openapi.h"
#include "http/routes.h"

namespace agentbox {
namespace {

TEST(ServerRoutesTest, MatchesWithParams) {
  auto m = MatchRoute("POST", "/v1/sandboxes/abc123/exec");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->route->id, RouteId::kExec);
  EXPECT_EQ(m->params.at("id"), "abc123");
  EXPECT_EQ(MatchRoute("GET", "/v1/sandboxes")->route->id, RouteId::kListSandboxes);
  EXPECT_EQ(MatchRoute("GET", "/v1/sandboxes/")->route->id, RouteId::kListSandboxes);
  EXPECT_EQ(MatchRoute("POST", "/v1/sandboxes/x/files/edit")->route->id, RouteId::kEditFile);
  EXPECT_EQ(MatchRoute("GET", "/healthz")->route->id, RouteId::kHealthz);
  EXPECT_FALSE(MatchRoute("GET", "/healthz")->route->needs_auth);
}

TEST(ServerRoutesTest, NotFoundAndMethodNotAllowed) {
  EXPECT_EQ(MatchRoute("GET", "/v2/sandboxes").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(MatchRoute("GET", "/v1/sandboxes/a/b/c/d").status().code(), StatusCode::kNotFound);
  std::string allow;
  auto m = MatchRoute("PATCH", "/v1/sandboxes/x/files", &allow);
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(allow, "GET, PUT, DELETE");
}

TEST(ServerRoutesTest, ProcessRoutes) {
  auto m = MatchRoute("GET", "/v1/sandboxes/s1/processes/p2/logs");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->route->id, RouteId::kProcessLogs);
  EXPECT_EQ(m->params.at("id"), "s1");
  EXPECT_EQ(m->params.at("proc"), "p2");
  EXPECT_EQ(MatchRoute("GET", "/v1/sandboxes/s1/processes")->route->id, RouteId::kListProcesses);
  EXPECT_EQ(MatchRoute("GET", "/v1/sandboxes/s1/processes/p1")->route->id, RouteId::kGetProcess);
  EXPECT_EQ(MatchRoute("POST", "/v1/sandboxes/s1/processes/p1/wait")->route->id,
            RouteId::kWaitProcess);
  EXPECT_EQ(MatchRoute("POST", "/v1/sandboxes/s1/processes/p1/kill")->route->id,
            RouteId::kKillProcess);
  EXPECT_EQ(MatchRoute("POST", "/v1/sandboxes/s1/processes/p1/stdin")->route->id,
            RouteId::kWriteProcessStdin);
  std::string allow;
  EXPECT_EQ(MatchRoute("GET", "/v1/sandboxes/s1/processes/p1/kill", &allow).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(allow, "POST");
}

TEST(ServerRoutesTest, TerminalRouteIsAGetBesideExec) {
  auto m = MatchRoute("GET", "/v1/sandboxes/s1/exec/tty");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->route->id, RouteId::kExecTty);
  EXPECT_EQ(m->params.at("id"), "s1");
  EXPECT_EQ(m->route->body, BodyKind::kNone);
  EXPECT_EQ(m->route->success, 101);
  std::string allow;
  EXPECT_EQ(MatchRoute("POST", "/v1/sandboxes/s1/exec/tty", &allow).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(allow, "GET");
  EXPECT_EQ(MatchRoute("POST", "/v1/sandboxes/s1/exec")->route->id, RouteId::kExec);
}

TEST(ServerRoutesTest, BodyLimits) {
  // What one POST .../stdin may carry is what may wait for the process: 1 MiB.
  EXPECT_EQ(MaxBodyBytes(*MatchRoute("POST", "/v1/sandboxes/x/processes/p1/stdin")->route),
            1u << 20);
  EXPECT_EQ(MaxBodyBytes(*MatchRoute("PUT", "/v1/sandboxes/x/files")->route), 64u << 20);
  EXPECT_EQ(MaxBodyBytes(*MatchRoute("POST", "/v1/sandboxes")->route), 1u << 20);
}

TEST(ServerRoutesTest, EveryRouteAuthenticatedButHealthz) {
  for (const Route& r : Routes()) {
    EXPECT_EQ(r.needs_auth, r.id != RouteId::kHealthz) << r.pattern;
  }
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The OpenAPI document and the router table say the same thing, in both directions.
TEST(ServerOpenApiTest, DocumentListsExactlyTheRoutes) {
  nlohmann::json doc = OpenApiDocument();
  EXPECT_EQ(doc["openapi"], "3.0.3");
  std::set<std::string> from_table, from_doc, operation_ids;
  for (const Route& r : Routes()) {
    std::string path(r.pattern), method = Lower(r.method);
    from_table.insert(method + " " + path);
    ASSERT_TRUE(doc["paths"].contains(path)) << path;
    ASSERT_TRUE(doc["paths"][path].contains(method)) << method << " " << path;
    const auto& op = doc["paths"][path][method];
    EXPECT_EQ(op["operationId"], std::string(r.operation_id));
    EXPECT_TRUE(op["responses"].contains(std::to_string(r.success))) << path;
    EXPECT_TRUE(operation_ids.insert(std::string(r.operation_id)).second) << r.operation_id;
    for (const auto& p : op["parameters"]) {
      if (p["in"] == "path") {
        EXPECT_NE(path.find("{" + p["name"].get<std::string>() + "}"), std::string::npos);
      }
    }
  }
  for (const auto& [path, ops] : doc["paths"].items()) {
    for (const auto& [method, op] : ops.items()) from_doc.insert(method + " " + path);
  }
  EXPECT_EQ(from_table, from_doc);
}

TEST(ServerOpenApiTest, EveryReferencedSchemaExists) {
  nlohmann::json doc = OpenApiDocument();
  std::string text = doc.dump();
  const std::string prefix = "#/components/schemas/";
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    size_t end = text.find('"', at);
    std::string name = text.substr(at + prefix.size(), end - at - prefix.size());
    EXPECT_TRUE(doc["components"]["schemas"].contains(name)) << name;
  }
  for (const QueryParam& q : QueryParams()) {
    bool used = false;
    for (const Route& r : Routes()) used |= r.query.find(q.name) != std::string_view::npos;
    EXPECT_TRUE(used) << q.name;
  }
}

TEST(ServerOpenApiTest, CreateSchemaHasEveryPolicyKey) {
  auto props = OpenApiDocument()["components"]["schemas"]["CreateSandbox"]["properties"];
  for (const char* key : {"name", "timeout", "memory", "pids", "cpus", "env", "output_limit"}) {
    EXPECT_TRUE(props.contains(key)) << key;
  }
}

// docs/api.md documents every route under a "### METHOD PATH" heading.
TEST(ServerOpenApiTest, ApiReferenceDocumentsEveryRoute) {
  std::ifstream in(std::string(AGENTBOX_SOURCE_DIR) + "/docs/api.md");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  for (const Route& r : Routes()) {
    std::string heading = "### " + std::string(r.method) + " " + std::string(r.pattern);
    EXPECT_NE(text.str().find(heading), std::string::npos) << heading;
  }
}

}  // namespace
}  // namespace agentbox
