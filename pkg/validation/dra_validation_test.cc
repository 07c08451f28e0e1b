// resource.k8s.io objects and the claims of pods, with kube-apiserver
// v1.36's exact messages: cases ported from the tables of
// pkg/apis/resource/validation/*_test.go and pkg/apis/core/validation,
// adjusted where the API's defaults apply before validation (a count of 0
// becomes 1, an empty toleration operator Equal), and the answer of a real
// v1.36.3 API server recorded in shared/apiserver/v1.36.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/yaml.h"
#include "pkg/util/json.h"
#include "pkg/validation/validation.h"

namespace ksched::validation {
namespace {

using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

// apimachinery's messages, written out once.
const std::string kNamePart =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyName',  or "
    "'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kLabelValue =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?"
    "[A-Za-z0-9])?')";
const std::string kDnsLabel =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric "
    "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kDnsSubdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kCIdentifier =
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_' (e.g. "
    "'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')";
const std::string kRequestRef =
    "must be the name of a request in the claim or the name of a request "
    "and a subrequest separated by '/'";
const std::string kFullyQualified =
    "a fully qualified name must be a domain and a name separated by a slash";
const std::string kBadName = "!@#$%^";

rapidjson::Document MustParse(std::string_view yaml) {
  auto docs = api::YamlToJson(yaml);
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "bad test YAML: "
                  << (docs.ok() ? "not one document" : docs.error().message());
    return rapidjson::Document();
  }
  return std::move((*docs)[0]);
}

std::vector<std::string> Errors(std::string_view kind, std::string_view yaml) {
  rapidjson::Document doc = MustParse(yaml);
  std::vector<std::string> out;
  for (const FieldError& e : ValidateObject(kind, doc)) {
    out.push_back(e.String());
  }
  return out;
}

struct Case {
  std::string name;
  std::string kind;
  std::string yaml;
  std::vector<std::string> want;
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.name;
}

class DraRuleTest : public ::testing::TestWithParam<Case> {};

TEST_P(DraRuleTest, ExactMessages) {
  const Case& c = GetParam();
  EXPECT_THAT(Errors(c.kind, c.yaml), ElementsAreArray(c.want)) << c.yaml;
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

// `n` copies of `item` as YAML flow sequence members, each with `{i}`
// replaced by its index.
std::string Repeat(std::string_view item, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string one(item);
    for (size_t at; (at = one.find("{i}")) != std::string::npos;) {
      one.replace(at, 3, std::to_string(i));
    }
    if (i > 0) out += ", ";
    out += one;
  }
  return out;
}

// A claim whose spec.devices has the block `devices` (lines indented four
// spaces).
std::string Claim(std::string_view devices) {
  return "metadata: {name: claim, namespace: ns}\nspec:\n  devices:\n" +
         std::string(devices);
}

// A claim with the one request `request` (a YAML flow mapping's members).
std::string ClaimRequest(std::string_view request) {
  return Claim("    requests:\n    - {" + std::string(request) + "}\n");
}

const std::string kExactRequest =
    "name: gpu, exactly: {deviceClassName: gpu.example.com}";

const std::vector<Case>& ClaimCases() {
  static const auto* const kCases = new std::vector<Case>{
      {"ValidClaim", "ResourceClaim", ClaimRequest(kExactRequest), {}},
      // ---- counts and allocation modes
      {"NegativeCount",
       "ResourceClaim",
       ClaimRequest(
           "name: gpu, exactly: {deviceClassName: gpu.example.com, count: -2}"),
       {"spec.devices.requests[0].exactly.count: Invalid value: -2: must be "
        "greater than zero"}},
      // The API defaults an ExactCount request's count of 0 to 1 before it
      // validates, so the API server takes these.
      {"ZeroCountIsDefaultedToOne",
       "ResourceClaim",
       ClaimRequest(
           "name: gpu, exactly: {deviceClassName: gpu.example.com, count: 0}"),
       {}},
      {"ZeroExactCountIsDefaultedToOne",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: gpu.example.com, "
                    "allocationMode: ExactCount, count: 0}"),
       {}},
      {"NegativeSubrequestCount",
       "ResourceClaim",
       ClaimRequest("name: gpu, firstAvailable: [{name: big, deviceClassName: "
                    "gpu.example.com, count: -1}]"),
       {"spec.devices.requests[0].firstAvailable[0].count: Invalid value: -1: "
        "must be greater than zero"}},
      {"CountWithAllMode",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: gpu.example.com, "
                    "allocationMode: All, count: 2}"),
       {"spec.devices.requests[0].exactly.count: Invalid value: 2: must not "
        "be specified when allocationMode is 'All'"}},
      {"AllModeWithoutCount",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: gpu.example.com, "
                    "allocationMode: All}"),
       {}},
      {"UnknownAllocationMode",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: gpu.example.com, "
                    "allocationMode: other}"),
       {"spec.devices.requests[0].exactly.allocationMode: Unsupported value: "
        "\"other\": supported values: \"All\", \"ExactCount\""}},
      // kube's "allocation-mode" table case.
      {"AllocationModes",
       "ResourceClaim",
       Claim("    requests:\n"
             "    - {name: foo, exactly: {deviceClassName: foo, "
             "allocationMode: ExactCount, count: 1}}\n"
             "    - {name: foo2, exactly: {deviceClassName: foo, "
             "allocationMode: All}}\n"
             "    - {name: foo3, exactly: {deviceClassName: foo, "
             "allocationMode: ExactCount, count: -1}}\n"
             "    - {name: foo4, exactly: {deviceClassName: foo, "
             "allocationMode: other, count: 1}}\n"
             "    - {name: foo5, exactly: {deviceClassName: foo, "
             "allocationMode: All, count: 2}}\n"
             "    - {name: foo, exactly: {deviceClassName: foo, "
             "allocationMode: ExactCount, count: 1}}\n"),
       {"spec.devices.requests[2].exactly.count: Invalid value: -1: must be "
        "greater than zero",
        "spec.devices.requests[3].exactly.allocationMode: Unsupported value: "
        "\"other\": supported values: \"All\", \"ExactCount\"",
        "spec.devices.requests[4].exactly.count: Invalid value: 2: must not "
        "be specified when allocationMode is 'All'",
        "spec.devices.requests[5]: Duplicate value: \"foo\""}},
      // ---- request names and shapes
      {"BadRequestName",
       "ResourceClaim",
       ClaimRequest("name: '" + kBadName +
                    "', exactly: {deviceClassName: gpu.example.com}"),
       {"spec.devices.requests[0].name: Invalid value: \"" + kBadName +
        "\": " + kDnsLabel}},
      {"DuplicateRequestNames",
       "ResourceClaim",
       Claim("    requests:\n    - {" + kExactRequest + "}\n    - {" +
             kExactRequest + "}\n"),
       {"spec.devices.requests[1]: Duplicate value: \"gpu\""}},
      {"NeitherExactlyNorFirstAvailable",
       "ResourceClaim",
       ClaimRequest("name: gpu"),
       {"spec.devices.requests[0]: Required value: exactly one of `exactly` "
        "or `firstAvailable` is required"}},
      {"BothExactlyAndFirstAvailable",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: gpu.example.com}, "
                    "firstAvailable: [{name: a, deviceClassName: "
                    "gpu.example.com}]"),
       {"spec.devices.requests[0]: Invalid value: null: exactly one of "
        "`exactly` or `firstAvailable` is required, but multiple fields are "
        "set"}},
      {"MissingAndBadClassName",
       "ResourceClaim",
       Claim("    requests:\n    - {name: a, exactly: {count: 1}}\n"
             "    - {name: b, exactly: {deviceClassName: '" +
             kBadName + "'}}\n"),
       {"spec.devices.requests[0].exactly.deviceClassName: Required value",
        "spec.devices.requests[1].exactly.deviceClassName: Invalid value: "
        "\"" +
            kBadName + "\": " + kDnsSubdomain}},
      {"InvalidSubrequest",
       "ResourceClaim",
       ClaimRequest("name: foo, firstAvailable: [{name: '" + kBadName +
                    "', allocationMode: other}]"),
       {"spec.devices.requests[0].firstAvailable[0].name: Invalid value: \"" +
            kBadName + "\": " + kDnsLabel,
        "spec.devices.requests[0].firstAvailable[0].deviceClassName: "
        "Required value",
        "spec.devices.requests[0].firstAvailable[0].allocationMode: "
        "Unsupported value: \"other\": supported values: \"All\", "
        "\"ExactCount\""}},
      {"DuplicateSubrequests",
       "ResourceClaim",
       ClaimRequest("name: foo, firstAvailable: [{name: foo, deviceClassName: "
                    "foo}, {name: foo, deviceClassName: foo}]"),
       {"spec.devices.requests[0].firstAvailable[1]: Duplicate value: "
        "\"foo\""}},
      // ---- limits
      {"TooManyRequests",
       "ResourceClaim",
       Claim("    requests: [" +
             Repeat("{name: r{i}, exactly: {deviceClassName: c}}", 33) + "]\n"),
       {"spec.devices.requests: Too many: 33: must have at most 32 items"}},
      {"MostRequests",
       "ResourceClaim",
       Claim("    requests: [" +
             Repeat("{name: r{i}, exactly: {deviceClassName: c}}", 32) + "]\n"),
       {}},
      {"TooManySubrequests",
       "ResourceClaim",
       ClaimRequest("name: foo, firstAvailable: [" +
                    Repeat("{name: s{i}, deviceClassName: c}", 9) + "]"),
       {"spec.devices.requests[0].firstAvailable: Too many: 9: must have at "
        "most 8 items"}},
      {"TooManySelectors",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: c, selectors: [" +
                    Repeat("{cel: {expression: 'true'}}", 33) + "]}"),
       {"spec.devices.requests[0].exactly.selectors: Too many: 33: must have "
        "at most 32 items"}},
      {"TooManyConstraintsAndConfigs",
       "ResourceClaim",
       Claim("    requests: [{" + kExactRequest + "}]\n" +
             "    constraints: [" + Repeat("{matchAttribute: foo/bar}", 33) +
             "]\n" + "    config: [" +
             Repeat("{opaque: {driver: dra.example.com, parameters: {}}}", 33) +
             "]\n"),
       {"spec.devices.constraints: Too many: 33: must have at most 32 items",
        "spec.devices.config: Too many: 33: must have at most 32 items"}},
      // ---- selectors
      {"EmptySelector",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: c, selectors: "
                    "[{cel: {expression: 'device.driver == \"x\"'}}, {}]}"),
       {"spec.devices.requests[0].exactly.selectors[1].cel: Required value"}},
      {"CelCompileError",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: c, selectors: "
                    "[{cel: {expression: 'device.driver == \"x\"'}}, {cel: "
                    "{expression: 'device.driver == 1'}}]}"),
       {"spec.devices.requests[0].exactly.selectors[1].cel.expression: "
        "Invalid value: \"device.driver == 1\": compilation failed: ERROR: "
        "<input>:1:15: found no matching overload for '_==_' applied to "
        "'(string, int)'\n"
        " | device.driver == 1\n"
        " | ..............^"}},
      {"CelTooLong",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: c, selectors: "
                    "[{cel: {expression: 'device.driver == \"" +
                    std::string(10240 - 19, 'x') +
                    "\"'}}, {cel: {expression: 'device.driver == \"" +
                    std::string(10240 - 18, 'x') + "\"'}}]}"),
       {"spec.devices.requests[0].exactly.selectors[1].cel.expression: Too "
        "long: may not be more than 10240 bytes"}},
      // The consumable-capacity field of v1.36's environment.
      {"CelAllowMultipleAllocations",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: c, selectors: "
                    "[{cel: {expression: device.allowMultipleAllocations}}]}"),
       {}},
      // ---- constraints and config (kube's "invalid-spec", with
      // DRAConsumableCapacity on as in v1.36)
      {"ConstraintsAndConfigNameUnknownRequests",
       "ResourceClaim",
       Claim("    requests: [{name: foo, exactly: {deviceClassName: foo}}]\n"
             "    constraints:\n"
             "    - {requests: [foo, '" +
             kBadName +
             "'], matchAttribute: missing-domain}\n"
             "    - {matchAttribute: ''}\n"
             "    - {}\n"
             "    config:\n"
             "    - requests: [foo, '" +
             kBadName +
             "']\n"
             "      opaque: {driver: dra.example.com, parameters: {kind: foo, "
             "apiVersion: dra.example.com/v1}}\n"),
       {"spec.devices.constraints[0].requests[1]: Invalid value: \"" +
            kBadName + "\": " + kDnsLabel,
        "spec.devices.constraints[0].requests[1]: Invalid value: \"" +
            kBadName + "\": " + kRequestRef,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kCIdentifier,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kFullyQualified,
        "spec.devices.constraints[1].matchAttribute: Invalid value: \"\": " +
            kCIdentifier,
        "spec.devices.constraints[1].matchAttribute: Invalid value: \"\": " +
            kFullyQualified,
        "spec.devices.constraints[2]: Required value: exactly one of "
        "\"matchAttribute\" or \"distinctAttribute\" is required, but "
        "multiple fields are set",
        "spec.devices.config[0].requests[1]: Invalid value: \"" + kBadName +
            "\": " + kDnsLabel,
        "spec.devices.config[0].requests[1]: Invalid value: \"" + kBadName +
            "\": " + kRequestRef}},
      {"DistinctAttribute",
       "ResourceClaim",
       Claim("    requests: [{name: foo, exactly: {deviceClassName: foo}}]\n"
             "    constraints: [{requests: [foo], distinctAttribute: "
             "missing-domain}, {distinctAttribute: dra.example.com/model}]\n"),
       {"spec.devices.constraints[0].distinctAttribute: Invalid value: "
        "\"missing-domain\": " +
            kCIdentifier,
        "spec.devices.constraints[0].distinctAttribute: Invalid value: "
        "\"missing-domain\": " +
            kFullyQualified}},
      {"SubrequestReferences",
       "ResourceClaim",
       Claim("    requests: [{name: foo, firstAvailable: [{name: foo, "
             "deviceClassName: foo}, {name: bar, deviceClassName: foo}]}]\n"
             "    constraints:\n"
             "    - {requests: [foo/bar, foo], matchAttribute: "
             "dra.example.com/driverVersion}\n"
             "    - {requests: [foo/baz, foo/bar/baz, foo/bar, foo/bar], "
             "matchAttribute: dra.example.com/driverVersion}\n"),
       {"spec.devices.constraints[1].requests[0]: Invalid value: "
        "\"foo/baz\": " +
            kRequestRef,
        "spec.devices.constraints[1].requests[1]: Invalid value: "
        "\"foo/bar/baz\": " +
            kRequestRef,
        "spec.devices.constraints[1].requests[3]: Duplicate value: "
        "\"foo/bar\""}},
      {"Configuration",
       "ResourceClaim",
       Claim("    requests: [{" + kExactRequest + "}]\n" +
             "    config:\n"
             "    - {opaque: {driver: dra.example.com}}\n"
             "    - {opaque: {driver: dra.example.com, parameters: "
             "hello-world}}\n"
             "    - {opaque: {driver: dra.example.com, parameters: null}}\n"
             // {"str":"x…"} as kubectl sends it: 10 bytes and the x's.
             "    - {opaque: {driver: dra.example.com, parameters: {str: " +
             std::string(10 * 1024 - 10, 'x') + "}}}\n" +
             "    - {opaque: {driver: dra.example.com, parameters: {str: " +
             std::string(10 * 1024 - 10 + 1, 'x') + "}}}\n" +
             "    - {opaque: {parameters: {}}}\n"
             "    - {requests: [gpu]}\n"),
       {"spec.devices.config[0].opaque.parameters: Required value",
        "spec.devices.config[1].opaque.parameters: Invalid value: \"<value "
        "omitted>\": must be a valid JSON object",
        "spec.devices.config[2].opaque.parameters: Required value",
        "spec.devices.config[4].opaque.parameters: Too long: may not be more "
        "than 10240 bytes",
        "spec.devices.config[5].opaque.driver: Required value",
        "spec.devices.config[6].opaque: Required value"}},
      // ---- tolerations (kube's "tolerations"; an empty operator is
      // defaulted to Equal first, so it is no error on the API)
      {"Tolerations",
       "ResourceClaim",
       Claim("    requests:\n"
             "    - {name: foo, firstAvailable: [{name: foo, deviceClassName: "
             "foo, tolerations: [{operator: ''}]}]}\n"
             "    - name: foo-other\n"
             "      exactly:\n"
             "        deviceClassName: foo\n"
             "        tolerations:\n"
             "        - {operator: Exists}\n"
             "        - {key: example.com/taint, operator: Exists, effect: "
             "NoExecute}\n"
             "        - {key: example.com/taint, operator: Equal, value: "
             "tainted, effect: NoSchedule}\n"
             "        - {}\n"
             "        - {key: foo, operator: some-other-op}\n"
             "        - {key: '" +
             kBadName + "', operator: Equal, value: '" + kBadName +
             "', effect: some-other-effect}\n"
             "        - {operator: Exists, value: x, effect: None}\n"),
       {"spec.devices.requests[1].exactly.tolerations[4].operator: "
        "Unsupported value: \"some-other-op\": supported values: \"Equal\", "
        "\"Exists\"",
        "spec.devices.requests[1].exactly.tolerations[5].key: Invalid value: "
        "\"" +
            kBadName + "\": " + kNamePart,
        "spec.devices.requests[1].exactly.tolerations[5].value: Invalid "
        "value: \"" +
            kBadName + "\": " + kLabelValue,
        "spec.devices.requests[1].exactly.tolerations[5].effect: Unsupported "
        "value: \"some-other-effect\": supported values: \"NoExecute\", "
        "\"NoSchedule\", \"None\"",
        "spec.devices.requests[1].exactly.tolerations[6].value: Invalid "
        "value: \"x\": must be empty for operator `Exists`"}},
      // adminAccess needs a label on the claim's namespace, an object the
      // API server looks up; a file's claim is not refused for it.
      {"AdminAccessIsNotChecked",
       "ResourceClaim",
       ClaimRequest("name: gpu, exactly: {deviceClassName: c, adminAccess: "
                    "true}"),
       {}},
      // ---- metadata
      {"ClaimName",
       "ResourceClaim",
       "metadata: {name: '" + kBadName + "'}\nspec: {}\n",
       {"metadata.name: Invalid value: \"" + kBadName +
        "\": " + kDnsSubdomain}},
      // ---- templates
      {"TemplateSpec",
       "ResourceClaimTemplate",
       "metadata: {name: tmpl}\nspec:\n  spec:\n    devices:\n"
       "      requests: [{name: gpu, exactly: {deviceClassName: c, count: "
       "-2}}]\n",
       {"spec.spec.devices.requests[0].exactly.count: Invalid value: -2: "
        "must be greater than zero"}},
      {"TemplateMetadataOnlyLabelsAndAnnotations",
       "ResourceClaimTemplate",
       "metadata: {name: tmpl}\nspec:\n"
       "  metadata: {name: x, uid: u, generation: 0, creationTimestamp: null, "
       "finalizers: [], labels: {a: '-b'}, annotations: {ok: fine}}\n"
       "  spec: {devices: {requests: [{name: gpu, exactly: "
       "{deviceClassName: c}}]}}\n",
       {"spec.metadata.labels: Invalid value: \"-b\": " + kLabelValue,
        "spec.metadata.name: Forbidden: cannot be set",
        "spec.metadata.uID: Forbidden: cannot be set",
        "spec.metadata.finalizers: Forbidden: cannot be set"}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(ResourceClaim, DraRuleTest,
                         ::testing::ValuesIn(ClaimCases()), CaseName);

// A class with the block `spec` (lines indented two spaces).
std::string Class(std::string_view spec, std::string_view name = "gpu") {
  return "metadata: {name: '" + std::string(name) + "'}\nspec:\n" +
         std::string(spec);
}

const std::vector<Case>& ClassCases() {
  static const auto* const kCases = new std::vector<Case>{
      {"ValidClass",
       "DeviceClass",
       Class("  selectors: [{cel: {expression: 'device.driver == "
             "\"gpu.example.com\"'}}]\n"
             "  config: [{opaque: {driver: gpu.example.com, parameters: "
             "{a: 1}}}]\n"
             "  extendedResourceName: example.com/gpu\n"),
       {}},
      {"BadName",
       "DeviceClass",
       Class("  selectors: []\n", kBadName),
       {"metadata.name: Invalid value: \"" + kBadName +
        "\": " + kDnsSubdomain}},
      // validate.LongName counts bytes.
      {"LongName",
       "DeviceClass",
       Class("  selectors: []\n", std::string(254, 'a')),
       {"metadata.name: Invalid value: \"" + std::string(254, 'a') +
        "\": must be no more than 253 bytes"}},
      {"Selectors",
       "DeviceClass",
       Class("  selectors:\n"
             "  - {cel: {expression: 'device.driver == \"dra.example.com\"'}}\n"
             "  - {}\n"
             "  - {cel: {expression: noSuchVar}}\n"
             "  - {cel: {expression: device.driver}}\n"),
       {"spec.selectors[1].cel: Required value",
        "spec.selectors[2].cel.expression: Invalid value: \"noSuchVar\": "
        "compilation failed: ERROR: <input>:1:1: undeclared reference to "
        "'noSuchVar' (in container '')\n | noSuchVar\n | ^",
        "spec.selectors[3].cel.expression: Invalid value: \"device.driver\": "
        "must evaluate to bool or the unknown type, not string"}},
      {"TooManySelectors",
       "DeviceClass",
       Class("  selectors: [" + Repeat("{cel: {expression: 'true'}}", 33) +
             "]\n"),
       {"spec.selectors: Too many: 33: must have at most 32 items"}},
      {"Config",
       "DeviceClass",
       Class("  config:\n  - {opaque: {driver: dra.example.com, parameters: "
             "{}}}\n  - {opaque: {}}\n  - {opaque: {driver: '" +
             std::string(64, 'a') + "', parameters: [1]}}\n"),
       {"spec.config[1].opaque.driver: Required value",
        "spec.config[1].opaque.parameters: Required value",
        "spec.config[2].opaque.driver: Too long: may not be more than 63 "
        "bytes",
        "spec.config[2].opaque.parameters: Invalid value: \"<value "
        "omitted>\": must be a valid JSON object"}},
      {"TooManyConfigs",
       "DeviceClass",
       Class("  config: [" +
             Repeat("{opaque: {driver: dra.example.com, parameters: {}}}", 33) +
             "]\n"),
       {"spec.config: Too many: 33: must have at most 32 items"}},
      {"ExtendedResourceName",
       "DeviceClass",
       Class("  extendedResourceName: example.com\n"),
       {"spec.extendedResourceName: Invalid value: \"example.com\": must be a "
        "valid extended resource name"}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(DeviceClass, DraRuleTest,
                         ::testing::ValuesIn(ClassCases()), CaseName);

// A slice of node `node` and pool `pool` whose spec also has the block
// `more` (lines indented two spaces); `node` empty leaves nodeName out.
std::string Slice(std::string_view more, std::string_view node = "worker",
                  std::string_view pool = "worker") {
  std::string yaml =
      "metadata: {name: slice}\nspec:\n  driver: dra.example.com\n"
      "  pool: {name: '" +
      std::string(pool) + "', resourceSliceCount: 1}\n";
  if (!node.empty()) yaml += "  nodeName: '" + std::string(node) + "'\n";
  return yaml + std::string(more);
}

// A slice whose devices are `devices` (YAML flow mappings' members).
std::string SliceDevices(const std::vector<std::string>& devices,
                         std::string_view more = "") {
  std::string yaml = "  devices:\n";
  for (const std::string& d : devices) yaml += "  - {" + d + "}\n";
  return Slice(yaml + std::string(more));
}

const std::vector<Case>& SliceCases() {
  static const auto* const kCases = new std::vector<Case>{
      {"ValidSlice",
       "ResourceSlice",
       SliceDevices({"name: gpu-0, attributes: {int: {int: 42}, string: "
                     "{string: hello world}, version: {version: 1.2.3}, bool: "
                     "{bool: true}, dra.example.com/model: {string: a100}}, "
                     "capacity: {memory: {value: 1Gi}}"}),
       {}},
      {"TooManyDevices",
       "ResourceSlice",
       Slice("  devices: [" + Repeat("{name: device-{i}}", 129) + "]\n"),
       {"spec.devices: Too many: 129: must have at most 128 items"}},
      {"MostDevices",
       "ResourceSlice",
       Slice("  devices: [" + Repeat("{name: device-{i}}", 128) + "]\n"),
       {}},
      {"TooManyDevicesWithTaints",
       "ResourceSlice",
       Slice("  devices: [" +
             Repeat("{name: device-{i}, taints: [{key: example.com/taint, "
                    "effect: NoExecute}]}",
                    65) +
             "]\n"),
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      {"TooManyDevicesWithConsumedCounters",
       "ResourceSlice",
       Slice("  devices: [" +
             Repeat("{name: device-{i}, consumesCounters: [{counterSet: c, "
                    "counters: {memory: {value: 1Gi}}}]}",
                    65) +
             "]\n"),
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      // ---- pool
      {"BadPool",
       "ResourceSlice",
       "metadata: {name: slice}\nspec:\n  driver: dra.example.com\n"
       "  nodeName: worker\n  pool: {name: '" +
           [] {
             std::string name;
             for (int i = 0; i < 126; ++i) name += "x/";
             return name + "xy";
           }() +
           "', resourceSliceCount: 0, generation: -1}\n",
       {"spec.pool.name: Too long: may not be more than 253 bytes",
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than "
        "zero",
        "spec.pool.generation: Invalid value: -1: must be greater than or "
        "equal to zero"}},
      {"MissingPool",
       "ResourceSlice",
       "metadata: {name: slice}\nspec: {driver: dra.example.com, nodeName: "
       "worker}\n",
       {"spec.pool.name: Required value",
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than "
        "zero"}},
      {"BadNodeAndPoolName",
       "ResourceSlice",
       Slice("", kBadName, kBadName),
       {"spec.pool.name: Invalid value: \"" + kBadName + "\": " + kDnsSubdomain,
        "spec.nodeName: Invalid value: \"" + kBadName +
            "\": " + kDnsSubdomain}},
      {"BadDriverName",
       "ResourceSlice",
       "metadata: {name: slice}\nspec: {driver: '" + kBadName +
           "', nodeName: worker, pool: {name: worker, resourceSliceCount: "
           "1}}\n",
       {"spec.driver: Invalid value: \"" + kBadName + "\": " + kDnsSubdomain}},
      // ---- which nodes
      {"NodeNameAndNodeSelector",
       "ResourceSlice",
       Slice("  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: "
             "metadata.name, operator: In, values: [worker]}]}]}\n"),
       {"spec: Invalid value: \"{`nodeName`, `nodeSelector`}\": exactly one "
        "of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` "
        "is required, but multiple fields are set"}},
      {"NodeNameAndAllNodes",
       "ResourceSlice",
       Slice("  allNodes: true\n"),
       {"spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of "
        "`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
        "required, but multiple fields are set"}},
      {"NoNodeSelection",
       "ResourceSlice",
       Slice("", ""),
       {"spec: Required value: exactly one of `nodeName`, `nodeSelector`, "
        "`allNodes`, `perDeviceNodeSelection` is required"}},
      {"EmptyNodeSelector",
       "ResourceSlice",
       Slice("  nodeSelector: {}\n", ""),
       {"spec.nodeSelector.nodeSelectorTerms: Required value: must have at "
        "least one node selector term",
        "spec.nodeSelector.nodeSelectorTerms: Invalid value: null: must have "
        "exactly one node selector term"}},
      {"TwoNodeSelectorTerms",
       "ResourceSlice",
       Slice("  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: "
             "a, operator: In, values: [b]}]}, {matchFields: [{key: "
             "metadata.name, operator: In, values: [n]}]}]}\n",
             ""),
       {"spec.nodeSelector.nodeSelectorTerms: Invalid value: "
        "[{\"MatchExpressions\":[{\"Key\":\"a\",\"Operator\":\"In\","
        "\"Values\":[\"b\"]}],\"MatchFields\":null},{\"MatchExpressions\":"
        "null,\"MatchFields\":[{\"Key\":\"metadata.name\",\"Operator\":"
        "\"In\",\"Values\":[\"n\"]}]}]: must have exactly one node selector "
        "term"}},
      {"NodeSelectorLabelValue",
       "ResourceSlice",
       Slice("  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: "
             "foo, operator: In, values: ['-1']}]}]}\n",
             ""),
       {"spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]"
        ": Invalid value: \"-1\": " +
        kLabelValue}},
      {"AllNodesFalse",
       "ResourceSlice",
       Slice("  allNodes: false\n"),
       {"spec.allNodes: Invalid value: false: must be either unset or set to "
        "true"}},
      {"PerDeviceNodeSelectionFalse",
       "ResourceSlice",
       Slice("  perDeviceNodeSelection: false\n"),
       {"spec.perDeviceNodeSelection: Invalid value: false: must be either "
        "unset or set to true"}},
      {"EmptyNodeName",
       "ResourceSlice",
       "metadata: {name: slice}\nspec: {driver: dra.example.com, pool: {name: "
       "p, resourceSliceCount: 1}, nodeName: '', allNodes: true}\n",
       {"spec.nodeName: Invalid value: \"\": must be either unset or set to a "
        "non-empty string"}},
      {"PerDeviceNodeSelectionWithNodeName",
       "ResourceSlice",
       Slice("  perDeviceNodeSelection: true\n  devices: [{name: d}]\n"),
       {"spec: Invalid value: \"{`nodeName`, `perDeviceNodeSelection`}\": "
        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection` is required, but multiple fields are set",
        "spec.devices[0]: Required value: exactly one of `nodeName`, "
        "`nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"}},
      {"DeviceNodeSelection",
       "ResourceSlice",
       Slice("  perDeviceNodeSelection: true\n  devices:\n"
             "  - {name: a, nodeName: '', allNodes: false}\n"
             "  - {name: b, nodeName: worker, allNodes: true}\n"
             "  - {name: c, nodeSelector: {nodeSelectorTerms: [{}]}}\n",
             ""),
       {"spec.devices[0].nodeName: Invalid value: \"\": must not be empty",
        "spec.devices[0].allNodes: Invalid value: false: must be either unset "
        "or set to true",
        "spec.devices[0]: Required value: exactly one of `nodeName`, "
        "`nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
        "spec.devices[1]: Invalid value: \"{`nodeName`, `allNodes`}\": "
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is "
        "required when `perDeviceNodeSelection` is set to true in the "
        "ResourceSlice spec"}},
      {"DeviceNodeWithoutPerDeviceNodeSelection",
       "ResourceSlice",
       SliceDevices({"name: a, nodeName: worker"}),
       {"spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` "
        "and `allNodes` can only be set if `perDeviceNodeSelection` is set "
        "to true in the ResourceSlice spec"}},
      // ---- devices
      {"DeviceNames",
       "ResourceSlice",
       SliceDevices({"name: a", "name: '" + kBadName + "'", "name: a"}),
       {"spec.devices[1].name: Invalid value: \"" + kBadName +
            "\": " + kDnsLabel,
        "spec.devices[2]: Duplicate value: \"a\""}},
      {"Attributes",
       "ResourceSlice",
       SliceDevices({"name: d0, attributes: {'" + kBadName + "': {}}",
                     "name: d1, attributes: {foo: {string: x, version: "
                     "1.2.3}}",
                     "name: d2, attributes: {foo: {version: " +
                         std::string(65, 'x') + "}}",
                     "name: d3, attributes: {foo: {string: " +
                         std::string(65, 'x') + "}}",
                     "name: d4, attributes: {foo: {int: 1, bool: false}}",
                     "name: d5, attributes: {v1: {version: 1.0.0-alpha.1+b.2},"
                     " v2: {version: 01.2.3}, v3: {version: 1.2.3-01}}"}),
       {"spec.devices[0].attributes: Invalid value: \"" + kBadName +
            "\": " + kCIdentifier,
        "spec.devices[0].attributes[" + kBadName +
            "]: Invalid value: \"\": exactly one value must be specified",
        "spec.devices[1].attributes[foo]: Invalid value: {\"IntValue\":null,"
        "\"BoolValue\":null,\"StringValue\":\"x\",\"VersionValue\":\"1.2.3\","
        "\"IntValues\":null,\"BoolValues\":null,\"StringValues\":null,"
        "\"VersionValues\":null}: exactly one value must be specified",
        "spec.devices[2].attributes[foo].version: Invalid value: \"" +
            std::string(65, 'x') +
            "\": must be a string compatible with semver.org spec 2.0.0",
        "spec.devices[2].attributes[foo].version: Too long: may not be more "
        "than 64 bytes",
        "spec.devices[3].attributes[foo].string: Too long: may not be more "
        "than 64 bytes",
        "spec.devices[4].attributes[foo]: Invalid value: {\"IntValue\":1,"
        "\"BoolValue\":false,\"StringValue\":null,\"VersionValue\":null,"
        "\"IntValues\":null,\"BoolValues\":null,\"StringValues\":null,"
        "\"VersionValues\":null}: exactly one value must be specified",
        "spec.devices[5].attributes[v2].version: Invalid value: \"01.2.3\": "
        "must be a string compatible with semver.org spec 2.0.0",
        "spec.devices[5].attributes[v3].version: Invalid value: "
        "\"1.2.3-01\": must be a string compatible with semver.org spec "
        "2.0.0"}},
      // With DRAListTypeAttributes off (v1.36's default) the slice
      // strategy drops list values before validating.
      {"ListAttributesAreDropped",
       "ResourceSlice",
       SliceDevices({"name: d0, attributes: {foo: {strings: [a, b]}}"}),
       {"spec.devices[0].attributes[foo]: Invalid value: \"\": exactly one "
        "value must be specified"}},
      {"AttributeNames",
       "ResourceSlice",
       SliceDevices({"name: ok, attributes: {" + std::string(32, 'x') +
                         ": {string: y}, " + std::string(63, 'x') + "/" +
                         std::string(32, 'y') + ": {string: z}}",
                     "name: id, attributes: {'" + std::string(33, '.') +
                         "': {string: y}}",
                     "name: domain, attributes: {" + std::string(64, '_') +
                         "/y: {string: z}}",
                     "name: empty, attributes: {/: {string: z}}",
                     "name: long, attributes: {" + std::string(64, 'x') + "/" +
                         std::string(33, 'y') + ": {}}"}),
       {"spec.devices[1].attributes: Too long: may not be more than 32 bytes",
        "spec.devices[1].attributes: Invalid value: \"" + std::string(33, '.') +
            "\": " + kCIdentifier,
        "spec.devices[2].attributes: Too long: may not be more than 63 bytes",
        "spec.devices[2].attributes: Invalid value: \"" + std::string(64, '_') +
            "\": " + kDnsSubdomain,
        "spec.devices[3].attributes: Invalid value: \"\": the domain must "
        "not be empty",
        "spec.devices[3].attributes: Invalid value: \"\": the name must not "
        "be empty",
        "spec.devices[4].attributes: Too long: may not be more than 63 bytes",
        "spec.devices[4].attributes: Too long: may not be more than 32 bytes",
        // The key is cut in the middle in the path.
        "spec.devices[4].attributes[" + std::string(47, 'x') + "..." +
            std::string(12, 'x') + "/" + std::string(33, 'y') +
            "]: Invalid value: \"\": exactly one value must be specified"}},
      {"TooManyAttributesAndCapacities",
       "ResourceSlice",
       SliceDevices({"name: d, attributes: {" +
                     Repeat("attr_{i}: {string: x}", 32) +
                     "}, capacity: {cap: {value: 1Gi}}"}),
       {"spec.devices[0]: Invalid value: 33: the total number of attributes "
        "and capacities must not exceed 32"}},
      {"Taints",
       "ResourceSlice",
       SliceDevices({"name: d, taints: [{key: example.com/taint, effect: "
                     "NoExecute}, {key: taint, value: tainted, effect: "
                     "NoSchedule, timeAdded: '2026-01-01T00:00:00Z'}, {}, "
                     "{key: '" +
                     kBadName + "', value: '" + kBadName +
                     "', effect: some-other-effect}]"}),
       {"spec.devices[0].taints[2].key: Invalid value: \"\": name part must "
        "be non-empty",
        "spec.devices[0].taints[2].key: Invalid value: \"\": " + kNamePart,
        "spec.devices[0].taints[2].effect: Required value",
        "spec.devices[0].taints[3].key: Invalid value: \"" + kBadName +
            "\": " + kNamePart,
        "spec.devices[0].taints[3].value: Invalid value: \"" + kBadName +
            "\": " + kLabelValue,
        "spec.devices[0].taints[3].effect: Unsupported value: "
        "\"some-other-effect\": supported values: \"NoExecute\", "
        "\"NoSchedule\", \"None\""}},
      {"TooManyTaints",
       "ResourceSlice",
       SliceDevices({"name: d, taints: [" +
                     Repeat("{key: example.com/taint, effect: NoExecute}", 17) +
                     "]"}),
       {"spec.devices[0].taints: Too many: 17: must have at most 16 items"}},
      // ---- counters
      {"SharedCounters",
       "ResourceSlice",
       Slice("  sharedCounters:\n"
             "  - {counters: {memory: {value: 1Gi}}}\n"
             "  - {name: '" +
             kBadName +
             "', counters: {memory: {value: 1Gi}}}\n"
             "  - {name: foo}\n"
             "  - {name: bar, counters: {'" +
             kBadName +
             "': {value: 1Gi}}}\n"
             "  - {name: foo, counters: {memory: {value: 1Gi}}}\n"),
       {"spec.sharedCounters[0].name: Required value",
        "spec.sharedCounters[1].name: Invalid value: \"" + kBadName +
            "\": " + kDnsLabel,
        "spec.sharedCounters[2].counters: Required value",
        "spec.sharedCounters[3].counters: Invalid value: \"" + kBadName +
            "\": " + kDnsLabel,
        "spec.sharedCounters[4]: Duplicate value: \"foo\""}},
      {"TooManyCounterSets",
       "ResourceSlice",
       Slice("  sharedCounters: [" +
             Repeat("{name: set-{i}, counters: {memory: {value: 1Gi}}}", 9) +
             "]\n"),
       {"spec.sharedCounters: Too many: 9: must have at most 8 items"}},
      {"TooManyCountersInSet",
       "ResourceSlice",
       Slice("  sharedCounters: [{name: set, counters: {" +
             Repeat("memory-{i}: {value: 1Gi}", 33) + "}}]\n"),
       {"spec.sharedCounters[0].counters: Too many: 33: must have at most 32 "
        "items"}},
      {"ConsumesCounters",
       "ResourceSlice",
       SliceDevices(
           {"name: a, consumesCounters: [{counters: {memory: {value: 1Gi}}}, "
            "{counterSet: '" +
                kBadName + "'}]",
            "name: b, consumesCounters: [{counterSet: foo, counters: {memory: "
            "{value: 1Gi}}}, {counterSet: foo, counters: {memory: {value: "
            "1Gi}}}]",
            "name: c, consumesCounters: [" +
                Repeat("{counterSet: s{i}, counters: {memory: {value: 1Gi}}}",
                       3) +
                "]"}),
       {"spec.devices[0].consumesCounters[0].counterSet: Required value",
        "spec.devices[0].consumesCounters[1].counterSet: Invalid value: \"" +
            kBadName + "\": " + kDnsLabel,
        "spec.devices[0].consumesCounters[1].counters: Required value",
        "spec.devices[1].consumesCounters[1]: Duplicate value: \"foo\"",
        "spec.devices[2].consumesCounters: Too many: 3: must have at most 2 "
        "items"}},
      // ---- binding conditions
      {"BindingConditions",
       "ResourceSlice",
       SliceDevices(
           {"name: a, bindingConditions: [condition1, condition2!], "
            "bindingFailureConditions: [condition3!, condition1]",
            "name: b, bindingFailureConditions: [c]",
            "name: c, bindingConditions: [c], bindingFailureConditions: []",
            "name: d, bindingConditions: [x, x], bindingFailureConditions: "
            "[y, y]",
            "name: e, bindingConditions: [a, b, c, d, e], "
            "bindingFailureConditions: [f]"}),
       {"spec.devices[0].bindingConditions[1]: Invalid value: "
        "\"condition2!\": " +
            kNamePart,
        "spec.devices[0].bindingFailureConditions[0]: Invalid value: "
        "\"condition3!\": " +
            kNamePart,
        "spec.devices[0].bindingFailureConditions[1]: Invalid value: "
        "\"condition1\": bindingFailureConditions must not overlap with "
        "bindingConditions",
        "spec.devices[1].bindingConditions: Invalid value: null: "
        "bindingConditions are required to use bindingFailureConditions",
        "spec.devices[2].bindingFailureConditions: Invalid value: []: "
        "bindingFailureConditions are required to use bindingConditions",
        "spec.devices[3].bindingConditions[1]: Duplicate value: \"x\"",
        "spec.devices[3].bindingFailureConditions[1]: Duplicate value: "
        "\"y\"",
        "spec.devices[4].bindingConditions: Too many: 5: must have at most 4 "
        "items"}},
      // ---- consumable capacity (kube's TestValidateDeviceCapacity)
      {"RequestPolicyNeedsMultipleAllocations",
       "ResourceSlice",
       SliceDevices({"name: d, capacity: {cap: {value: 1Gi, requestPolicy: "
                     "{default: 1Mi, validRange: {min: 1Mi}}}}"}),
       {"spec.devices[0].capacity[cap].requestPolicy: Forbidden: "
        "allowMultipleAllocations must be true"}},
      {"RequestPolicies",
       "ResourceSlice",
       SliceDevices({
           "name: valid, allowMultipleAllocations: true, capacity: {a: "
           "{value: 10Gi, requestPolicy: {default: 1Gi, validRange: {min: "
           "1Gi, max: 10Gi, step: 1Gi}}}, b: {value: 10Gi, requestPolicy: "
           "{default: 1Gi, validValues: [1Gi, 10Gi]}}, c: {value: 1Gi, "
           "requestPolicy: {}}}",
           "name: no-default, allowMultipleAllocations: true, capacity: {a: "
           "{value: 1Gi, requestPolicy: {validValues: [1Gi]}}, b: {value: "
           "1Gi, requestPolicy: {validRange: {min: 1Gi}}}, c: {value: 1Gi, "
           "requestPolicy: {default: 1Gi, validRange: {}}}}",
           "name: both, allowMultipleAllocations: true, capacity: {a: {value: "
           "10Gi, requestPolicy: {default: 1Gi, validValues: [1Gi], "
           "validRange: {min: 1Gi}}}}",
           "name: values, allowMultipleAllocations: true, capacity: {a: "
           "{value: 10Gi, requestPolicy: {default: 1Gi, validValues: [20Gi]}},"
           " b: {value: 10Gi, requestPolicy: {default: 1Gi, validValues: "
           "[1Gi, 1Gi]}}, c: {value: 10Gi, requestPolicy: {default: 1Ki, "
           "validValues: [1Ki, '1024']}}, d: {value: 10Gi, requestPolicy: "
           "{default: 1Gi, validValues: [2Gi, 1Gi]}}}",
           "name: ranges, allowMultipleAllocations: true, capacity: {a: "
           "{value: 10Gi, requestPolicy: {default: 2Gi, validRange: {min: "
           "20Gi, max: 1Gi}}}, b: {value: 10Gi, requestPolicy: {default: 1Gi, "
           "validRange: {min: 1Gi, max: 20Gi}}}, c: {value: 10Gi, "
           "requestPolicy: {default: 2Gi, validRange: {min: 1Gi, max: 10Gi, "
           "step: 2Gi}}}, d: {value: 10Gi, requestPolicy: {default: 1Gi, "
           "validRange: {min: 1Gi, step: 10Gi}}}}",
       }),
       {"spec.devices[1].capacity[a].requestPolicy.default: Required value: "
        "required when validValues is defined",
        "spec.devices[1].capacity[b].requestPolicy.default: Required value: "
        "required when validRange is defined",
        "spec.devices[1].capacity[c].requestPolicy.validRange.min: Required "
        "value: required when validRange is defined",
        "spec.devices[2].capacity[a].requestPolicy: Forbidden: exactly one "
        "policy can be specified, cannot specify \"validValues\" and "
        "\"validRange\" at the same time",
        "spec.devices[3].capacity[a].requestPolicy.validValues[0]: Invalid "
        "value: \"20Gi\": option is larger than capacity value: 10Gi",
        "spec.devices[3].capacity[a].requestPolicy.validValues: Invalid "
        "value: \"1Gi\": default value is not valid according to the "
        "requestPolicy",
        "spec.devices[3].capacity[b].requestPolicy.validValues[1]: Duplicate "
        "value: \"1073741824\"",
        "spec.devices[3].capacity[c].requestPolicy.validValues[1]: Duplicate "
        "value: \"1024\"",
        "spec.devices[3].capacity[d].requestPolicy.validValues[1]: Invalid "
        "value: \"1Gi\": values must be sorted in ascending order",
        "spec.devices[4].capacity[a].requestPolicy.validRange.min: Invalid "
        "value: \"20Gi\": min is larger than capacity value: 10Gi",
        "spec.devices[4].capacity[a].requestPolicy.validRange.min: Invalid "
        "value: \"2Gi\": default is less than min: 20Gi",
        "spec.devices[4].capacity[a].requestPolicy.validRange.max: Invalid "
        "value: \"20Gi\": min is larger than max: 1Gi",
        "spec.devices[4].capacity[a].requestPolicy.validRange.max: Invalid "
        "value: \"2Gi\": default is more than max: 1Gi",
        "spec.devices[4].capacity[b].requestPolicy.validRange.max: Invalid "
        "value: \"20Gi\": max is larger than capacity value: 10Gi",
        "spec.devices[4].capacity[c].requestPolicy.validRange.step: Invalid "
        "value: \"2Gi\": value is not a multiple of a given step (2Gi) from "
        "(1Gi)",
        "spec.devices[4].capacity[c].requestPolicy.validRange.step: Invalid "
        "value: \"10Gi\": value is not a multiple of a given step (2Gi) from "
        "(1Gi)",
        "spec.devices[4].capacity[d].requestPolicy.validRange.step: Invalid "
        "value: \"10Gi\": one step 11Gi is larger than capacity value: "
        "10Gi"}},
      // The step divides; a zero step is not divided by.
      {"ZeroStep",
       "ResourceSlice",
       SliceDevices({"name: d, allowMultipleAllocations: true, capacity: {a: "
                     "{value: 10Gi, requestPolicy: {default: 1Gi, validRange: "
                     "{min: 1Gi, step: '0'}}}}"}),
       {}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(ResourceSlice, DraRuleTest,
                         ::testing::ValuesIn(SliceCases()), CaseName);

// A pod with `spec` (block lines indented two spaces) and containers
// `containers` (flow mappings' members).
std::string PodWithClaims(std::string_view claims,
                          std::string_view container_claims,
                          std::string_view metadata = "name: p") {
  std::string yaml = "metadata: {" + std::string(metadata) + "}\nspec:\n";
  if (!claims.empty())
    yaml += "  resourceClaims: " + std::string(claims) + "\n";
  yaml += "  containers:\n  - {name: c";
  if (!container_claims.empty()) {
    yaml += ", resources: {claims: " + std::string(container_claims) + "}";
  }
  return yaml + "}\n";
}

const std::string kNotInPod =
    "must be one of the names in pod.spec.resourceClaims";

const std::vector<Case>& PodClaimCases() {
  static const auto* const kCases = new std::vector<Case>{
      {"ClaimAndTemplate",
       "Pod",
       PodWithClaims("[{name: a, resourceClaimName: x}, {name: b, "
                     "resourceClaimTemplateName: y}]",
                     "[{name: a}, {name: b, request: r}]"),
       {}},
      {"ContainerClaimNotInPod",
       "Pod",
       PodWithClaims("", "[{name: gpu}]"),
       {"spec.containers[0].resources.claims[0]: Not found: \"gpu\": " +
        kNotInPod + " which is empty"}},
      {"ContainerClaimNotAmongThePods",
       "Pod",
       PodWithClaims("[{name: b, resourceClaimName: x}, {name: a, "
                     "resourceClaimName: x}]",
                     "[{name: gpu}]"),
       {"spec.containers[0].resources.claims[0]: Not found: \"gpu\": " +
        kNotInPod + ": a, b"}},
      {"InitContainerClaimNotInPod",
       "Pod",
       "metadata: {name: p}\nspec:\n  containers: [{name: c}]\n"
       "  initContainers: [{name: i, resources: {claims: [{name: gpu}]}}]\n",
       {"spec.initContainers[0].resources.claims[0]: Not found: \"gpu\": " +
        kNotInPod + " which is empty"}},
      {"BothClaimAndTemplate",
       "Pod",
       PodWithClaims("[{name: gpu, resourceClaimName: a, "
                     "resourceClaimTemplateName: b}]",
                     "[{name: gpu}]"),
       {"spec.resourceClaims[0]: Invalid value: {\"Name\":\"gpu\","
        "\"ResourceClaimName\":\"a\",\"ResourceClaimTemplateName\":\"b\"}: at "
        "most one of `resourceClaimName` or `resourceClaimTemplateName` may "
        "be specified"}},
      {"NeitherClaimNorTemplate",
       "Pod",
       PodWithClaims("[{name: gpu}]", ""),
       {"spec.resourceClaims[0]: Invalid value: {\"Name\":\"gpu\","
        "\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must "
        "specify one of: `resourceClaimName`, `resourceClaimTemplateName`"}},
      {"DuplicatePodClaimNames",
       "Pod",
       PodWithClaims("[{name: gpu, resourceClaimName: a}, {name: gpu, "
                     "resourceClaimName: b}]",
                     "[{name: gpu}]"),
       {"spec.resourceClaims[1].name: Duplicate value: \"gpu\""}},
      {"PodClaimNames",
       "Pod",
       PodWithClaims("[{name: '', resourceClaimName: a}, {name: ../my-claim, "
                     "resourceClaimName: a}, {name: c, resourceClaimName: "
                     ".foo_bar}]",
                     ""),
       {"spec.resourceClaims[0].name: Required value",
        "spec.resourceClaims[1].name: Invalid value: \"../my-claim\": " +
            kDnsLabel,
        "spec.resourceClaims[2].resourceClaimName: Invalid value: "
        "\".foo_bar\": " +
            kDnsSubdomain}},
      {"ContainerClaimReferences",
       "Pod",
       PodWithClaims("[{name: a, resourceClaimName: x}]",
                     "[{name: ''}, {name: a, request: r}, {name: a}, {name: "
                     "a}, {name: a, request: '*$@%^'}]"),
       {"spec.containers[0].resources.claims[0]: Required value",
        // The whole claim after one of its requests.
        "spec.containers[0].resources.claims[2]: Duplicate value: \"a\"",
        "spec.containers[0].resources.claims[3]: Duplicate value: \"a\"",
        "spec.containers[0].resources.claims[4]: Duplicate value: \"a\""}},
      {"SameRequestTwice",
       "Pod",
       PodWithClaims("[{name: a, resourceClaimName: x}]",
                     "[{name: a, request: r}, {name: a, request: r}, {name: a, "
                     "request: '*$@%^'}]"),
       {"spec.containers[0].resources.claims[1]: Duplicate value: \"a/r\"",
        "spec.containers[0].resources.claims[2].request: Invalid value: "
        "\"*$@%^\": " +
            kDnsLabel}},
      {"StaticPod",
       "Pod",
       PodWithClaims("[{name: a, resourceClaimName: x}]", "[{name: a}]",
                     "name: p, annotations: {kubernetes.io/config.mirror: "
                     "'True'}"),
       {": Forbidden: static pods do not support resource claims"}},
      {"PodLevelClaims",
       "Pod",
       "metadata: {name: p}\nspec:\n  resources: {claims: [{name: gpu}]}\n"
       "  containers: [{name: c}]\n",
       {"spec.resources.claims: Forbidden: claims may not be set for "
        "Resources at pod-level",
        "spec.resources.claims[0]: Not found: \"gpu\": " + kNotInPod +
            " which is empty"}},
      {"TemplateContainerClaimNotInPod",
       "Deployment",
       "metadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n"
       "  template:\n    metadata: {labels: {app: web}}\n"
       "    spec: {containers: [{name: c, resources: {claims: [{name: "
       "gpu}]}}]}\n",
       {"spec.template.spec.containers[0].resources.claims[0]: Not found: "
        "\"gpu\": " +
        kNotInPod + " which is empty"}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(PodClaims, DraRuleTest,
                         ::testing::ValuesIn(PodClaimCases()), CaseName);

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a real v1.36.3 API server answered to a slice with both shared
// counters and devices: the same message, byte for byte.
TEST(DraRecordedAnswerTest, SharedCountersWithDevices) {
  const std::string dir = std::string(KSCHED_SHARED_DIR) + "/apiserver/v1.36/";
  rapidjson::Document request;
  request.Parse(
      ReadFile(dir + "post-resourceslice-counters-and-devices-422.request.json")
          .c_str());
  ASSERT_TRUE(request.IsObject());
  rapidjson::Document response;
  response.Parse(
      ReadFile(dir + "post-resourceslice-counters-and-devices-422.json")
          .c_str());
  ASSERT_TRUE(response.IsObject() && response.HasMember("message"));
  const std::string name = request["metadata"]["name"].GetString();
  EXPECT_EQ(InvalidMessage("ResourceSlice", name,
                           ValidateObject("ResourceSlice", request)),
            response["message"].GetString());
}

// A selector that does not parse is refused on create, at its path. (Only
// the start of the message is compared: cel-go goes on to list the tokens
// it expected, which ksched's parser does not.)
TEST(DraSelectorTest, SyntaxErrorIsRefusedOnCreate) {
  for (std::string_view kind : {"ResourceClaim", "ResourceClaimTemplate"}) {
    std::string yaml = ClaimRequest(
        "name: gpu, exactly: {deviceClassName: c, selectors: [{cel: "
        "{expression: 'device.driver =='}}]}");
    std::string prefix =
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: "
        "Invalid value: \"device.driver ==\": compilation failed: ERROR: "
        "<input>:1:17: Syntax error: mismatched input '<EOF>'";
    if (kind == "ResourceClaimTemplate") {
      yaml =
          "metadata: {name: t}\nspec:\n  spec:\n    devices:\n"
          "      requests: [{name: gpu, exactly: {deviceClassName: c, "
          "selectors: [{cel: {expression: 'device.driver =='}}]}}]\n";
      prefix = "spec." + prefix;
    }
    std::vector<std::string> errors = Errors(kind, yaml);
    ASSERT_EQ(errors.size(), 1u) << kind;
    EXPECT_THAT(errors[0], ::testing::StartsWith(prefix)) << kind;
  }
  std::vector<std::string> errors =
      Errors("DeviceClass", Class("  selectors: [{cel: {expression: ''}}]\n"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0],
              ::testing::StartsWith(
                  "spec.selectors[0].cel.expression: Invalid value: \"\": "
                  "compilation failed: ERROR: <input>:1:1: Syntax error: "));
}

// A selector whose worst-case cost kube estimates above the limit is
// refused; one at the limit is not (the estimates are pkg/cel's, checked
// against Kubernetes' own in dra_cost_test.cc).
TEST(DraSelectorTest, TooComplexIsRefusedOnCreate) {
  auto selector = [](size_t tail) {
    return "device.attributes.all(d, device.attributes[d].all(i, "
           "\"\".matches(\"" +
           std::string(4 * 973, 'a') + "\"))) && \"\".matches(\"" +
           std::string(4 * tail, 'a') + "\")";
  };
  for (size_t tail : {317, 318}) {
    std::vector<std::string> errors =
        Errors("DeviceClass", Class("  selectors: [{cel: {expression: '" +
                                    selector(tail) + "'}}]\n"));
    if (tail == 317) {
      EXPECT_TRUE(errors.empty()) << errors.front();
    } else {
      ASSERT_EQ(errors.size(), 1u);
      EXPECT_EQ(errors[0],
                "spec.selectors[0].cel.expression: Forbidden: too complex, "
                "exceeds cost limit");
    }
  }
}

TEST(DraInvalidMessageTest, NamesTheGroup) {
  rapidjson::Document claim = MustParse(ClaimRequest(
      "name: gpu, exactly: {deviceClassName: gpu.example.com, count: -2}"));
  EXPECT_EQ(InvalidMessage("ResourceClaim", "claim",
                           ValidateObject("ResourceClaim", claim)),
            "ResourceClaim.resource.k8s.io \"claim\" is invalid: "
            "spec.devices.requests[0].exactly.count: Invalid value: -2: must "
            "be greater than zero");
}

// Every resource.k8s.io object and pod a real v1.36.3 API server took in
// the recordings (the bodies of its 201 answers' requests and the
// manifests applied with kubectl): valid here too.
TEST(DraValidObjectsTest, WhatTheRecordedServerTook) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(KSCHED_SHARED_DIR) / "apiserver" / "v1.36";
  std::vector<rapidjson::Document> objects;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if ((name.starts_with("post-resourceslice-") ||
         name.starts_with("post-deviceclass-")) &&
        name.ends_with(".request.json") &&
        !name.ends_with("-422.request.json")) {
      rapidjson::Document obj;
      obj.Parse(ReadFile(entry.path().string()).c_str());
      objects.push_back(std::move(obj));
    }
  }
  for (const auto& entry : fs::directory_iterator(dir / "manifests")) {
    auto docs = api::YamlToJson(ReadFile(entry.path().string()));
    ASSERT_TRUE(docs.ok()) << entry.path();
    for (rapidjson::Document& doc : *docs) objects.push_back(std::move(doc));
  }
  std::set<std::string> kinds;
  for (const rapidjson::Document& obj : objects) {
    ASSERT_TRUE(obj.IsObject() && obj.HasMember("kind"));
    const std::string kind = obj["kind"].GetString();
    if (kind != "DeviceClass" && kind != "ResourceSlice" &&
        kind != "ResourceClaim" && kind != "ResourceClaimTemplate" &&
        kind != "Pod") {
      continue;
    }
    kinds.insert(kind);
    std::vector<std::string> errors;
    for (const FieldError& e : ValidateObject(kind, obj)) {
      errors.push_back(e.String());
    }
    EXPECT_THAT(errors, IsEmpty())
        << kind << " " << obj["metadata"]["name"].GetString();
  }
  EXPECT_THAT(kinds, ::testing::ElementsAre("DeviceClass", "Pod",
                                            "ResourceClaim", "ResourceSlice"));
}

// Every value of a rich claim, slice and class replaced in turn by each
// JSON type: no validator throws or crashes.
TEST(DraRobustnessTest, WrongTypesEverywhere) {
  const std::vector<std::string> replacements = {
      "null", "7", "-1.5", "\"x\"", "true", "[]", "{}", "[1, \"a\", null]"};
  const std::vector<std::pair<std::string_view, std::string>> sources = {
      {"ResourceClaim",
       Claim(
           "    requests:\n"
           "    - {name: a, exactly: {deviceClassName: c, count: 2, "
           "allocationMode: ExactCount, selectors: [{cel: {expression: "
           "'true'}}], tolerations: [{key: k, operator: Equal, value: v, "
           "effect: NoSchedule}]}}\n"
           "    - {name: b, firstAvailable: [{name: s, deviceClassName: c}]}\n"
           "    constraints: [{requests: [a, b/s], matchAttribute: x/y}]\n"
           "    config: [{requests: [a], opaque: {driver: d, parameters: "
           "{k: v}}}]\n")},
      {"ResourceSlice",
       Slice("  perDeviceNodeSelection: true\n  sharedCounters: [{name: s, "
             "counters: {c: {value: '1'}}}]\n  devices:\n"
             "  - {name: d, nodeSelector: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: k, operator: In, values: [v]}]}]}, "
             "allowMultipleAllocations: true, attributes: {a: {int: 1}}, "
             "capacity: {c: {value: 1Gi, requestPolicy: {default: 1Gi, "
             "validValues: [1Gi], validRange: {min: 1Gi, max: 2Gi, step: "
             "1Gi}}}}, taints: [{key: k, effect: NoSchedule}], "
             "consumesCounters: [{counterSet: s, counters: {c: {value: '1'}}}],"
             " bindingConditions: [a], bindingFailureConditions: [b]}\n")},
      {"DeviceClass",
       Class("  selectors: [{cel: {expression: 'true'}}]\n  config: [{opaque: "
             "{driver: d, parameters: {}}}]\n  extendedResourceName: a/b\n")},
      {"ResourceClaimTemplate",
       "metadata: {name: t}\nspec:\n  metadata: {labels: {a: b}}\n"
       "  spec: {devices: {requests: [{name: a, exactly: {deviceClassName: "
       "c}}]}}\n"},
      {"Pod", PodWithClaims("[{name: a, resourceClaimName: x}]",
                            "[{name: a, request: r}]")},
  };
  int runs = 0;
  for (const auto& [kind, source] : sources) {
    rapidjson::Document doc = MustParse(source);
    std::vector<std::vector<std::string>> paths;
    std::function<void(const rapidjson::Value&, std::vector<std::string>)>
        collect =
            [&](const rapidjson::Value& v, std::vector<std::string> path) {
              paths.push_back(path);
              if (v.IsObject()) {
                for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
                  auto child = path;
                  child.push_back(it->name.GetString());
                  collect(it->value, child);
                }
              } else if (v.IsArray()) {
                for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
                  auto child = path;
                  child.push_back("#" + std::to_string(i));
                  collect(v[i], child);
                }
              }
            };
    collect(doc, {});
    for (const auto& path : paths) {
      for (const std::string& replacement : replacements) {
        rapidjson::Document mutated;
        mutated.CopyFrom(doc, mutated.GetAllocator());
        rapidjson::Value* target = &mutated;
        for (const std::string& step : path) {
          target = step[0] == '#' ? &(*target)[static_cast<rapidjson::SizeType>(
                                        std::stoul(step.substr(1)))]
                                  : &(*target)[step.c_str()];
        }
        rapidjson::Document value;
        value.Parse(replacement.c_str());
        target->CopyFrom(value, mutated.GetAllocator());
        EXPECT_NO_THROW(ValidateObject(kind, mutated));
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 500);
}

}  // namespace
}  // namespace ksched::validation
