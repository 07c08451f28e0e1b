#include "pkg/framework/host_ports.h"

#include <algorithm>

namespace ksched::framework {
namespace {

// An empty address binds all addresses; an empty protocol is TCP.
std::string_view Ip(std::string_view ip) {
  return ip.empty() ? kDefaultBindAllHostIp : ip;
}
std::string_view Protocol(std::string_view protocol) {
  return protocol.empty() ? std::string_view("TCP") : protocol;
}

}  // namespace

void HostPortInfo::Add(std::string_view ip, std::string_view protocol,
                       int32_t port) {
  if (port <= 0) return;
  ip = Ip(ip);
  protocol = Protocol(protocol);
  for (const Entry& e : entries_) {
    if (e.port == port && e.ip == ip && e.protocol == protocol) return;
  }
  entries_.push_back({std::string(ip), std::string(protocol), port});
}

void HostPortInfo::Remove(std::string_view ip, std::string_view protocol,
                          int32_t port) {
  if (port <= 0) return;
  ip = Ip(ip);
  protocol = Protocol(protocol);
  std::erase_if(entries_, [&](const Entry& e) {
    return e.port == port && e.ip == ip && e.protocol == protocol;
  });
}

bool HostPortInfo::CheckConflict(std::string_view ip, std::string_view protocol,
                                 int32_t port) const {
  if (port <= 0) return false;
  ip = Ip(ip);
  protocol = Protocol(protocol);
  for (const Entry& e : entries_) {
    if (e.port != port || e.protocol != protocol) continue;
    // 0.0.0.0 on either side overlaps every address.
    if (ip == kDefaultBindAllHostIp || e.ip == kDefaultBindAllHostIp ||
        e.ip == ip) {
      return true;
    }
  }
  return false;
}

std::vector<const api::ContainerPort*> HostPortsOf(const api::Pod& pod) {
  std::vector<const api::ContainerPort*> ports;
  // A sidecar (an init container that restarts Always) keeps its ports for
  // the pod's whole life; other init containers have ended before the app
  // containers start.
  for (const api::Container& c : pod.spec.init_containers) {
    if (c.restart_policy != "Always") continue;
    for (const api::ContainerPort& p : c.ports) {
      if (p.host_port > 0) ports.push_back(&p);
    }
  }
  for (const api::Container& c : pod.spec.containers) {
    for (const api::ContainerPort& p : c.ports) {
      if (p.host_port > 0) ports.push_back(&p);
    }
  }
  return ports;
}

}  // namespace ksched::framework
