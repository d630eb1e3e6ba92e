// The OpenAPI 3 document of `agentbox serve`, generated from the route table (routes.h) plus
// the schemas of the bodies, so GET /v1/openapi.json always lists exactly the routes served.
#pragma once

#include <nlohmann/json.hpp>

namespace agentbox {

nlohmann::json OpenApiDocument();

}  // namespace agentbox
