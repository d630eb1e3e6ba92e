#include <gtest/gtest.h>

#include "http/auth.h"
#include "http/http_status.h"
#include "http/tenants.h"

namespace agentbox {
namespace {

constexpr const char* kTokens = R"({"tokens": [
  {"token": "tok-a-7f3c9e1b2d4a", "tenant": "a", "max_sandboxes": 2, "max_concurrent_execs": 1},
  {"token": "tok-b-7f3c9e1b2d4a", "tenant": "b"}]})";

TEST(ServerAuthTest, ParsesAndAuthenticates) {
  auto table = TokenTable::Parse(kTokens, "tokens.json");
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table->size(), 2u);
  auto a = table->Authenticate("Bearer tok-a-7f3c9e1b2d4a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->tenant, "a");
  EXPECT_EQ(a->max_sandboxes, 2u);
  EXPECT_EQ(a->max_concurrent_execs, 1u);
  auto b = table->Authenticate("bearer tok-b-7f3c9e1b2d4a");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->tenant, "b");
  EXPECT_EQ(b->max_sandboxes, 0u);
  EXPECT_FALSE(b->anonymous());
}

TEST(ServerAuthTest, RejectsBadCredentials) {
  auto table = TokenTable::Parse(kTokens, "tokens.json");
  ASSERT_TRUE(table.ok());
  for (const char* header :
       {"", "Bearer", "Bearer ", "Bearer tok-c-7f3c9e1b2d4a", "Basic tok-a-7f3c9e1b2d4a",
        "Bearer tok-a-7f3c9e1b2d4a ", "Bearer tok-", "tok-a-7f3c9e1b2d4a"}) {
    EXPECT_FALSE(table->Authenticate(header).ok()) << header;
  }
}

TEST(ServerAuthTest, StrictFile) {
  const char* bad[] = {
      "",
      "[]",
      "{}",
      R"({"tokens": []})",
      R"({"tokens": [{"token": "0123456789abcdef"}]})",
      R"({"tokens": [{"token": "", "tenant": "a"}]})",
      R"({"tokens": [{"token": "a", "tenant": "a"}]})",                  // guessable
      R"({"tokens": [{"token": "0123456789abcde", "tenant": "a"}]})",    // 15 characters
      R"({"tokens": [{"token": "0123456789 abcdef", "tenant": "a"}]})",  // a space
      R"({"tokens": [{"token": "0123456789abcdef", "tenant": "a/b"}]})",
      R"({"tokens": [{"token": "0123456789abcdef", "tenant": "a", "extra": 1}]})",
      R"({"tokens": [{"token": "0123456789abcdef", "tenant": "a", "max_sandboxes": -1}]})",
      R"({"tokens": [{"token": "0123456789abcdef", "tenant": "a", "max_sandboxes": 1.5}]})",
      R"({"tokens": [{"token": "0123456789abcdef", "tenant": "a"}, {"token": "0123456789abcdef", "tenant": "b"}]})",
      R"({"tokens": [{"token": "0123456789abcdef", "tenant": "a"}], "more": 1})",
  };
  for (const char* text : bad) {
    auto t = TokenTable::Parse(text, "t.json");
    EXPECT_FALSE(t.ok()) << text;
    if (!t.ok()) {
      EXPECT_TRUE(t.status().message().starts_with("t.json")) << t.status().message();
    }
  }
}

