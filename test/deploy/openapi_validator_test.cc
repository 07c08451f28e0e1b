#include "test/deploy/openapi_validator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ksched::testing::deploy {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A Deployment shaped like the scheduler's own, with a hole where each test
// puts the container fields it cares about.
std::string DeploymentWith(const std::string& container_fields,
                           const std::string& replicas = "1") {
  return R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ksched
  namespace: kube-system
spec:
  replicas: )" +
         replicas + R"(
  selector:
    matchLabels: {app: ksched}
  template:
    metadata:
      labels: {app: ksched}
    spec:
      containers:
      - name: ksched
        image: ksched:dev
)" + container_fields;
}

class OpenApiValidatorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto start = std::chrono::steady_clock::now();
    util::Result<OpenApiSchema> loaded =
        OpenApiSchema::LoadGzip(KSCHED_OPENAPI_V2_GZ);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(loaded.ok()) << loaded.error().message();
    std::cout << "LoadGzip took "
              << std::chrono::duration_cast<std::chrono::milliseconds>(elapsed)
                     .count()
              << " ms\n";
    schema_ = std::make_unique<OpenApiSchema>(std::move(loaded).value());
  }

  static void TearDownTestSuite() { schema_.reset(); }

  void SetUp() override { ASSERT_NE(schema_, nullptr); }

  static std::vector<std::string> Validate(const std::string& yaml) {
    return schema_->Validate(YAML::Load(yaml));
  }

  static std::unique_ptr<OpenApiSchema> schema_;
};

std::unique_ptr<OpenApiSchema> OpenApiValidatorTest::schema_;

TEST_F(OpenApiValidatorTest, LoadsEveryDefinition) {
  // kube-apiserver v1.32 with no aggregated APIs or CRDs serves 509.
  EXPECT_GT(schema_->definition_count(), 400u);
}

TEST_F(OpenApiValidatorTest, MissingFileIsAnError) {
  util::Result<OpenApiSchema> loaded =
      OpenApiSchema::LoadGzip("/nonexistent/openapi-v2.json.gz");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.error().message(), HasSubstr("/nonexistent"));
}

TEST_F(OpenApiValidatorTest, RealisticDeploymentIsValid) {
  EXPECT_THAT(Validate(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ksched
  namespace: kube-system
  labels:
    app.kubernetes.io/name: ksched
    app.kubernetes.io/version: "0.1.0"
  annotations:
    checksum/config: 3f2a9c
spec:
  replicas: 2
  revisionHistoryLimit: 3
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
      maxSurge: 25%
  selector:
    matchLabels:
      app.kubernetes.io/name: ksched
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ksched
    spec:
      serviceAccountName: ksched
      priorityClassName: system-cluster-critical
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: ksched
        image: ghcr.io/example/ksched:0.1.0
        imagePullPolicy: IfNotPresent
        args: ["--config=/etc/ksched/config.yaml", "--v=2"]
        env:
        - name: POD_NAME
          valueFrom:
            fieldRef: {fieldPath: metadata.name}
        - name: GOMAXPROCS
          value: "2"
        ports:
        - name: metrics
          containerPort: 10259
          protocol: TCP
        livenessProbe:
          httpGet: {path: /healthz, port: metrics, scheme: HTTPS}
          initialDelaySeconds: 15
          periodSeconds: 10
        readinessProbe:
          httpGet:
            path: /readyz
            port: 10259
        resources:
          requests:
            cpu: 100m
            memory: 128Mi
          limits:
            cpu: 1
            memory: 256Mi
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop: [ALL]
        volumeMounts:
        - name: config
          mountPath: /etc/ksched
          readOnly: true
      volumes:
      - name: config
        configMap:
          name: ksched-config
          defaultMode: 0644
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
)"),
              IsEmpty());
}

TEST_F(OpenApiValidatorTest, ChartObjectsAreValid) {
  const std::vector<YAML::Node> objects = YAML::LoadAll(R"(
apiVersion: v1
kind: ServiceAccount
metadata: {name: ksched, namespace: kube-system}
automountServiceAccountToken: true
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ksched}
rules:
- apiGroups: [""]
  resources: [pods, nodes]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [pods/binding, events]
  verbs: [create]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [ksched]
  verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ksched}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ksched
