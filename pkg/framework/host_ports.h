// HostPortInfo: host ports in use on a node, keyed by (ip, protocol, port),
// with 0.0.0.0 conflicting with every address (framework.HostPortInfo).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/pod.h"

namespace ksched::framework {

inline constexpr std::string_view kDefaultBindAllHostIp = "0.0.0.0";

class HostPortInfo {
 public:
  void Add(std::string_view ip, std::string_view protocol, int32_t port);
  void Remove(std::string_view ip, std::string_view protocol, int32_t port);
  bool CheckConflict(std::string_view ip, std::string_view protocol,
                     int32_t port) const;
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    std::string ip;
    std::string protocol;
    int32_t port;
  };
  std::vector<Entry> entries_;
};

// The host ports a pod holds on its node (ports with hostPort > 0): its
// sidecars' first, then its containers', as kube's GetHostPorts lists them.
std::vector<const api::ContainerPort*> HostPortsOf(const api::Pod& pod);

}  // namespace ksched::framework