TEST(ServerAuthTest, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEquals("ab", "abc"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(ServerTenantsTest, VisibilityAndQuotas) {
  TenantRegistry reg("");
  Caller a{"a", 2, 1}, b{"b", 0, 0}, anon;
  auto all = [](const std::string&) { return true; };
  ASSERT_TRUE(reg.Reserve(a, all).ok());
  ASSERT_TRUE(reg.Commit(a, "id1").ok());
  EXPECT_TRUE(reg.Visible(a, "id1"));
  EXPECT_FALSE(reg.Visible(b, "id1"));
  EXPECT_TRUE(reg.Visible(anon, "id1"));
  EXPECT_FALSE(reg.Visible(a, "cli-made"));
  ASSERT_TRUE(reg.Reserve(a, all).ok());  // in flight: counts against the quota
  Status over = reg.Reserve(a, all);
  EXPECT_EQ(HttpStatusFor(over), 429);
  reg.Cancel(a);
  EXPECT_TRUE(reg.Reserve(a, all).ok());
  reg.Cancel(a);
  // A sandbox removed behind the server's back (CLI rm, gc) frees its slot.
  ASSERT_TRUE(reg.Reserve(a, all).ok());
  ASSERT_TRUE(reg.Commit(a, "id2").ok());
  EXPECT_EQ(HttpStatusFor(reg.Reserve(a, all)), 429);
  EXPECT_TRUE(reg.Reserve(a, [](const std::string& id) { return id != "id2"; }).ok());
  reg.Cancel(a);
  ASSERT_TRUE(reg.Forget("id2").ok());
  ASSERT_TRUE(reg.StartExec(a).ok());
  EXPECT_EQ(HttpStatusFor(reg.StartExec(a)), 429);
  EXPECT_TRUE(reg.StartExec(b).ok());
  reg.EndExec(a);
  EXPECT_TRUE(reg.StartExec(a).ok());
  ASSERT_TRUE(reg.Forget("id1").ok());
  EXPECT_FALSE(reg.Visible(a, "id1"));
}

TEST(ServerTenantsTest, JsonRoundTripAndPrune) {
  TenantRegistry::Entries entries{{{"id1", "a"}, {"id2", "b"}}, {{"id1", "build"}}};
  auto back = TenantRegistry::ParseJson(TenantRegistry::ToJson(entries));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->owners, entries.owners);
  EXPECT_EQ(back->names, entries.names);
  // A file written before names existed still reads.
  auto old = TenantRegistry::ParseJson(R"({"sandboxes": {"id1": "a"}})");
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->names.empty());
  EXPECT_FALSE(TenantRegistry::ParseJson("{").ok());
  EXPECT_FALSE(TenantRegistry::ParseJson(R"({"sandboxes": {"x": 1}})").ok());
  EXPECT_FALSE(TenantRegistry::ParseJson(std::string(100000, '[')).ok());
  TenantRegistry reg("");
  Caller a{"a", 0, 0};
  ASSERT_TRUE(reg.Reserve(a, [](const std::string&) { return true; }).ok());
  ASSERT_TRUE(reg.Commit(a, "gone").ok());
  reg.Prune([](const std::string& id) { return id != "gone"; });
  EXPECT_FALSE(reg.Visible(a, "gone"));
}

// Tenant a's "build" and tenant b's "build" are two sandboxes; a name another tenant holds is
// never a 409 (issue #12, point 8).
TEST(ServerTenantsTest, NamesArePerTenant) {
  TenantRegistry reg("");
  Caller a{"a", 0, 0}, b{"b", 0, 0}, anon;
  auto all = [](const std::string&) { return true; };
  ASSERT_TRUE(reg.Reserve(a, all, "build").ok());
  EXPECT_EQ(HttpStatusFor(reg.Reserve(a, all, "build")), 409);  // being created
  ASSERT_TRUE(reg.Reserve(b, all, "build").ok());
  ASSERT_TRUE(reg.Commit(a, "ida", "build").ok());
  ASSERT_TRUE(reg.Commit(b, "idb", "build").ok());
  EXPECT_EQ(reg.Named(a, "build"), "ida");
  EXPECT_EQ(reg.Named(b, "build"), "idb");
  EXPECT_EQ(reg.Named(anon, "build"), std::nullopt);  // the anonymous caller uses the store's
  EXPECT_EQ(reg.NameOf("idb"), "build");
  EXPECT_EQ(HttpStatusFor(reg.Reserve(a, all, "build")), 409);
  // Gone behind the server's back: the name is free again.
  ASSERT_TRUE(reg.Reserve(
                     a, [](const std::string& id) { return id != "ida"; }, "build")
                  .ok());
  ASSERT_TRUE(reg.Commit(a, "ida2", "build").ok());
  EXPECT_EQ(reg.Named(a, "build"), "ida2");
  ASSERT_TRUE(reg.Forget("idb").ok());
  EXPECT_EQ(reg.Named(b, "build"), std::nullopt);
  ASSERT_TRUE(reg.Reserve(b, all, "x").ok());
  reg.Cancel(b, "x");
  EXPECT_TRUE(reg.Reserve(b, all, "x").ok());
}

