// How the pids limit is reported held or not (core/pids_limit.h): never claimed where the box's
// pids.max does not hold it.
#include "core/pids_limit.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace agentbox {
namespace {

TEST(PidsLimitTest, HeldWhenTheBoxsPidsMaxIsAtMostThePolicys) {
  for (uint64_t got : {uint64_t{256}, uint64_t{100}}) {
    PidsLimitReport r = PidsLimitReportOf(256, got, /*pod=*/true);
    EXPECT_EQ(r.enforced, true) << got;
    EXPECT_EQ(PidsLimitJson(r), nlohmann::json({{"count", 256}, {"enforced", true}}));
    EXPECT_EQ(UnheldPidsLimitNote(r), "");
  }
}

TEST(PidsLimitTest, APodWithoutOneSaysSo) {
  PidsLimitReport r = PidsLimitReportOf(256, 2048, /*pod=*/true);  // `podman run`'s default
  EXPECT_EQ(r.enforced, false);
  EXPECT_NE(r.reason.find("podPidsLimit"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("allows 2048"), std::string::npos) << r.reason;
  EXPECT_EQ(PidsLimitJson(r)["reason"], r.reason);
  EXPECT_EQ(UnheldPidsLimitNote(r).rfind("note: the pids limit 256 is not enforced: a pod", 0), 0u);
  EXPECT_NE(PidsLimitReportOf(256, UINT64_MAX, true).reason.find("max"), std::string::npos);
}

TEST(PidsLimitTest, UnknownIsNotHeldAndNoReadingIsNull) {
  PidsLimitReport unknown = PidsLimitReportOf(64, 0, /*pod=*/false);
  EXPECT_EQ(unknown.enforced, false);
  EXPECT_NE(unknown.reason.find("unknown"), std::string::npos);
  PidsLimitReport dead = PidsLimitReportOf(64, std::nullopt, /*pod=*/false);
  EXPECT_FALSE(dead.enforced.has_value());
  EXPECT_TRUE(PidsLimitJson(dead)["enforced"].is_null());
  EXPECT_FALSE(PidsLimitJson(dead).contains("reason"));
  EXPECT_EQ(UnheldPidsLimitNote(dead), "");
}

}  // namespace
}  // namespace agentbox
