// Reading a kubeconfig as kubectl does, and the in-cluster configuration.
//
// Which files: an explicit path (--kubeconfig) alone, and it must exist;
// else every file of $KUBECONFIG (':'-separated, missing ones skipped),
// merged; else ~/.kube/config. Merging follows clientcmd: for the current
// context and for each named cluster, user and context, the first file that
// sets it wins. Relative file paths in a file are relative to that file's
// directory. Credentials are read (files loaded, *-data decoded) once here,
// except the token file, which the client re-reads.
#pragma once

#include <string>

#include "pkg/client/rest_config.h"
#include "pkg/util/result.h"

namespace ksched::client {

struct KubeconfigSources {
  std::string explicit_path;   // --kubeconfig
  std::string context;         // --context; empty: current-context
  std::string kubeconfig_env;  // $KUBECONFIG
  std::string home;            // $HOME, for ~/.kube/config
};

util::Result<RestConfig> LoadKubeconfig(const KubeconfigSources& sources);

// Parses one kubeconfig document (for tests and for callers that hold the
// text); relative paths resolve against `dir`.
util::Result<RestConfig> ParseKubeconfig(const std::string& text,
                                         const std::string& dir,
                                         const std::string& context);

struct InClusterSources {
  std::string service_host;  // $KUBERNETES_SERVICE_HOST
  std::string service_port;  // $KUBERNETES_SERVICE_PORT
  // Where the service account is mounted.
  std::string account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// rest.InClusterConfig: the API server's service address, the mounted
// token (as a token file, so rotations are followed), CA and namespace.
util::Result<RestConfig> InClusterConfig(const InClusterSources& sources);

}  // namespace ksched::client
