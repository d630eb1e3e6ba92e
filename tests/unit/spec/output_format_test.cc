#include "spec/output_format.h"

#include <gtest/gtest.h>

namespace agentbox {
namespace {

const nlohmann::json kBox = {{"id", "8c126417116a"},
                             {"name", "work"},
                             {"created_at", "2026-11-29T19:15:10Z"},
                             {"usage", nullptr},
                             {"policy", {{"memory", 1024}, {"env", {{"A", "1"}}}}}};

std::string Render(std::string_view format) {
  auto out = RenderFormat(format, kBox);
  return out.ok() ? *out : "ERROR: " + out.status().message();
}

TEST(RenderFormatTest, FieldsAsDockerNamesThem) {
  EXPECT_EQ(Render("{{.ID}}"), "8c126417116a");
  EXPECT_EQ(Render("{{ .Name }}\\t{{.CreatedAt}}\\n"), "work\t2026-11-29T19:15:10Z\n");
  EXPECT_EQ(Render("{{.Policy.Memory}} [{{.Usage}}]"), "1024 []");
  EXPECT_EQ(Render("{{json .Policy.Env}}"), "{\"A\":\"1\"}");
  EXPECT_EQ(Render("a\\\\b {{"), "ERROR: --format: \"{{\" without \"}}\"");
}

TEST(RenderFormatTest, JsonOfTheWholeObject) {
  EXPECT_EQ(nlohmann::json::parse(Render("{{json .}}")), kBox);
}

TEST(RenderFormatTest, UnknownFieldNamesTheFields) {
  const std::string error = Render("{{.Nope}}");
  EXPECT_NE(error.find("no field .Nope"), std::string::npos) << error;
  EXPECT_NE(error.find(".CreatedAt, .ID, .Name"), std::string::npos) << error;
  EXPECT_NE(Render("{{Name}}").find("is no field"), std::string::npos);
}

}  // namespace
}  // namespace agentbox
