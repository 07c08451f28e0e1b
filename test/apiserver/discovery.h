// Discovery as kube-apiserver answers it (the legacy, unaggregated form
// client-go asks for with Accept: application/json): /api (APIVersions),
// /apis (APIGroupList), /apis/<group> (APIGroup), /api/v1 and
// /apis/<group>/<version> (APIResourceList), for the resources the server
// serves as the version it plays; a group or version it does not serve is
// the plain 404 the real server's handler chain ends in.
#pragma once

#include <string>

#include "test/apiserver/api_path.h"
#include "test/apiserver/request.h"
#include "test/apiserver/resources.h"

namespace ksched::testing::apiserver {

// The answer to a discovery path (kApiVersions, kGroupList, kGroup,
// kGroupVersion). `server_address` is what /api advertises
// ("127.0.0.1:6443").
Response DiscoveryResponse(const ApiPath& path, const ServedApis& served,
                           const std::string& server_address, bool pretty);

// Go's http.NotFound, where kube-apiserver's handlers end for a path
// nothing serves: text/plain "404 page not found".
Response PageNotFound();

// /version as the version played answers it (always indented, as the
// real server writes it): v1.36.3 or v1.35.6 with the emulation and
// minimum compatibility fields, or v1.32 as recorded.
Response VersionResponse(int minor);

}  // namespace ksched::testing::apiserver