// A record made through another replica (adopted from the cluster) carries its tenant: that
// tenant owns it and knows it by its name, no other does; this map's own entry wins.
TEST(ServerTenantsTest, RecordsCarryTheirTenant) {
  TenantRegistry reg("");
  Caller a{"a", 0, 0}, b{"b", 0, 0}, anon;
  SandboxRecord made;
  made.id = "id1";
  made.tenant = "a";
  made.tenant_name = "build";
  EXPECT_TRUE(reg.Owns(a, made));
  EXPECT_FALSE(reg.Owns(b, made));
  EXPECT_TRUE(reg.Owns(anon, made));
  EXPECT_EQ(reg.NameFor(made), "build");
  SandboxRecord untenanted;
  untenanted.id = "id2";
  EXPECT_FALSE(reg.Owns(a, untenanted));
  EXPECT_FALSE(reg.Named(a, "build").has_value());
  reg.Learn(made);
  EXPECT_EQ(reg.Named(a, "build"), "id1");
  EXPECT_FALSE(reg.Named(b, "build").has_value());
  EXPECT_TRUE(reg.Visible(a, "id1"));
  SandboxRecord claimed = made;  // the map's entry wins over a record saying otherwise
  claimed.tenant = "b";
  EXPECT_FALSE(reg.Owns(b, claimed));
}

// The tenant's sandboxes the cluster holds count once each beside this map's, and their names
// are taken: what two replicas share.
TEST(ServerTenantsTest, ReserveCountsSandboxesElsewhere) {
  TenantRegistry reg("");
  Caller a{"a", 2, 0};
  auto exists = [](const std::string&) { return true; };
  ASSERT_TRUE(reg.Reserve(a, exists, "here").ok());
  ASSERT_TRUE(reg.Commit(a, "id1", "here").ok());
  TenantRegistry::Elsewhere cluster{{"id1", "id2"}, {"here", "there"}};
  EXPECT_EQ(reg.Reserve(a, exists, "", cluster).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(reg.Reserve(a, exists, "there", {{"id1"}, {"there"}}).code(),
            StatusCode::kAlreadyExists);
  ASSERT_TRUE(reg.Reserve(a, exists, "new", {{"id1"}, {"here"}}).ok());
  reg.Cancel(a, "new");
}

TEST(ServerHttpStatusTest, OneMapping) {
  EXPECT_EQ(HttpStatusFor(InvalidArgument("x")), 400);
  EXPECT_EQ(HttpStatusFor(NotFound("x")), 404);
  EXPECT_EQ(HttpStatusFor(AlreadyExists("x")), 409);
  EXPECT_EQ(HttpStatusFor(PermissionDenied("x")), 403);
  EXPECT_EQ(HttpStatusFor(ResourceExhausted("x")), 413);
  EXPECT_EQ(HttpStatusFor(QuotaExceeded("x")), 429);
  EXPECT_EQ(HttpStatusFor(Unavailable("x")), 503);
  EXPECT_EQ(HttpStatusFor(Internal("x")), 500);
  EXPECT_EQ(ErrorBody(NotFound("no \"x\"")),
            "{\"code\":\"not_found\",\"error\":\"no \\\"x\\\"\"}\n");
}

}  // namespace
}  // namespace agentbox
