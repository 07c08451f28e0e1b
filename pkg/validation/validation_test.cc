// Every rule with kube-apiserver v1.35's exact message, objects that must
// pass (a kubectl dump, the bundled examples), and objects of the wrong
// shape everywhere, which must give no crash.
#include "pkg/validation/validation.h"

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

namespace ksched::validation {
namespace {

using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

// apimachinery's messages, written out once.
const std::string kKeyRegex =
    "must consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyName',  or "
    "'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kNamePart = "name part " + kKeyRegex;
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

rapidjson::Document MustParse(std::string_view yaml) {
  auto docs = api::YamlToJson(yaml);
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "bad test YAML: "
                  << (docs.ok() ? "not one document" : docs.error().message());
    return rapidjson::Document();
  }
  return std::move((*docs)[0]);
}

std::vector<std::string> Messages(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) out.push_back(e.String());
  return out;
}

std::vector<std::string> Errors(std::string_view kind, std::string_view yaml) {
  rapidjson::Document doc = MustParse(yaml);
  return Messages(ValidateObject(kind, doc));
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

class RuleTest : public ::testing::TestWithParam<Case> {};

TEST_P(RuleTest, ExactMessages) {
  const Case& c = GetParam();
  EXPECT_THAT(Errors(c.kind, c.yaml), ElementsAreArray(c.want)) << c.yaml;
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

// A pod whose only container has `container` (YAML flow mapping members)
// and whose spec has `spec` (block lines, indented two spaces).
std::string Pod(std::string_view container, std::string_view spec = "") {
  std::string yaml = "metadata: {name: p, labels: {app: web}}\nspec:\n";
  yaml += "  containers:\n  - {name: c";
  if (!container.empty()) {
    yaml += ", ";
    yaml += container;
  }
  yaml += "}\n";
  yaml += spec;
  return yaml;
}

const std::vector<Case>& PodCases() {
  static const auto* const kCases = new std::vector<Case>{
      // ---- resources
      {"NegativeCpuRequest",
       "Pod",
       Pod("resources: {requests: {cpu: '-1'}}"),
       {"spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": "
        "must be greater than or equal to 0"}},
      {"NegativeCpuRequestAsNumber",
       "Pod",
       Pod("resources: {requests: {cpu: -0.5}}"),
       {"spec.containers[0].resources.requests[cpu]: Invalid value: "
        "\"-500m\": must be greater than or equal to 0"}},
      {"SubMilliQuantityRoundedUpAwayFromZero",
       "Pod",
       Pod("resources: {requests: {cpu: '-0.1m'}}"),
       {"spec.containers[0].resources.requests[cpu]: Invalid value: \"-1m\": "
        "must be greater than or equal to 0"}},
      {"RequestAboveLimit",
       "Pod",
       Pod("resources: {requests: {cpu: '2'}, limits: {cpu: '1'}}"),
       {"spec.containers[0].resources.requests: Invalid value: \"2\": must be "
        "less than or equal to cpu limit of 1"}},
      // The request defaults to the limit, and is checked too.
      {"NegativeLimitOnlyDefaultsTheRequest",
       "Pod",
       Pod("resources: {limits: {memory: -8Gi}}"),
       {"spec.containers[0].resources.limits[memory]: Invalid value: "
        "\"-8Gi\": must be greater than or equal to 0",
        "spec.containers[0].resources.requests[memory]: Invalid value: "
        "\"-8Gi\": must be greater than or equal to 0"}},
      {"ExtendedResourceMustBeWhole",
       "Pod",
       Pod("resources: {limits: {example.com/gpu: 500m}}"),
       {"spec.containers[0].resources.limits[example.com/gpu]: Invalid "
        "value: \"500m\": must be an integer",
        "spec.containers[0].resources.requests[example.com/gpu]: Invalid "
        "value: \"500m\": must be an integer"}},
      {"ExtendedResourceNeedsLimit",
       "Pod",
       Pod("resources: {requests: {example.com/gpu: 1}}"),
       {"spec.containers[0].resources.limits: Required value: Limit must be "
        "set for non overcommitable resources"}},
      {"ExtendedResourceRequestMustEqualLimit",
       "Pod",
       Pod("resources: {requests: {example.com/gpu: 1}, limits: "
           "{example.com/gpu: 2}}"),
       {"spec.containers[0].resources.requests: Invalid value: \"1\": must "
        "be equal to example.com/gpu limit of 2"}},
      {"UnknownResourceName",
       "Pod",
       Pod("resources: {requests: {foo: 1}}"),
       {"spec.containers[0].resources.requests[foo]: Invalid value: \"foo\": "
        "must be a standard resource type or fully qualified",
        "spec.containers[0].resources.requests[foo]: Invalid value: \"foo\": "
        "must be a standard resource for containers"}},
      {"NotAContainerResource",
       "Pod",
       Pod("resources: {requests: {pods: 1}}"),
       {"spec.containers[0].resources.requests[pods]: Invalid value: "
        "\"pods\": must be a standard resource for containers"}},
      // A ResourceName prints as JSON: '&' is escaped.
      {"ResourceNameNotQualified",
       "Pod",
       Pod("resources: {requests: {'a&b': 1}}"),
       {"spec.containers[0].resources.requests[a&b]: Invalid value: "
        "\"a\\u0026b\": " +
            kNamePart,
        "spec.containers[0].resources.requests[a&b]: Invalid value: "
        "\"a\\u0026b\": must be a standard resource for containers"}},
      {"BadExtendedResourceName",
       "Pod",
       Pod("resources: {requests: {requests.example.com/gpu: 1}, limits: "
           "{requests.example.com/gpu: 1}}"),
       {"spec.containers[0].resources.limits[requests.example.com/gpu]: "
        "Invalid value: \"requests.example.com/gpu\": doesn't follow "
        "extended resource name standard",
        "spec.containers[0].resources.requests[requests.example.com/gpu]: "
        "Invalid value: \"requests.example.com/gpu\": doesn't follow "
        "extended resource name standard"}},
      {"HugePagesNeedCpuOrMemory",
       "Pod",
       Pod("resources: {limits: {hugepages-2Mi: 4Mi}}"),
       {"spec.containers[0].resources: Forbidden: HugePages require cpu or "
        "memory"}},
      {"HugePagesWholePages",
       "Pod",
       Pod("resources: {limits: {memory: 1Gi, hugepages-2Mi: 3Mi}}"),
       {"spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "
        "\"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi",
        "spec.containers[0].resources.requests[hugepages-2Mi]: Invalid "
        "value: \"3Mi\": 3Mi is not positive integer multiple of "
        "hugepages-2Mi"}},
      {"Overhead",
       "Pod",
       Pod("", "  overhead: {cpu: '-1'}\n"),
       {"spec.overhead.limits[cpu]: Invalid value: \"-1\": must be greater "
        "than or equal to 0"}},
      // ---- pod-level resources
      {"PodLevelRequestBelowContainers",
       "Pod",
       Pod("resources: {requests: {cpu: '2'}}",
           "  resources: {requests: {cpu: '1'}}\n"),
       {"spec.resources.requests[cpu]: Invalid value: \"1\": must be greater "
        "than or equal to aggregate container requests of 2"}},
      // The pod-level request defaults to the containers' (2), above the
      // pod's limit; the container's own limit is above it too.
      {"PodLevelLimitBelowContainer",
       "Pod",
       Pod("resources: {limits: {cpu: '2'}}",
           "  resources: {limits: {cpu: '1'}}\n"),
       {"spec.resources.requests: Invalid value: \"2\": must be less than or "
        "equal to cpu limit of 1",
        "spec.resources.containers[0][cpu].limits: Invalid value: \"2\": "
        "must be less than or equal to pod limits of 1"}},
      {"PodLevelUnsupportedResource",
       "Pod",
       Pod("", "  resources: {requests: {ephemeral-storage: 1Gi}}\n"),
       {"spec.resources.requests[ephemeral-storage]: Unsupported value: "
        "\"ephemeral-storage\": supported values: \"cpu\", \"hugepages-\", "
        "\"memory\""}},
      {"PodLevelSidecarsAddUp",
       "Pod",
       "metadata: {name: p}\nspec:\n"
       "  resources: {requests: {memory: 1Gi}}\n"
       "  initContainers:\n"
       "  - {name: side, restartPolicy: Always, resources: {requests: "
       "{memory: 512Mi}}}\n"
       "  - {name: init, resources: {requests: {memory: 2Gi}}}\n"
       "  containers:\n"
       "  - {name: c, resources: {requests: {memory: 768Mi}}}\n",
       {"spec.resources.requests[memory]: Invalid value: \"1Gi\": must be "
        "greater than or equal to aggregate container requests of 2560Mi"}},
      // ---- containers
      {"NoContainers",
       "Pod",
       "metadata: {name: p}\nspec: {}\n",
       {"spec.containers: Required value"}},
      {"ContainerNameRequired",
       "Pod",
       "metadata: {name: p}\nspec: {containers: [{image: x}]}\n",
       {"spec.containers[0].name: Required value"}},
      {"ContainerNameNotDnsLabel",
       "Pod",
       "metadata: {name: p}\nspec: {containers: [{name: Web}]}\n",
       {"spec.containers[0].name: Invalid value: \"Web\": " + kDnsLabel}},
      {"ContainerNameWithDots",
       "Pod",
       "metadata: {name: p}\nspec: {containers: [{name: web.1}]}\n",
       {"spec.containers[0].name: Invalid value: \"web.1\": must not contain "
        "dots"}},
      {"DuplicateContainerName",
       "Pod",
       "metadata: {name: p}\nspec: {containers: [{name: c}, {name: c}]}\n",
       {"spec.containers[1].name: Duplicate value: \"c\""}},
      {"InitContainerNameTakenByContainer",
       "Pod",
       Pod("", "  initContainers: [{name: c}]\n"),
       {"spec.initContainers[0].name: Duplicate value: \"c\""}},
      {"ContainerRestartPolicy",
       "Pod",
       Pod("", "  initContainers: [{name: i, restartPolicy: Sometimes}]\n"),
       {"spec.initContainers[0].restartPolicy: Unsupported value: "
        "\"Sometimes\": supported values: \"Always\", \"Never\", "
        "\"OnFailure\""}},
      // ---- ports
      {"ContainerPortRequired",
       "Pod",
       Pod("ports: [{name: http}]"),
       {"spec.containers[0].ports[0].containerPort: Required value"}},
      {"ContainerPortRange",
       "Pod",
       Pod("ports: [{containerPort: 70000}]"),
       {"spec.containers[0].ports[0].containerPort: Invalid value: 70000: "
        "must be between 1 and 65535, inclusive"}},
      {"HostPortRange",
       "Pod",
       Pod("ports: [{containerPort: 80, hostPort: -1}]"),
       {"spec.containers[0].ports[0].hostPort: Invalid value: -1: must be "
        "between 1 and 65535, inclusive"}},
      {"PortProtocol",
       "Pod",
       Pod("ports: [{containerPort: 80, protocol: tcp}]"),
       {"spec.containers[0].ports[0].protocol: Unsupported value: \"tcp\": "
        "supported values: \"SCTP\", \"TCP\", \"UDP\""}},
      {"PortName",
       "Pod",
       Pod("ports: [{containerPort: 80, name: HTTP}]"),
       {"spec.containers[0].ports[0].name: Invalid value: \"HTTP\": must "
        "contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        "spec.containers[0].ports[0].name: Invalid value: \"HTTP\": must "
        "contain at least one letter (a-z)"}},
      {"DuplicateHostPort",
       "Pod",
       "metadata: {name: p}\nspec:\n  containers:\n"
       "  - {name: a, ports: [{containerPort: 80, hostPort: 8080}]}\n"
       "  - {name: b, ports: [{containerPort: 81, hostPort: 8080}]}\n",
       {"spec.containers[1].ports[0].hostPort: Duplicate value: "
        "\"TCP//8080\""}},
      // Each init container is checked alone, and named index 0.
      {"InitContainerHostPorts",
       "Pod",
       Pod("",
           "  initContainers:\n  - {name: a}\n"
           "  - {name: b, ports: [{containerPort: 80, hostPort: 9000}, "
           "{containerPort: 81, hostPort: 9000, protocol: UDP}, "
           "{containerPort: 82, hostPort: 9000}]}\n"),
       {"spec.initContainers[0].ports[2].hostPort: Duplicate value: "
        "\"TCP//9000\""}},
      {"HostNetworkHostPortMustMatch",
       "Pod",
       Pod("ports: [{containerPort: 80, hostPort: 8080}]",
           "  hostNetwork: true\n"),
       {"spec.containers[0].ports[0].hostPort: Invalid value: 8080: must "
        "match `containerPort` when `hostNetwork` is true"}},
      // Host ports default to the container ports, which then collide.
      {"HostNetworkDefaultsHostPorts",
       "Pod",
       "metadata: {name: p}\nspec:\n  hostNetwork: true\n  containers:\n"
       "  - {name: a, ports: [{containerPort: 80}]}\n"
       "  - {name: b, ports: [{containerPort: 80}]}\n",
       {"spec.containers[1].ports[0].hostPort: Duplicate value: "
        "\"TCP//80\""}},
      // ---- metadata
      {"NameRequired",
       "Pod",
       "spec: {containers: [{name: c}]}\n",
       {"metadata.name: Required value: name or generateName is required"}},
      {"GenerateNameOnly",
       "Pod",
       "metadata: {generateName: web-}\nspec: {containers: [{name: c}]}\n",
       {}},
      {"NameNotDnsSubdomain",
       "Pod",
       "metadata: {name: Web_1}\nspec: {containers: [{name: c}]}\n",
       {"metadata.name: Invalid value: \"Web_1\": " + kDnsSubdomain}},
      {"NamespaceNotDnsLabel",
       "Pod",
       "metadata: {name: p, namespace: a.b}\nspec: {containers: [{name: "
       "c}]}\n",
       {"metadata.namespace: Invalid value: \"a.b\": must not contain dots"}},
      {"LabelKeyAndValue",
       "Pod",
       "metadata: {name: p, labels: {'a/b/c': x, ok: 'not ok'}}\n"
       "spec: {containers: [{name: c}]}\n",
       {"metadata.labels: Invalid value: \"a/b/c\": a valid label key " +
            kKeyRegex +
            " with an optional DNS subdomain prefix and '/' (e.g. "
            "'example.com/MyName')",
        "metadata.labels: Invalid value: \"not ok\": " + kLabelValue}},
      {"LabelValueTooLong",
       "Pod",
       "metadata: {name: p, labels: {app: " + std::string(64, 'a') +
           "}}\nspec: {containers: [{name: c}]}\n",
       {"metadata.labels: Invalid value: \"" + std::string(64, 'a') +
        "\": must be no more than 63 bytes"}},
      {"AnnotationsTooLarge",
       "Pod",
       "metadata: {name: p, annotations: {note: " + std::string(262141, 'a') +
           "}}\nspec: {containers: [{name: c}]}\n",
       {"metadata.annotations: Too long: may not be more than 262144 "
        "bytes"}},
      // ---- volumes
      {"ClaimNameRequired",
       "Pod",
       Pod("", "  volumes: [{name: data, persistentVolumeClaim: {}}]\n"),
       {"spec.volumes[0].persistentVolumeClaim.claimName: Required value"}},
      {"VolumeNames",
       "Pod",
       Pod("",
           "  volumes: [{name: Data, emptyDir: {}}, {name: d, emptyDir: "
           "{}}, {name: d, emptyDir: {}}]\n"),
       {"spec.volumes[0].name: Invalid value: \"Data\": " + kDnsLabel,
        "spec.volumes[2].name: Duplicate value: \"d\""}},
      // ---- placement
      {"NodeSelector",
       "Pod",
       Pod("", "  nodeSelector: {'-zone': 'a b'}\n"),
       {"spec.nodeSelector: Invalid value: \"-zone\": " + kNamePart,
        "spec.nodeSelector: Invalid value: \"a b\": " + kLabelValue}},
      {"LabelKeyPrefixTooLong",
       "Pod",
       Pod("", "  nodeSelector: {" + std::string(254, 'a') + "/x: y}\n"),
       {"spec.nodeSelector: Invalid value: \"" + std::string(254, 'a') +
        "/x\": prefix part must be no more than 253 bytes"}},
      // An operator is a named string type: Go prints it as JSON.
      {"OperatorPrintedAsJson",
       "Pod",
       Pod("",
           "  affinity: {nodeAffinity: "
           "{requiredDuringSchedulingIgnoredDuringExecution: "
           "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: "
           "'<'}]}]}}}\n"),
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchExpressions[0].operator: "
        "Invalid value: \"\\u003c\": not a valid selector operator"}},
      {"NodeName",
       "Pod",
       Pod("", "  nodeName: Node_1\n"),
       {"spec.nodeName: Invalid value: \"Node_1\": " + kDnsSubdomain}},
      {"PriorityClassName",
       "Pod",
       Pod("", "  priorityClassName: High\n"),
       {"spec.priorityClassName: Invalid value: \"High\": " + kDnsSubdomain}},
      {"PreemptionPolicy",
       "Pod",
       Pod("", "  preemptionPolicy: Sometimes\n"),
       {"spec.preemptionPolicy: Unsupported value: \"Sometimes\": supported "
        "values: \"PreemptLowerPriority\", \"Never\""}},
      {"PreemptionPolicyEmpty",
       "Pod",
       Pod("", "  preemptionPolicy: ''\n"),
       {"spec.preemptionPolicy: Required value"}},
      {"RestartPolicy",
       "Pod",
       Pod("", "  restartPolicy: Sometimes\n"),
       {"spec.restartPolicy: Unsupported value: \"Sometimes\": supported "
        "values: \"Always\", \"OnFailure\", \"Never\""}},
      {"SchedulingGates",
       "Pod",
       Pod("", "  schedulingGates: [{name: 'a b'}, {name: x}, {name: x}]\n"),
       {"spec.schedulingGates[0]: Invalid value: \"a b\": " + kNamePart,
        "spec.schedulingGates[2]: Duplicate value: \"x\""}},
      {"NodeNameWithSchedulingGates",
       "Pod",
       Pod("", "  nodeName: n\n  schedulingGates: [{name: x}]\n"),
       {"spec.nodeName: Forbidden: cannot be set until all schedulingGates "
        "have been cleared"}},
      {"EphemeralContainersOnCreate",
       "Pod",
       Pod("", "  ephemeralContainers: [{name: debug}]\n"),
       {"spec.ephemeralContainers: Forbidden: cannot be set on create"}},
      // ---- tolerations
      {"TolerationOperator",
       "Pod",
       Pod("", "  tolerations: [{key: k, operator: Foo}]\n"),
       {"spec.tolerations[0].operator: Unsupported value: \"Foo\": supported "
        "values: \"Equal\", \"Exists\""}},
      {"TolerationComparisonOperatorsOff",
       "Pod",
       Pod("", "  tolerations: [{key: k, operator: Gt, value: '5'}]\n"),
       {"spec.tolerations[0].operator: Unsupported value: \"Gt\": supported "
        "values: \"Equal\", \"Exists\", \"Lt\", \"Gt\""}},
      {"TolerationEmptyKeyNeedsExists",
       "Pod",
       Pod("", "  tolerations: [{operator: Equal, value: v}]\n"),
       {"spec.tolerations[0].operator: Invalid value: \"Equal\": operator "
        "must be Exists when `key` is empty, which means \"match all values "
        "and all keys\""}},
      {"TolerationExistsWithValue",
       "Pod",
       Pod("", "  tolerations: [{key: k, operator: Exists, value: v}]\n"),
       {"spec.tolerations[0].operator: Invalid value: \"v\": value must be "
        "empty when `operator` is 'Exists'"}},
      {"TolerationValue",
       "Pod",
       Pod("", "  tolerations: [{key: k, value: 'a b'}]\n"),
       {"spec.tolerations[0].operator: Invalid value: \"a b\": " +
        kLabelValue}},
      {"TolerationKey",
       "Pod",
       Pod("", "  tolerations: [{key: 'a b', operator: Exists}]\n"),
       {"spec.tolerations[0].key: Invalid value: \"a b\": " + kNamePart}},
      {"TolerationSecondsNeedNoExecute",
       "Pod",
       Pod("",
           "  tolerations: [{key: k, operator: Exists, effect: "
           "NoSchedule, tolerationSeconds: 5}]\n"),
       {"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect "
        "must be 'NoExecute' when `tolerationSeconds` is set"}},
      {"TolerationEffect",
       "Pod",
       Pod("", "  tolerations: [{key: k, operator: Exists, effect: Never}]\n"),
       {"spec.tolerations[0].effect: Unsupported value: \"Never\": supported "
        "values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""}},
      // ---- node affinity
      {"NodeAffinityNoTerms",
       "Pod",
       Pod("",
           "  affinity: {nodeAffinity: "
           "{requiredDuringSchedulingIgnoredDuringExecution: "
           "{nodeSelectorTerms: []}}}\n"),
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms: Required value: must have at least one "
        "node selector term"}},
      {"NodeAffinityOperators",
       "Pod",
       Pod("",
           "  affinity:\n    nodeAffinity:\n"
           "      requiredDuringSchedulingIgnoredDuringExecution:\n"
           "        nodeSelectorTerms:\n"
           "        - matchExpressions:\n"
           "          - {key: a, operator: In}\n"
           "          - {key: b, operator: Exists, values: [x]}\n"
           "          - {key: c, operator: Gt, values: ['1', '2']}\n"
           "          - {key: d, operator: Equals, values: ['a b']}\n"),
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchExpressions[0].values: Required "
        "value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchExpressions[1].values: "
        "Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchExpressions[2].values: Required "
        "value: must be specified single value when `operator` is 'Lt' or "
        "'Gt'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchExpressions[3].operator: "
        "Invalid value: \"Equals\": not a valid selector operator",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchExpressions[3].values[0]: "
        "Invalid value: \"a b\": " +
            kLabelValue}},
      {"NodeAffinityMatchFields",
       "Pod",
       Pod("",
           "  affinity:\n    nodeAffinity:\n"
           "      requiredDuringSchedulingIgnoredDuringExecution:\n"
           "        nodeSelectorTerms:\n"
           "        - matchFields:\n"
           "          - {key: metadata.uid, operator: In, values: [x]}\n"
           "          - {key: metadata.name, operator: In, values: [a, b]}\n"
           "          - {key: metadata.name, operator: Exists}\n"),
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "
        "\"metadata.uid\": not a valid field selector key",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchFields[1].values: Required "
        "value: must be only one value when `operator` is 'In' or 'NotIn' "
        "for node field selector",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution.nodeSelectorTerms[0].matchFields[2].operator: Invalid "
        "value: \"Exists\": not a valid selector operator"}},
      // Preferences allow invalid label values.
      {"NodeAffinityWeights",
       "Pod",
       Pod("",
           "  affinity:\n    nodeAffinity:\n"
           "      preferredDuringSchedulingIgnoredDuringExecution:\n"
           "      - {weight: 0, preference: {matchExpressions: [{key: a, "
           "operator: In, values: ['a b']}]}}\n"
           "      - {weight: 101, preference: {}}\n"),
       {"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuring"
        "Execution[0].weight: Invalid value: 0: must be in the range 1-100",
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuring"
        "Execution[1].weight: Invalid value: 101: must be in the range "
        "1-100"}},
      // ---- pod affinity
      {"PodAffinityTopologyKeyRequired",
       "Pod",
       Pod("",
           "  affinity: {podAffinity: "
           "{requiredDuringSchedulingIgnoredDuringExecution: "
           "[{labelSelector: {matchLabels: {app: web}}}]}}\n"),
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution[0].topologyKey: Required value: can not be empty",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution[0].topologyKey: Invalid value: \"\": name part must be "
        "non-empty",
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution[0].topologyKey: Invalid value: \"\": " +
            kNamePart}},
      {"PodAntiAffinitySelectorAndNamespaces",
       "Pod",
       Pod("",
           "  affinity:\n    podAntiAffinity:\n"
           "      preferredDuringSchedulingIgnoredDuringExecution:\n"
           "      - weight: 200\n"
           "        podAffinityTerm:\n"
           "          topologyKey: zone\n"
           "          namespaces: [Shop]\n"
           "          labelSelector: {matchExpressions: [{key: app, "
           "operator: Equals, values: [web]}, {key: tier, operator: In}]}\n"
           "          namespaceSelector: {matchExpressions: [{key: team, "
           "operator: Exists, values: [a]}]}\n"),
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnored"
        "DuringExecution[0].weight: Invalid value: 200: must be in the range "
        "1-100",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnored"
        "DuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[0]"
        ".operator: Invalid value: \"Equals\": not a valid selector operator",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnored"
        "DuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[1]"
        ".values: Required value: must be specified when `operator` is 'In' "
        "or 'NotIn'",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnored"
        "DuringExecution[0].podAffinityTerm.namespaceSelector."
        "matchExpressions[0].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnored"
        "DuringExecution[0].podAffinityTerm.namespace: Invalid value: "
        "\"Shop\": " +
            kDnsLabel}},
      {"PodAffinityMatchLabelKeysNeedSelector",
       "Pod",
       Pod("",
           "  affinity: {podAffinity: "
           "{requiredDuringSchedulingIgnoredDuringExecution: "
           "[{topologyKey: zone, matchLabelKeys: [app]}]}}\n"),
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution[0].matchLabelKeys: Forbidden: must not be specified when "
        "labelSelector is not set"}},
      // The pod strategy merges app In (web) into the selector, which
      // already names app.
      {"PodAffinityMatchLabelKeyInSelector",
       "Pod",
       Pod("",
           "  affinity: {podAffinity: "
           "{requiredDuringSchedulingIgnoredDuringExecution: "
           "[{topologyKey: zone, matchLabelKeys: [app], labelSelector: "
           "{matchLabels: {app: web}}}]}}\n"),
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution[0][0]: Invalid value: \"app\": exists in both "
        "matchLabelKeys and labelSelector"}},
      {"PodAffinityMatchAndMismatchLabelKeys",
       "Pod",
       Pod("",
           "  affinity: {podAffinity: "
           "{requiredDuringSchedulingIgnoredDuringExecution: "
           "[{topologyKey: zone, matchLabelKeys: [tier], "
           "mismatchLabelKeys: [tier], labelSelector: {}}]}}\n"),
       {"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
        "Execution[0].matchLabelKeys[0]: Invalid value: \"tier\": exists in "
        "both matchLabelKeys and mismatchLabelKeys"}},
      // ---- topology spread
      {"TopologySpreadBasics",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 0, whenUnsatisfiable: ''}\n"),
       {"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must "
        "be greater than zero",
        "spec.topologySpreadConstraints[0].topologyKey: Required value: can "
        "not be empty",
        "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported "
        "value: \"\": supported values: \"DoNotSchedule\", "
        "\"ScheduleAnyway\""}},
      {"TopologySpreadDuplicate",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
           "DoNotSchedule}\n"
           "  - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: "
           "DoNotSchedule}\n"),
       {"spec.topologySpreadConstraints[0].{topologyKey, "
        "whenUnsatisfiable}: Duplicate value: \"{zone, DoNotSchedule}\""}},
      {"TopologySpreadMinDomains",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
           "ScheduleAnyway, minDomains: 0}\n"),
       {"spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: "
        "must be greater than zero",
        "spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: can "
        "only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
        "ScheduleAnyway"}},
      {"TopologySpreadPolicies",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
           "DoNotSchedule, nodeAffinityPolicy: Respect, "
           "nodeTaintsPolicy: Ignore}\n"),
       {"spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported "
        "value: \"Respect\": supported values: \"Honor\", \"Ignore\""}},
      {"TopologySpreadMatchLabelKeysNeedSelector",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
           "DoNotSchedule, matchLabelKeys: [app]}\n"),
       {"spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must "
        "not be specified when labelSelector is not set"}},
      {"TopologySpreadMatchLabelKeyInSelector",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
           "DoNotSchedule, matchLabelKeys: [app], labelSelector: "
           "{matchLabels: {app: web}}}\n"),
       {"spec.topologySpreadConstraints[0][0]: Invalid value: \"app\": "
        "exists in both matchLabelKeys and labelSelector"}},
      // Without the label on the pod nothing is merged, nothing collides.
      {"TopologySpreadMatchLabelKeyNotOnPod",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
           "DoNotSchedule, matchLabelKeys: [tier], labelSelector: "
           "{matchLabels: {tier: web}}}\n"),
       {}},
      {"TopologySpreadSelector",
       "Pod",
       Pod("",
           "  topologySpreadConstraints:\n"
           "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
           "DoNotSchedule, labelSelector: {matchLabels: {app: 'a b'}}}\n"),
       {"spec.topologySpreadConstraints[0].labelSelector.matchLabels: "
        "Invalid value: \"a b\": " +
        kLabelValue}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(Pod, RuleTest, ::testing::ValuesIn(PodCases()),
                         CaseName);

// kube's message for a declared feature name of the wrong form.
std::string DeclaredFeatureFormat(std::string_view name) {
  return "invalid feature name \"" + std::string(name) +
         "\": must start with an UpperCamelCase segment, with subsequent "
         "segments separated by '/' (e.g., MyFeature or "
         "MyFeature/mySubFeature), and contain only alphanumeric characters "
         "and slashes";
}

std::string Node(std::string_view rest) {
  return "metadata: {name: n}\n" + std::string(rest);
}

const std::vector<Case>& NodeCases() {
  static const auto* const kCases = new std::vector<Case>{
      {"TaintEffectRequired",
       "Node",
       Node("spec: {taints: [{key: k, value: v}]}\n"),
       {"metadata.taints[0].effect: Required value"}},
      {"TaintEffect",
       "Node",
       Node("spec: {taints: [{key: k, effect: Sometimes}]}\n"),
       {"metadata.taints[0].effect: Unsupported value: \"Sometimes\": "
        "supported values: \"NoSchedule\", \"PreferNoSchedule\", "
        "\"NoExecute\""}},
      {"TaintKeyRequired",
       "Node",
       Node("spec: {taints: [{effect: NoSchedule}]}\n"),
       {"metadata.taints[0].key: Invalid value: \"\": name part must be "
        "non-empty",
        "metadata.taints[0].key: Invalid value: \"\": " + kNamePart}},
      {"TaintValue",
       "Node",
       Node("spec: {taints: [{key: k, value: 'a b', effect: NoSchedule}]}\n"),
       {"metadata.taints[0].value: Invalid value: \"a b\": " + kLabelValue}},
      {"TaintDuplicate",
       "Node",
       Node("spec:\n  taints:\n  - {key: k, value: a, effect: NoSchedule}\n"
            "  - {key: k, value: b, effect: NoExecute}\n"
            "  - {key: k, value: c, effect: NoSchedule}\n"),
       {"metadata.taints[2]: Duplicate value: "
        "{\"Key\":\"k\",\"Value\":\"c\",\"Effect\":\"NoSchedule\","
        "\"TimeAdded\":null}: taints must be unique by key and effect pair"}},
      {"NegativeCapacityAndFractionalPods",
       "Node",
       Node("status: {capacity: {cpu: '-1'}, allocatable: {pods: '1.5', "
            "memory: -1Gi}}\n"),
       {"status.capacity.cpu: Invalid value: \"-1\": must be greater than or "
        "equal to 0",
        "status.allocatable.pods: Invalid value: \"1500m\": must be an "
        "integer",
        "status.allocatable.memory: Invalid value: \"-1Gi\": must be greater "
        "than or equal to 0"}},
      {"NodeName",
       "Node",
       "metadata: {name: Node_1}\n",
       {"metadata.name: Invalid value: \"Node_1\": " + kDnsSubdomain}},
      // A cluster-scoped object's namespace is cleared, not refused.
      {"NodeNamespaceIgnored",
       "Node",
       "metadata: {name: n, namespace: 'No Namespace'}\n",
       {}},
      {"NodeLabels",
       "Node",
       "metadata: {name: n, labels: {'example.com/': x}}\n",
       {"metadata.labels: Invalid value: \"example.com/\": name part must be "
        "non-empty",
        "metadata.labels: Invalid value: \"example.com/\": " + kNamePart}},
      // After kube's TestValidateNodeDeclaredFeatures.
      {"DeclaredFeaturesEmpty",
       "Node",
       Node("status: {declaredFeatures: []}\n"),
       {}},
      {"DeclaredFeaturesValid",
       "Node",
       Node("status: {declaredFeatures: [AnotherFeature, MyFeature, "
            "MyFeature/SubFeature, MyFeature/sub2]}\n"),
       {}},
      {"DeclaredFeaturesDuplicate",
       "Node",
       Node("status: {declaredFeatures: [MyFeature, MyFeature]}\n"),
       {"status.declaredFeatures[1]: Duplicate value: \"MyFeature\""}},
      {"DeclaredFeaturesUnsorted",
       "Node",
       Node("status: {declaredFeatures: [MyFeature, AnotherFeature]}\n"),
       {"status.declaredFeatures[1]: Invalid value: \"AnotherFeature\": list "
        "must be sorted alphabetically"}},
      {"DeclaredFeaturesMixedValidAndInvalid",
       "Node",
       Node("status: {declaredFeatures: [AnotherFeature, invalid, "
            "MyFeature]}\n"),
       {"status.declaredFeatures[1]: Invalid value: \"invalid\": " +
            DeclaredFeatureFormat("invalid"),
        "status.declaredFeatures[2]: Invalid value: \"MyFeature\": list must "
        "be sorted alphabetically"}},
      {"DeclaredFeaturesLowerCamelCase",
       "Node",
       Node("status: {declaredFeatures: [myFeature]}\n"),
       {"status.declaredFeatures[0]: Invalid value: \"myFeature\": " +
        DeclaredFeatureFormat("myFeature")}},
      {"DeclaredFeaturesKebabCase",
       "Node",
       Node("status: {declaredFeatures: [Feature-name]}\n"),
       {"status.declaredFeatures[0]: Invalid value: \"Feature-name\": " +
        DeclaredFeatureFormat("Feature-name")}},
      {"DeclaredFeaturesEndsWithSlash",
       "Node",
       Node("status: {declaredFeatures: [FeatureA/]}\n"),
       {"status.declaredFeatures[0]: Invalid value: \"FeatureA/\": " +
        DeclaredFeatureFormat("FeatureA/")}},
      {"DeclaredFeaturesSubSegmentStartsWithDigit",
       "Node",
       Node("status: {declaredFeatures: [FeatureA/1b]}\n"),
       {"status.declaredFeatures[0]: Invalid value: \"FeatureA/1b\": " +
        DeclaredFeatureFormat("FeatureA/1b")}},
      {"DeclaredFeaturesTooLong",
       "Node",
       Node("status: {declaredFeatures: [F" + std::string(253, 'e') + "]}\n"),
       {"status.declaredFeatures[0]: Invalid value: \"F" +
        std::string(253, 'e') + "\": invalid feature name \"F" +
        std::string(253, 'e') + "\": must be no more than 253 characters"}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(Node, RuleTest, ::testing::ValuesIn(NodeCases()),
                         CaseName);

const std::vector<Case>& PolicyCases() {
  static const auto* const kCases = new std::vector<Case>{
      {"PriorityAboveUserRange",
       "PriorityClass",
       "metadata: {name: high}\nvalue: 2000000000\n",
       {"value: Forbidden: maximum allowed value of a user defined priority "
        "is 1000000000"}},
      {"SystemPrefixReserved",
       "PriorityClass",
       "metadata: {name: system-high}\nvalue: 10\n",
       {"metadata.name: Forbidden: priority class names with 'system-' "
        "prefix are reserved for system use only. error: system-high is not "
        "a known system priority class"}},
      {"SystemClassValue",
       "PriorityClass",
       "metadata: {name: system-cluster-critical}\nvalue: 10\n",
       {"metadata.name: Forbidden: priority class names with 'system-' "
        "prefix are reserved for system use only. error: value of "
        "system-cluster-critical PriorityClass must be 2000000000"}},
      {"SystemClass",
       "PriorityClass",
       "metadata: {name: system-node-critical}\nvalue: 2000001000\n",
       {}},
      {"PriorityClassPreemptionPolicy",
       "PriorityClass",
       "metadata: {name: low}\nvalue: 1\npreemptionPolicy: Maybe\n",
       {"preemptionPolicy: Unsupported value: \"Maybe\": supported values: "
        "\"PreemptLowerPriority\", \"Never\""}},
      {"PdbBothSet",
       "PodDisruptionBudget",
       "metadata: {name: b}\nspec: {minAvailable: 1, maxUnavailable: '10%', "
       "selector: {matchLabels: {app: web}}}\n",
       {"spec: Invalid value: {\"MinAvailable\":1,\"Selector\":"
        "{\"matchLabels\":{\"app\":\"web\"}},\"MaxUnavailable\":\"10%\","
        "\"UnhealthyPodEvictionPolicy\":null}: minAvailable and "
        "maxUnavailable cannot be both set"}},
      {"PdbNegative",
       "PodDisruptionBudget",
       "metadata: {name: b}\nspec: {minAvailable: -1}\n",
       {"spec.minAvailable: Invalid value: -1: must be greater than or equal "
        "to 0"}},
      // A quoted number is a string, so it must be a percentage.
      {"PdbNotAPercent",
       "PodDisruptionBudget",
       "metadata: {name: b}\nspec: {maxUnavailable: '50'}\n",
       {"spec.maxUnavailable: Invalid value: \"50\": a valid percent string "
        "must be a numeric string followed by an ending '%' (e.g. '1%',  or "
        "'93%', regex used for validation is '[0-9]+%')"}},
      {"PdbAbove100Percent",
       "PodDisruptionBudget",
       "metadata: {name: b}\nspec: {minAvailable: 150%}\n",
       {"spec.minAvailable: Invalid value: \"150%\": must not be greater "
        "than 100%"}},
      {"PdbSelectorAndPolicy",
       "PodDisruptionBudget",
       "metadata: {name: b}\nspec: {minAvailable: 1, selector: "
       "{matchExpressions: [{key: app, operator: Exists, values: [x]}]}, "
       "unhealthyPodEvictionPolicy: Never}\n",
       {"spec.selector.matchExpressions[0].values: Forbidden: may not be "
        "specified when `operator` is 'Exists' or 'DoesNotExist'",
        "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": "
        "supported values: \"AlwaysAllow\", \"IfHealthyBudget\""}},
      // Its metadata is checked only once the spec passed.
      {"PdbName",
       "PodDisruptionBudget",
       "metadata: {name: a/b}\nspec: {minAvailable: 1}\n",
       {"metadata.name: Invalid value: \"a/b\": may not contain '/'"}},
      {"PdbNameAfterSpec",
       "PodDisruptionBudget",
       "metadata: {name: a/b}\nspec: {minAvailable: -1}\n",
       {"spec.minAvailable: Invalid value: -1: must be greater than or equal "
        "to 0"}},
      // The CRD sets no bounds.
      {"PodGroupCountsUnbounded",
       "PodGroup",
       "metadata: {name: g}\nspec: {minMember: -1, minResources: {cpu: "
       "'-1'}, scheduleTimeoutSeconds: -5}\n",
       {}},
      {"PodGroupName",
       "PodGroup",
       "metadata: {name: G}\nspec: {minMember: 2}\n",
       {"metadata.name: Invalid value: \"G\": " + kDnsSubdomain}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(Policy, RuleTest, ::testing::ValuesIn(PolicyCases()),
                         CaseName);

std::string Deployment(std::string_view spec_extra,
                       std::string_view container = "name: c") {
  return "metadata: {name: web}\nspec:\n  selector: {matchLabels: {app: "
         "web}}\n" +
         std::string(spec_extra) +
         "  template:\n    metadata: {labels: {app: web}}\n    spec:\n"
         "      containers: [{" +
         std::string(container) + "}]\n";
}

const std::vector<Case>& WorkloadCases() {
  static const auto* const kCases = new std::vector<Case>{
      {"DeploymentReplicas",
       "Deployment",
       Deployment("  replicas: -1\n"),
       {"spec.replicas: Invalid value: -1: must be greater than or equal to "
        "0"}},
      {"DeploymentTemplateResources",
       "Deployment",
       Deployment("", "name: c, resources: {requests: {cpu: '-1'}}"),
       {"spec.template.spec.containers[0].resources.requests[cpu]: Invalid "
        "value: \"-1\": must be greater than or equal to 0"}},
      // Templates are not defaulted as pods are: only the limit is checked.
      {"TemplateLimitNotCopiedToRequest",
       "Deployment",
       Deployment("", "name: c, resources: {limits: {cpu: '-1'}}"),
       {"spec.template.spec.containers[0].resources.limits[cpu]: Invalid "
        "value: \"-1\": must be greater than or equal to 0"}},
      {"DeploymentSelectorRequired",
       "Deployment",
       "metadata: {name: web}\nspec: {template: {spec: {containers: [{name: "
       "c}]}}}\n",
       {"spec.selector: Required value"}},
      {"DeploymentEmptySelector",
       "Deployment",
       "metadata: {name: web}\nspec: {selector: {}, template: {spec: "
       "{containers: [{name: c}]}}}\n",
       {"spec.selector: Invalid value: {}: empty selector is invalid for "
        "deployment"}},
      // An invalid selector stops the template from being checked.
      {"DeploymentInvalidSelector",
       "Deployment",
       "metadata: {name: web}\nspec:\n  selector: {matchLabels: {app: 'a "
       "b'}}\n  template: {spec: {containers: []}}\n",
       {"spec.selector.matchLabels: Invalid value: \"a b\": " + kLabelValue,
        "spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"a b\"}}: "
        "invalid label selector"}},
      {"DeploymentTemplateLabels",
       "Deployment",
       "metadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n"
       "  template:\n    metadata: {labels: {app: web, '-x': y}}\n"
       "    spec: {containers: [{name: c}]}\n",
       {"spec.template.labels: Invalid value: \"-x\": " + kNamePart}},
      {"DeploymentRestartPolicy",
       "Deployment",
       "metadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n"
       "  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n",
       {"spec.template.spec.restartPolicy: Unsupported value: \"Never\": "
        "supported values: \"Always\""}},
      {"ReplicaSetEmptySelector",
       "ReplicaSet",
       "metadata: {name: web}\nspec: {replicas: -2, selector: {}, template: "
       "{spec: {containers: [{name: c}]}}}\n",
       {"spec.replicas: Invalid value: -2: must be greater than or equal to 0",
        "spec.selector: Invalid value: {}: empty selector is invalid for "
        "deployment"}},
      {"StatefulSetNameIsDnsLabel",
       "StatefulSet",
       "metadata: {name: db.1}\nspec: {selector: {matchLabels: {app: db}}, "
       "template: {spec: {containers: [{name: c}]}}}\n",
       {"metadata.name: Invalid value: \"db.1\": must not contain dots"}},
      // Its claim templates replace the volume of the same name.
      {"StatefulSetClaimTemplates",
       "StatefulSet",
       "metadata: {name: db}\nspec:\n  selector: {matchLabels: {app: db}}\n"
       "  volumeClaimTemplates: [{metadata: {name: data}}]\n"
       "  template:\n    spec:\n      containers: [{name: c}]\n"
       "      volumes: [{name: data, persistentVolumeClaim: {}}, {name: "
       "logs, persistentVolumeClaim: {}}]\n",
       {"spec.template.spec.volumes[1].persistentVolumeClaim.claimName: "
        "Required value"}},
      {"DaemonSetEmptySelector",
       "DaemonSet",
       "metadata: {name: agent}\nspec: {selector: {}, template: {spec: "
       "{containers: [{name: c}], activeDeadlineSeconds: 5}}}\n",
       {"spec.selector: Invalid value: {}: empty selector is invalid for "
        "daemonset",
        "spec.template.spec.activeDeadlineSeconds: Forbidden: "
        "activeDeadlineSeconds in DaemonSet is not Supported"}},
      {"JobCounts",
       "Job",
       "metadata: {name: j}\nspec:\n  parallelism: -1\n  completions: '-2'\n"
       "  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}\n",
       {"spec.parallelism: Invalid value: -1: must be greater than or equal "
        "to 0",
        "spec.completions: Invalid value: -2: must be greater than or equal "
        "to 0"}},
      {"JobRestartPolicyDefaultsToAlways",
       "Job",
       "metadata: {name: j}\nspec: {template: {spec: {containers: [{name: "
       "c}]}}}\n",
       {"spec.template.spec.restartPolicy: Required value: valid values: "
        "\"OnFailure\", \"Never\""}},
      {"CronJobTemplate",
       "CronJob",
       "metadata: {name: c}\nspec:\n  jobTemplate:\n    spec:\n"
       "      template:\n        spec:\n          restartPolicy: OnFailure\n"
       "          containers: [{name: c, resources: {requests: {memory: "
       "'-1'}}}]\n",
       {"spec.schedule: Required value",
        "spec.jobTemplate.spec.template.spec.containers[0].resources."
        "requests[memory]: Invalid value: \"-1\": must be greater than or "
        "equal to 0"}},
      {"CronJobNameLength",
       "CronJob",
       "metadata: {name: " + std::string(53, 'a') +
           "}\nspec:\n  schedule: '* * * * *'\n  jobTemplate: {spec: "
           "{template: {spec: {restartPolicy: Never, containers: [{name: "
           "c}]}}}}\n",
       {"metadata.name: Invalid value: \"" + std::string(53, 'a') +
        "\": must be no more than 52 characters"}},
      // matchLabelKeys are merged into selectors of pods, not templates.
      {"TemplateMatchLabelKeysNotMerged",
       "Deployment",
       "metadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n"
       "  template:\n    metadata: {labels: {app: web}}\n    spec:\n"
       "      containers: [{name: c}]\n"
       "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, "
       "whenUnsatisfiable: DoNotSchedule, matchLabelKeys: [app], "
       "labelSelector: {matchLabels: {app: web}}}]\n",
       {}},
      {"UncoveredKind", "Service", "metadata: {name: 'Not Valid'}\n", {}},
  };
  return *kCases;
}

INSTANTIATE_TEST_SUITE_P(Workload, RuleTest,
                         ::testing::ValuesIn(WorkloadCases()), CaseName);

TEST(InvalidMessageTest, OneError) {
  rapidjson::Document pod =
      MustParse(Pod("resources: {requests: {cpu: '-1'}}"));
  EXPECT_EQ(InvalidMessage("Pod", "web", ValidatePod(pod)),
            "Pod \"web\" is invalid: spec.containers[0].resources.requests"
            "[cpu]: Invalid value: \"-1\": must be greater than or equal to "
            "0");
}

TEST(InvalidMessageTest, TwoErrorsAndTheGroup) {
  rapidjson::Document d = MustParse(
      "metadata: {name: web}\nspec: {replicas: -1, template: {spec: "
      "{containers: [{name: c}]}}}\n");
  EXPECT_EQ(
      InvalidMessage("Deployment", "web", ValidateWorkload("Deployment", d)),
      "Deployment.apps \"web\" is invalid: [spec.replicas: Invalid "
      "value: -1: must be greater than or equal to 0, spec.selector: "
      "Required value]");
}

TEST(InvalidMessageTest, RepeatedErrorsOnce) {
  // A StatefulSet's template labels are checked twice; the message says
  // so once, as kube's aggregate does.
  rapidjson::Document s = MustParse(
      "metadata: {name: db}\nspec:\n  selector: {matchLabels: {app: db}}\n"
      "  template:\n    metadata: {labels: {'-x': y}}\n"
      "    spec: {containers: [{name: c}]}\n");
  FieldErrors errors = ValidateWorkload("StatefulSet", s);
  EXPECT_EQ(errors.size(), 2u);
  EXPECT_EQ(InvalidMessage("StatefulSet", "db", errors),
            "StatefulSet.apps \"db\" is invalid: spec.template.labels: "
            "Invalid value: \"-x\": " +
                kNamePart);
}

TEST(InvalidMessageTest, NoErrors) {
  EXPECT_EQ(InvalidMessage("PriorityClass", "x", {}),
            "PriorityClass.scheduling.k8s.io \"x\" is invalid");
}

// What `kubectl get pod -o yaml` prints for a running pod, managed fields
// and status included: valid.
constexpr std::string_view kKubectlPod = R"(
apiVersion: v1
kind: Pod
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-7c9f6d8b5-x2x9z"}}
  creationTimestamp: "2025-06-01T10:00:00Z"
  generateName: web-7c9f6d8b5-
  labels:
    app: web
    pod-template-hash: 7c9f6d8b5
    version: 2
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:generateName: {}
        f:labels:
          .: {}
          f:app: {}
      f:spec:
        f:containers:
          k:{"name":"web"}:
            .: {}
            f:resources:
              .: {}
              f:requests:
                .: {}
                f:cpu: {}
    manager: kube-controller-manager
    operation: Update
    time: "2025-06-01T10:00:00Z"
  name: web-7c9f6d8b5-x2x9z
  namespace: shop
  ownerReferences:
  - apiVersion: apps/v1
    blockOwnerDeletion: true
    controller: true
    kind: ReplicaSet
    name: web-7c9f6d8b5
    uid: 0b5c3c8e-1d2f-4c4f-9d7a-5a3c2e1f0a9b
  resourceVersion: "123456"
  uid: 6f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b
spec:
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - podAffinityTerm:
          labelSelector:
            matchExpressions:
            - key: app
              operator: In
              values: [web]
          matchLabelKeys: [pod-template-hash]
          topologyKey: kubernetes.io/hostname
        weight: 100
  containers:
  - image: registry.example.com/shop/web:2.4.1
    imagePullPolicy: IfNotPresent
    name: web
    ports:
    - containerPort: 8080
      name: http
      protocol: TCP
    resources:
      limits:
        memory: 2Gi
        nvidia.com/gpu: "1"
        hugepages-2Mi: 4Mi
      requests:
        cpu: 500m
        memory: 1Gi
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    volumeMounts:
    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
      name: kube-api-access-abcde
      readOnly: true
  initContainers:
  - name: log-shipper
    image: fluent/fluent-bit:3.0
    restartPolicy: Always
    ports: [{containerPort: 2020, hostPort: 2020}]
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  nodeName: cpu-a-1
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {}
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - effect: NoExecute
    key: node.kubernetes.io/unreachable
    operator: Exists
    tolerationSeconds: 300
  - operator: Exists
  topologySpreadConstraints:
  - maxSkew: 1
    minDomains: 2
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    nodeAffinityPolicy: Honor
    nodeTaintsPolicy: Ignore
    labelSelector:
      matchLabels: {app: web}
    matchLabelKeys: [pod-template-hash]
  volumes:
  - name: kube-api-access-abcde
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken: {expirationSeconds: 3607, path: token}
  - name: data
    persistentVolumeClaim: {claimName: web-data}
  - name: scratch
    emptyDir: {sizeLimit: 1Gi}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2025-06-01T10:00:05Z"}
  hostIP: 10.0.0.1
  podIP: 10.244.1.7
  qosClass: Burstable
  startTime: "2025-06-01T10:00:00Z"
)";

TEST(ValidObjectsTest, KubectlPod) {
  rapidjson::Document pod = MustParse(kKubectlPod);
  EXPECT_THAT(Messages(ValidatePod(pod)), IsEmpty());
}

// Every object of a covered kind in the bundled examples passes.
TEST(ValidObjectsTest, Examples) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(KSCHED_SOURCE_DIR) / "examples";
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      files.push_back(entry.path());
    }
  }
  ASSERT_FALSE(files.empty());
  int checked = 0;
  std::set<std::string> kinds;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto docs = api::YamlToJson(text.str());
    ASSERT_TRUE(docs.ok()) << file << ": " << docs.error().message();
    std::function<void(const rapidjson::Value&)> check =
        [&](const rapidjson::Value& obj) {
          if (!obj.IsObject() || !obj.HasMember("kind") ||
              !obj["kind"].IsString()) {
            return;
          }
          std::string kind = obj["kind"].GetString();
          if (kind == "List" && obj.HasMember("items") &&
              obj["items"].IsArray()) {
            for (const rapidjson::Value& item : obj["items"].GetArray()) {
              check(item);
            }
            return;
          }
          FieldErrors errors = ValidateObject(kind, obj);
          EXPECT_THAT(Messages(errors), IsEmpty()) << file << ": " << kind;
          if (kind == "Pod" || kind == "Node" || kind == "Deployment" ||
              kind == "PriorityClass" || kind == "PodGroup") {
            ++checked;
            kinds.insert(kind);
          }
        };
    for (const rapidjson::Document& doc : *docs) check(doc);
  }
  EXPECT_GT(checked, 40);
  EXPECT_THAT(kinds, ::testing::ElementsAre("Deployment", "Node", "Pod",
                                            "PodGroup", "PriorityClass"));
}

// Every value of the kubectl pod, and of a few other objects, replaced in
// turn by each JSON type: every validator runs without throwing.
TEST(RobustnessTest, WrongTypesEverywhere) {
  const std::vector<std::string> replacements = {
      "null",        "7",  "-1.5", "\"x\"",
      "true",        "[]", "{}",   "[1, \"a\", null]",
      "{\"a\": [1]}"};
  const std::vector<std::string_view> kinds = {
      "Pod",       "Node",       "PriorityClass", "PodDisruptionBudget",
      "PodGroup",  "Deployment", "ReplicaSet",    "StatefulSet",
      "DaemonSet", "Job",        "CronJob"};
  std::vector<std::string> sources = {
      std::string(kKubectlPod),
      Node("spec: {taints: [{key: k, effect: NoSchedule}]}\nstatus: "
           "{capacity: {cpu: '1'}, allocatable: {pods: '1'}}\n"),
      "metadata: {name: b}\nspec: {minAvailable: 1, maxUnavailable: 1, "
      "selector: {matchExpressions: [{key: a, operator: In, values: [b]}]}, "
      "unhealthyPodEvictionPolicy: AlwaysAllow}\nvalue: 5\n"
      "preemptionPolicy: Never\n",
      "metadata: {name: c}\nspec:\n  schedule: x\n  replicas: 1\n"
      "  volumeClaimTemplates: [{metadata: {name: d}}]\n"
      "  jobTemplate: {spec: {parallelism: 1, template: {spec: {containers: "
      "[{name: c}]}}}}\n"
      "  selector: {matchLabels: {a: b}}\n"
      "  template: {metadata: {labels: {a: b}}, spec: {hostNetwork: true, "
      "resources: {limits: {cpu: 1}}, containers: [{name: c, ports: "
      "[{containerPort: 1}]}]}}\n"};
  int runs = 0;
  for (const std::string& source : sources) {
    rapidjson::Document doc = MustParse(source);
    // Visit every value by its path of members and indexes.
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
        for (std::string_view kind : kinds) {
          EXPECT_NO_THROW(ValidateObject(kind, mutated));
          ++runs;
        }
      }
    }
  }
  EXPECT_GT(runs, 10000);
}

}  // namespace
}  // namespace ksched::validation
