// The disk limit's bookkeeping: when a workspace counts as at its limit, how the result and the
// sandbox record carry the quota, and the spec's "none" and "asked for".
#include "proc/disk_quota.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/sandbox_record.h"
#include "proc/workspace_pool.h"
#include "proto/exec_result.h"
#include "spec/spec_overlay.h"

namespace agentbox {
namespace {

TEST(DiskQuotaTest, AtTheLimitMeansWithinWhatOneMoreAllocationNeeds) {
  EXPECT_TRUE(AtDiskLimit(16 * kMiB - 16 * kKiB, 16 * kMiB));  // dd refused at the limit
  EXPECT_FALSE(AtDiskLimit(14 * kMiB, 16 * kMiB));             // 2 MB left: nothing refused
  EXPECT_TRUE(AtDiskLimit(kGiB - 2 * kMiB, kGiB));             // 1/256 of 1G is 4 MiB
  EXPECT_FALSE(AtDiskLimit(kGiB - 8 * kMiB, kGiB));
  EXPECT_FALSE(AtDiskLimit(0, 0)) << "0: nothing can be written, nothing to report";
  EXPECT_FALSE(AtDiskLimit(1ull << 40, kNoDiskLimit));
  EXPECT_TRUE(AtDiskLimit(800 * kKiB, kMiB)) << "256 KiB left";
  EXPECT_TRUE(AtDiskLimit(200 * kKiB, 256 * kKiB)) << "small limits: half of it at most";
  EXPECT_FALSE(AtDiskLimit(100 * kKiB, 256 * kKiB));
}

TEST(DiskQuotaTest, TheResultSaysHowTheLimitIsHeld) {
  ExecResult r;
  WorkspaceQuota q;
  q.mechanism = QuotaMechanism::kBtrfsQgroup;
  q.limit_bytes = 16 * kMiB;
  r.disk_limit = DiskLimitReportOf(q);
  auto j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_EQ(
      j["disk_limit"],
      nlohmann::json::parse(R"({"bytes":16777216,"enforced":true,"mechanism":"btrfs-qgroup"})"));
  EXPECT_EQ(UnheldDiskLimitNote(r), "");

  WorkspaceQuota unheld;
  unheld.limit_bytes = kGiB;
  unheld.not_enforced = "ext4 holding /w has no project quotas";
  r.disk_limit = DiskLimitReportOf(unheld);
  j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_EQ(j["disk_limit"]["enforced"], false);
  EXPECT_TRUE(j["disk_limit"]["mechanism"].is_null());
  EXPECT_EQ(j["disk_limit"]["reason"], "ext4 holding /w has no project quotas");
  EXPECT_NE(UnheldDiskLimitNote(r).find("not enforced: ext4 holding /w"), std::string::npos);

  WorkspaceQuota none;  // --disk-limit none: nothing held, nothing to say
  r.disk_limit = DiskLimitReportOf(none);
  j = nlohmann::json::parse(ExecResultToJson(r));
  EXPECT_TRUE(j["disk_limit"]["bytes"].is_null());
  EXPECT_EQ(UnheldDiskLimitNote(r), "");
}

TEST(DiskQuotaTest, TheRecordKeepsTheQuotaForRmAndExec) {
  SandboxRecord r;
  r.id = "0123456789ab";
  r.disk_quota.mechanism = QuotaMechanism::kProjectQuota;
  r.disk_quota.id = 1234567;
  r.disk_quota.limit_bytes = 16 * kMiB;
  r.disk_quota.baseline_bytes = 4096;
  r.disk_quota.inode_limit = 4096;
  auto back = SandboxRecordFromJson(SandboxRecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->disk_quota.mechanism, QuotaMechanism::kProjectQuota);
  EXPECT_EQ(back->disk_quota.id, 1234567u);
  EXPECT_EQ(back->disk_quota.limit_bytes, 16 * kMiB);
  EXPECT_EQ(back->disk_quota.baseline_bytes, 4096u);
  EXPECT_EQ(back->disk_quota.inode_limit, 4096u);

  r.disk_quota = WorkspaceQuota{};
  r.disk_quota.pool_volume = "sb-0123456789ab";
  back = SandboxRecordFromJson(SandboxRecordToJson(r));
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->disk_quota.limited());
  EXPECT_EQ(back->disk_quota.pool_volume, "sb-0123456789ab");
}

TEST(DiskQuotaTest, NoneAndAskedForComeFromEverySource) {
  SpecOverlay o;
  ASSERT_TRUE(SetFieldFromText("disk_limit", "none", &o).ok());
  SandboxSpec s = MergeSpec(SpecOverlay{}, o);
  EXPECT_EQ(s.limits.disk_bytes, kNoDiskLimit);
  EXPECT_TRUE(s.disk_limit_explicit);
  EXPECT_FALSE(MergeSpec(SpecOverlay{}, SpecOverlay{}).disk_limit_explicit) << "the default";
  EXPECT_FALSE(SetFieldFromText("memory", "none", &o).ok()) << "none is for the disk limit only";
}

TEST(DiskQuotaTest, InodeCeilingIsOnePer4KiBOfTheLimit) {
  EXPECT_EQ(InodeCeiling(kGiB), kGiB / 4096);
  EXPECT_EQ(InodeCeiling(0), 1024u);
  EXPECT_EQ(InodeCeiling(kNoDiskLimit), 0u);
}

}  // namespace
}  // namespace agentbox