subjects:
- kind: ServiceAccount
  name: ksched
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: ksched-leases, namespace: kube-system}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ksched-config, namespace: kube-system}
data:
  config.yaml: |
    profiles:
    - schedulerName: ksched
  leaderElect: "true"
---
apiVersion: v1
kind: Service
metadata: {name: ksched-metrics, namespace: kube-system}
spec:
  type: ClusterIP
  selector: {app: ksched}
  ports:
  - name: metrics
    port: 10259
    targetPort: metrics
    protocol: TCP
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ksched, namespace: kube-system}
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: ksched}
---
apiVersion: v1
kind: Pod
metadata: {name: sleeper, namespace: default}
spec:
  schedulerName: ksched
  restartPolicy: Never
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: sleep
    image: busybox:1.36
    command: [sleep, "3600"]
    resources:
      requests: {cpu: 0.5, memory: 64Mi}
)");
  ASSERT_EQ(objects.size(), 8u);
  for (const YAML::Node& object : objects) {
    SCOPED_TRACE(object["kind"].as<std::string>());
    EXPECT_THAT(schema_->Validate(object), IsEmpty());
  }
}

TEST_F(OpenApiValidatorTest, UnknownFieldIsReportedWithItsPath) {
  EXPECT_THAT(Validate(DeploymentWith("        imagePullPolicyX: Always\n")),
              ElementsAre("spec.template.spec.containers[0].imagePullPolicyX: "
                          "unknown field"));
  EXPECT_THAT(
      Validate(DeploymentWith(R"(
        ports:
        - containerPort: 80
        - containerPort: 81
          hostPortt: 81
)")),
      ElementsAre("spec.template.spec.containers[0].ports[1].hostPortt: "
                  "unknown field"));
}

TEST_F(OpenApiValidatorTest, QuotedReplicasIsNotAnInteger) {
  EXPECT_THAT(Validate(DeploymentWith("", "\"2\"")),
              ElementsAre("spec.replicas: expected integer, got string \"2\""));
  EXPECT_THAT(Validate(DeploymentWith("", "2")), IsEmpty());
}

TEST_F(OpenApiValidatorTest, IntegersFollowYaml11AndJson) {
  // go-yaml v2 reads 0x10 and 1_0 as integers; 8.0 reaches the server as 8.
  EXPECT_THAT(Validate(DeploymentWith("", "0x10")), IsEmpty());
  EXPECT_THAT(Validate(DeploymentWith("", "1_0")), IsEmpty());
  EXPECT_THAT(Validate(DeploymentWith("", "8.0")), IsEmpty());
  EXPECT_THAT(Validate(DeploymentWith("", "1.5")),
              ElementsAre("spec.replicas: expected integer, got number 1.5"));
  EXPECT_THAT(Validate(DeploymentWith("", "true")),
              ElementsAre("spec.replicas: expected integer, got boolean true"));
  EXPECT_THAT(
      Validate(DeploymentWith("", "3000000000")),
      ElementsAre("spec.replicas: integer 3000000000 out of range for int32"));
}

TEST_F(OpenApiValidatorTest, ContainerWithoutNameMissesRequiredField) {
  EXPECT_THAT(Validate(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - image: busybox
)"),
              ElementsAre("spec.containers[0].name: missing required field"));
  // A null value leaves the field unset.
  EXPECT_THAT(Validate(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - image: busybox
    name: ~
)"),
              ElementsAre("spec.containers[0].name: missing required field"));
}

TEST_F(OpenApiValidatorTest, PlainYaml11ScalarsAreNotStrings) {
  for (const char* value : {"on", "yes", "Off", "y", "123", "1.5", "0o17"}) {
    SCOPED_TRACE(value);
    const std::vector<std::string> errors = Validate(std::string(R"(
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  labels:
    enabled: )") + value + "\n");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_THAT(errors[0],
                HasSubstr("metadata.labels.enabled: expected string, got "));
  }
  for (const char* value :
       {"\"on\"", "'yes'", "\"123\"", "enabled", "1.2.3", "2024-01-01", "v1"}) {
    SCOPED_TRACE(value);
    EXPECT_THAT(Validate(std::string(R"(
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  labels:
    enabled: )") + value +
                         "\n"),
                IsEmpty());
  }
}

TEST_F(OpenApiValidatorTest, UnknownKindOrApiVersionHasNoSchema) {
  EXPECT_THAT(Validate("apiVersion: apps/v1\nkind: Deploymnt\n"),
              ElementsAre("no schema for apiVersion apps/v1, kind Deploymnt"));
  EXPECT_THAT(
      Validate("apiVersion: apps/v1beta1\nkind: Deployment\n"),
      ElementsAre("no schema for apiVersion apps/v1beta1, kind Deployment"));
  // Deployments are not in the core group.
  EXPECT_THAT(Validate("apiVersion: v1\nkind: Deployment\n"),
              ElementsAre("no schema for apiVersion v1, kind Deployment"));
  EXPECT_THAT(Validate("kind: Pod\n"),
              ElementsAre("apiVersion: missing required field"));
}

TEST_F(OpenApiValidatorTest, MapWhereListIsExpected) {
  EXPECT_THAT(Validate(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    name: c
    image: busybox
)"),
              ElementsAre("spec.containers: expected array, got object"));
  EXPECT_THAT(Validate(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    args: --v=2
)"),
              ElementsAre("spec.containers[0].args: expected array, got "
                          "string \"--v=2\""));
}

TEST_F(OpenApiValidatorTest, QuantitiesAndIntOrStrings) {
  EXPECT_THAT(Validate(DeploymentWith(R"(
        resources:
          limits: {memory: 128MB, cpu: true}
          requests: {cpu: "250m", memory: 1e9}
        readinessProbe:
          httpGet: {port: 1.5}
)")),
              ElementsAre("spec.template.spec.containers[0].resources.limits."
                          "memory: invalid quantity \"128MB\"",
                          "spec.template.spec.containers[0].resources.limits."
                          "cpu: expected quantity (string or number), got "
                          "boolean true",
                          "spec.template.spec.containers[0].readinessProbe."
                          "httpGet.port: expected integer or string, got "
                          "number 1.5"));
}

TEST_F(OpenApiValidatorTest, DuplicateFieldsAreRejected) {
  EXPECT_THAT(Validate(DeploymentWith(R"(
        image: other
)")),
              ElementsAre("spec.template.spec.containers[0].image: duplicate "
                          "field"));
}

TEST_F(OpenApiValidatorTest, StringMapValuesAndBase64) {
  EXPECT_THAT(Validate(R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data:
  leaderElect: true
)"),
              ElementsAre("data.leaderElect: expected string, got boolean "
                          "true"));
  EXPECT_THAT(Validate(R"(
apiVersion: v1
kind: Secret
metadata: {name: s}
data:
  good: aGVsbG8=
  bad: hello!
)"),
              ElementsAre("data.bad: invalid base64 data"));
}

TEST_F(OpenApiValidatorTest, NonObjectDocumentIsRejected) {
  EXPECT_THAT(Validate("- a\n- b\n"),
              ElementsAre("expected an object at the top level, got array"));
}

TEST_F(OpenApiValidatorTest, SchemaIsMovable) {
  util::Result<OpenApiSchema> loaded =
      OpenApiSchema::LoadGzip(KSCHED_OPENAPI_V2_GZ);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  util::Result<OpenApiSchema> other =
      OpenApiSchema::LoadGzip(KSCHED_OPENAPI_V2_GZ);
  ASSERT_TRUE(other.ok()) << other.error().message();
  OpenApiSchema constructed = std::move(loaded).value();
  OpenApiSchema assigned = std::move(other).value();
  assigned = std::move(constructed);
  EXPECT_THAT(assigned.Validate(YAML::Load(DeploymentWith("", "\"2\""))),
              ElementsAre("spec.replicas: expected integer, got string \"2\""));
}

}  // namespace
}  // namespace ksched::testing::deploy
