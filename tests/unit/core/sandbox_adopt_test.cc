// SandboxManager's lookups beyond the state store (Backend::Adoptable, Backend::Gone), against a
// fake backend that keeps its sandboxes "elsewhere" as the kubernetes backend keeps them in the
// cluster: a miss adopts by id, name or unique prefix; ambiguity is an error; ls shows them once;
// a record whose box is gone is dropped, not shown dead.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>

#include "core/sandbox_manager.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

struct Elsewhere {
  std::vector<SandboxRecord> records;
  std::set<std::string> gone;
  // ResumeEgress: what it answers, the proxy pid it "starts", and the pids it was given.
  Status resume = OkStatus();
  pid_t next_proxy = 4242;
  std::vector<pid_t> resumed_with;
  // OpenExecEgress: the proxy pid of the record it was given (it then stops the exec before
  // the agent, which is nowhere).
  std::vector<pid_t> opened_with;
};

class ElsewhereBackend : public Backend {
 public:
  explicit ElsewhereBackend(Elsewhere* world) : world_(world) {}
  Status Create(SandboxRecord&) override { return Unavailable("not here"); }
  bool IsAlive(const SandboxRecord& r) override { return world_->gone.count(r.id) == 0; }
  Status Destroy(const SandboxRecord& r) override {
    world_->gone.insert(r.id);
    return OkStatus();
  }
  StatusOr<ResourceSnapshot> Snapshot(const SandboxRecord&) override { return ResourceSnapshot{}; }
  StatusOr<std::vector<SandboxRecord>> Adoptable() override {
    std::vector<SandboxRecord> out;
    for (const SandboxRecord& r : world_->records) {
      if (world_->gone.count(r.id) == 0) out.push_back(r);
    }
    return out;
  }
  bool Gone(const SandboxRecord& r) override { return world_->gone.count(r.id) > 0; }
  Status ResumeEgress(SandboxRecord& r) override {
    world_->resumed_with.push_back(r.egress_pid);
    if (!world_->resume.ok()) return world_->resume;
    if (r.egress_pid == 0) r.egress_pid = world_->next_proxy;  // "starts" one when none runs
    return OkStatus();
  }
  StatusOr<std::unique_ptr<ExecEgress>> OpenExecEgress(const SandboxRecord& r) override {
    world_->opened_with.push_back(r.egress_pid);
    return Unavailable("stopped before the agent");
  }
  std::vector<std::string> CollectGarbage(const std::vector<std::string>&) override { return {}; }

 private:
  Elsewhere* world_;
};

SandboxRecord Made(const std::string& id, const std::string& name) {
  SandboxRecord r;
  r.id = id;
  r.name = name;
  r.backend = BackendKind::kKubernetes;
  r.spec.backend = BackendKind::kKubernetes;
  r.created_at = "2026-12-05T14:00:00Z";
  r.agent_socket = "tcp:10.0.0.1:7070";
  return r;
}

class SandboxAdoptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/agentbox-adopt-test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    for (const char* sub : {"/sandboxes", "/names"}) ASSERT_TRUE(MakeDirs(root_ + sub, 0700).ok());
  }
  void TearDown() override { RemoveTree(root_); }

  SandboxManager Manager() {
    BackendList list = {
        {BackendKind::kKubernetes,
         [this](const std::string&) { return std::make_unique<ElsewhereBackend>(&world_); },
         /*adopts=*/true}};
    return SandboxManager(StateStore(root_), std::move(list));
  }

  std::string root_;
  Elsewhere world_;
};

