// Image references and OCI documents (src/image/image_ref.*, oci_json.*): what a registry, an
// archive or a user hands `image pull`/`load`/`--image`. Any bytes are refused with
// kInvalidArgument (or kNotFound for a platform), never a crash, and an accepted reference
// parses again to itself.
#include "fuzz_util.h"
#include "image/image_ref.h"
#include "image/oci_json.h"

using namespace agentbox;
using namespace agentbox::image;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::AsText(data, size);
  auto ref = ParseImageRef(text);
  if (ref.ok()) {
    auto again = ParseImageRef(ref->Canonical());
    FUZZ_CHECK(again.ok() && again->Canonical() == ref->Canonical(), ref->Canonical());
  }
  auto kind = ClassifyDocument(text, "");
  if (kind.ok() && *kind == DocumentKind::kIndex) {
    auto index = ParseIndex(text);
    if (index.ok()) (void)SelectPlatform(*index, Platform{});
  }
  auto manifest = ParseManifest(text);
  if (!manifest.ok()) {
    FUZZ_CHECK(manifest.status().code() == StatusCode::kInvalidArgument,
               manifest.status().message());
  }
  auto config = ParseImageConfig(text);
  if (!config.ok()) {
    FUZZ_CHECK(config.status().code() == StatusCode::kInvalidArgument, config.status().message());
  }
  return 0;
}
