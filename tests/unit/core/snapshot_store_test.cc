// The snapshots agentbox remembers beside a sandbox: names, max_snapshots, and finding one by
// id, name or id prefix.
#include "core/snapshot_store.h"

#include <gtest/gtest.h>

#include <string>

#include "../proc/temp_tree.h"

namespace agentbox {
namespace {

class SnapshotStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    box_.id = "0123456789ab";
    box_.state_dir = dir_.Path("box");
    other_.id = "ba9876543210";
    other_.state_dir = dir_.Path("other");
    dir_.Mkdir("box");
    dir_.Mkdir("other");
  }

  SnapshotRecord Make(const SandboxRecord& box, const std::string& id, const std::string& name,
                      int64_t taken_ns) {
    SnapshotRecord r = NewSnapshotRecord(box, name);
    r.id = id;
    r.taken_ns = taken_ns;
    r.volume = SnapshotVolumePrefix(box.id) + id;
    auto lock = SnapshotLock::Take(box);
    EXPECT_TRUE(lock.ok());
    Status st = SaveSnapshot(box, r);
    EXPECT_TRUE(st.ok()) << st.message();
    return r;
  }

  TempTree dir_;
  SandboxRecord box_, other_;
};

TEST_F(SnapshotStoreTest, NewRecordsHaveAFreshIdAndTheirVolume) {
  SnapshotRecord a = NewSnapshotRecord(box_, "n"), b = NewSnapshotRecord(box_, "");
  EXPECT_EQ(a.id.size(), 12u);
  EXPECT_EQ(a.id.find_first_not_of("0123456789abcdef"), std::string::npos) << a.id;
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(a.volume, "snap-0123456789ab-" + a.id);
  EXPECT_EQ(a.sandbox_id, box_.id);
  EXPECT_GT(a.taken_ns, 0);
}

TEST_F(SnapshotStoreTest, RecordJsonRoundTrips) {
  SnapshotRecord r = NewSnapshotRecord(box_, "before-tests");
  r.workspace_digest = "sha256:ab";
  auto back = SnapshotRecordFromJson(SnapshotRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->id, r.id);
  EXPECT_EQ(back->name, r.name);
  EXPECT_EQ(back->sandbox_id, r.sandbox_id);
  EXPECT_EQ(back->created_at, r.created_at);
  EXPECT_EQ(back->taken_ns, r.taken_ns);
  EXPECT_EQ(back->volume, r.volume);
  EXPECT_EQ(back->workspace_digest, r.workspace_digest);
  EXPECT_FALSE(SnapshotRecordFromJson("{\"id\": 1}").ok());
  EXPECT_FALSE(SnapshotRecordFromJson("not json").ok());
}

TEST_F(SnapshotStoreTest, NamesAreValidated) {
  for (const char* good : {"a", "v1.2", "before_tests", "0-x"}) {
    EXPECT_TRUE(ValidateSnapshotName(good).ok()) << good;
  }
  for (const std::string& bad :
       {std::string(""), std::string("-x"), std::string(".x"), std::string("a/b"),
        std::string("a b"), std::string(65, 'a'), std::string("..")}) {
    Status st = ValidateSnapshotName(bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("invalid snapshot name"), std::string::npos) << st.message();
  }
}

TEST_F(SnapshotStoreTest, MaxSnapshotsAndTakenNamesRefuseTheNext) {
  box_.spec.max_snapshots = 2;
  std::vector<SnapshotRecord> held;
  EXPECT_TRUE(CheckNewSnapshot(box_, held, "a").ok());
  held.push_back(Make(box_, "aaaa00000001", "a", 1));
  EXPECT_EQ(CheckNewSnapshot(box_, held, "a").code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(CheckNewSnapshot(box_, held, "").ok()) << "no name: never a clash";
  held.push_back(Make(box_, "aaaa00000002", "", 2));
  Status full = CheckNewSnapshot(box_, held, "");
  EXPECT_EQ(full.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("max_snapshots"), std::string::npos) << full.message();
  box_.spec.max_snapshots = 0;
  EXPECT_EQ(CheckNewSnapshot(box_, {}, "").code(), StatusCode::kResourceExhausted) << "0: none";

  SnapshotRecord dup = NewSnapshotRecord(box_, "a");
  EXPECT_EQ(SaveSnapshot(box_, dup).code(), StatusCode::kAlreadyExists) << "Save checks too";
}

TEST_F(SnapshotStoreTest, ListedOldestFirstAndFoundByIdNameOrPrefix) {
  Make(box_, "abcd00000002", "second", 20);
  Make(box_, "abcd00000001", "first", 10);
  Make(box_, "ffff00000003", "", 30);
  std::vector<std::string> ids;
  for (const SnapshotRecord& r : ListSnapshots(box_)) ids.push_back(r.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"abcd00000001", "abcd00000002", "ffff00000003"}));

  auto by_id = FindSnapshot(box_, "abcd00000002");
  ASSERT_TRUE(by_id.ok());
  EXPECT_EQ(by_id->name, "second");
  auto by_name = FindSnapshot(box_, "first");
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(by_name->id, "abcd00000001");
  auto by_prefix = FindSnapshot(box_, "ffff");
  ASSERT_TRUE(by_prefix.ok());
  EXPECT_EQ(by_prefix->id, "ffff00000003");

  EXPECT_EQ(FindSnapshot(box_, "abcd").status().code(), StatusCode::kInvalidArgument)
      << "an ambiguous prefix";
  EXPECT_EQ(FindSnapshot(box_, "fff").status().code(), StatusCode::kNotFound)
      << "a prefix of fewer than 4 digits";
  Status missing = FindSnapshot(box_, "nothing").status();
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("\"nothing\""), std::string::npos) << missing.message();
  EXPECT_EQ(FindSnapshot(box_, "").status().code(), StatusCode::kNotFound);

  ASSERT_TRUE(RemoveSnapshotRecord(box_, "ffff00000003").ok());
  EXPECT_EQ(FindSnapshot(box_, "ffff").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(RemoveSnapshotRecord(box_, "ffff00000003").ok()) << "gone already: fine";
}

TEST_F(SnapshotStoreTest, FoundAcrossSandboxesByIdNotByName) {
  Make(box_, "abcd00000001", "first", 10);
  Make(other_, "1234000000aa", "mine", 5);
  std::vector<SandboxRecord> all = {box_, other_};
  auto found = FindSnapshotIn(all, "1234000000aa");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->first, 1u);
  EXPECT_EQ(found->second.name, "mine");
  auto prefix = FindSnapshotIn(all, "abcd0");
  ASSERT_TRUE(prefix.ok());
  EXPECT_EQ(prefix->first, 0u);
  EXPECT_EQ(FindSnapshotIn(all, "mine").status().code(), StatusCode::kNotFound)
      << "names are per sandbox (SANDBOX:NAME)";
}

}  // namespace
}  // namespace agentbox