TEST_F(SandboxAdoptTest, MissIsAdoptedByIdNameAndPrefix) {
  world_.records = {Made("0a1b2c3d4e5f", "web"), Made("9f8e7d6c5b4a", "")};
  SandboxManager manager = Manager();
  auto by_name = manager.Find("web");
  ASSERT_TRUE(by_name.ok()) << by_name.status().message();
  EXPECT_EQ(by_name->record.id, "0a1b2c3d4e5f");
  EXPECT_EQ(by_name->state, SandboxState::kRunning);
  EXPECT_TRUE(by_name->record.adopted);
  EXPECT_EQ(by_name->record.state_dir, root_ + "/sandboxes/0a1b2c3d4e5f");
  // Kept in the store now, name and all.
  auto stored = manager.store().Find("web");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->adopted);
  EXPECT_EQ(manager.Find("9f8e7d6c5b4a")->record.id, "9f8e7d6c5b4a");
  EXPECT_EQ(manager.Find("9f8e")->record.id, "9f8e7d6c5b4a");
  EXPECT_EQ(manager.Find("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(SandboxAdoptTest, AmbiguityIsAnError) {
  world_.records = {Made("0a1b2c3d4e5f", "twin"), Made("0a1b99999999", "twin")};
  SandboxManager manager = Manager();
  auto twin = manager.Find("twin");
  EXPECT_EQ(twin.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twin.status().message().find("ambiguous"), std::string::npos);
  EXPECT_EQ(manager.Find("0a1b").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(manager.Find("0a1b2").status().code(), StatusCode::kOk);
}

TEST_F(SandboxAdoptTest, ListShowsEachOnce) {
  world_.records = {Made("0a1b2c3d4e5f", "web"), Made("9f8e7d6c5b4a", "")};
  SandboxManager manager = Manager();
  ASSERT_TRUE(manager.Find("web").ok());  // one adopted, one not
  auto list = manager.List();
  ASSERT_EQ(list.size(), 2u);
  std::set<std::string> ids = {list[0].record.id, list[1].record.id};
  EXPECT_EQ(ids, std::set<std::string>({"0a1b2c3d4e5f", "9f8e7d6c5b4a"}));
}

TEST_F(SandboxAdoptTest, GoneRecordIsDroppedNotDead) {
  world_.records = {Made("0a1b2c3d4e5f", "web")};
  SandboxManager manager = Manager();
  ASSERT_TRUE(manager.Find("web").ok());
  world_.gone.insert("0a1b2c3d4e5f");  // removed through another state dir
  EXPECT_EQ(manager.Find("web").status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(PathExists(root_ + "/sandboxes/0a1b2c3d4e5f"));
  EXPECT_TRUE(manager.List().empty());
}

SandboxRecord TenantMade(const std::string& id, const std::string& tenant,
                         const std::string& tenant_name) {
  SandboxRecord r = Made(id, "");
  r.tenant = tenant;
  r.tenant_name = tenant_name;
  return r;
}

// A tenant's lookup among the sandboxes kept elsewhere (another serve replica's): by its own name
// for it, its id or a prefix, and never another tenant's, which is as good as missing.
TEST_F(SandboxAdoptTest, TenantFindsItsOwnOnlyByItsNameIdOrPrefix) {
  world_.records = {TenantMade("0a1b2c3d4e5f", "a", "build"),
                    TenantMade("0a1b99999999", "b", "build"), Made("777777777777", "build")};
  SandboxManager manager = Manager();
  auto by_name = manager.FindTenantSandbox("a", "build");
  ASSERT_TRUE(by_name.ok()) << by_name.status().message();
  EXPECT_EQ(by_name->record.id, "0a1b2c3d4e5f");
  EXPECT_TRUE(by_name->record.adopted);
  EXPECT_EQ(manager.store().Load("0a1b2c3d4e5f")->tenant, "a");  // kept, with its tenant
  EXPECT_EQ(manager.FindTenantSandbox("b", "build")->record.id, "0a1b99999999");
  // The prefix 0a1b names one sandbox of each tenant: each tenant sees only its own.
  EXPECT_EQ(manager.FindTenantSandbox("b", "0a1b")->record.id, "0a1b99999999");
  EXPECT_EQ(manager.FindTenantSandbox("b", "0a1b2c3d4e5f").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(manager.FindTenantSandbox("c", "build").status().code(), StatusCode::kNotFound);
  // The record's name is not the tenant's: a sandbox no tenant owns is no tenant's.
  EXPECT_EQ(manager.FindTenantSandbox("a", "777777777777").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(manager.FindTenantSandbox("", "build").status().code(), StatusCode::kNotFound);
}

TEST_F(SandboxAdoptTest, TenantsNameMadeTwiceIsAmbiguous) {
  world_.records = {TenantMade("0a1b2c3d4e5f", "a", "build"),
                    TenantMade("9f8e7d6c5b4a", "a", "build")};
  SandboxManager manager = Manager();
  EXPECT_EQ(manager.FindTenantSandbox("a", "build").status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(manager.FindTenantSandbox("a", "9f8e").ok());
}

// An adopted sandbox with allow_hosts: its exec first has the backend start a proxy on this host
// (Backend::ResumeEgress), kept in the record so later execs, rm and gc here know it, and the
// exec's listener is opened from that record.
TEST_F(SandboxAdoptTest, AdoptedSandboxsExecStartsAndKeepsItsProxy) {
  SandboxRecord made = Made("0a1b2c3d4e5f", "web");
  made.spec.allow_hosts = {"example.com"};
  world_.records = {made};  // the pod's record: no proxy (the maker's is its own host's)
  SandboxManager manager = Manager();
  auto found = manager.Find("web");
  ASSERT_TRUE(found.ok()) << found.status().message();
  OutputCapture output(1024, /*forward_fds=*/false);
  ExecRequest request;
  request.argv = {"true"};
  auto first = manager.Exec(found->record, request, output);
  EXPECT_EQ(first.status().message(), "stopped before the agent");
  EXPECT_EQ(world_.resumed_with, std::vector<pid_t>({0}));
  EXPECT_EQ(world_.opened_with, std::vector<pid_t>({4242}));
  EXPECT_EQ(manager.store().Load("0a1b2c3d4e5f")->egress_pid, 4242);
  // The next exec, from a record read before the proxy started, finds it in the store.
  (void)manager.Exec(found->record, request, output);
  EXPECT_EQ(world_.resumed_with, std::vector<pid_t>({0, 4242}));
  EXPECT_EQ(world_.opened_with, std::vector<pid_t>({4242, 4242}));
}

// A proxy that cannot start refuses the exec, naming why: it never runs without its allow_hosts.
TEST_F(SandboxAdoptTest, AdoptedSandboxsExecRefusedWhenNoProxyStarts) {
  SandboxRecord made = Made("0a1b2c3d4e5f", "web");
  made.spec.allow_hosts = {"example.com"};
  world_.records = {made};
  world_.resume = Unavailable("the pod's agent refused the relay");
  SandboxManager manager = Manager();
  auto found = manager.Find("web");
  ASSERT_TRUE(found.ok()) << found.status().message();
  OutputCapture output(1024, /*forward_fds=*/false);
  ExecRequest request;
  request.argv = {"true"};
  auto refused = manager.Exec(found->record, request, output);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("egress proxy"), std::string::npos);
  EXPECT_NE(refused.status().message().find("the pod's agent refused the relay"),
            std::string::npos);
  EXPECT_TRUE(world_.opened_with.empty()) << "the exec went on without a proxy";
  EXPECT_EQ(manager.store().Load("0a1b2c3d4e5f")->egress_pid, 0);
}

}  // namespace
}  // namespace agentbox
