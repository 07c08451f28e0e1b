#include "pkg/plugins/nodevolumelimits/csi_translation.h"

#include <array>
#include <set>
#include <utility>
#include <vector>

namespace ksched::plugins::csitranslation {
namespace {

constexpr std::string_view kMigratedPluginsAnnotation =
    "storage.alpha.kubernetes.io/migrated-plugins";
constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kUnspecified = "UNSPECIFIED";

struct Migration {
  std::string_view plugin;
  std::string_view driver;
};
constexpr std::array<Migration, 7> kMigrations = {{
    {kGcePdPlugin, "pd.csi.storage.gke.io"},
    {kAwsEbsPlugin, "ebs.csi.aws.com"},
    {kCinderPlugin, "cinder.csi.openstack.org"},
    {kAzureDiskPlugin, "disk.csi.azure.com"},
    {kAzureFilePlugin, "file.csi.azure.com"},
    {kVspherePlugin, "csi.vsphere.vmware.com"},
    {kPortworxPlugin, "pxd.portworx.com"},
}};

// The plugin whose source the volume (or PV spec) carries. RBD's migration
// went with its in-tree plugin in v1.31, so it has none.
std::optional<std::string_view> PluginOf(const api::InTreeVolumeSources& s) {
  if (s.gce_persistent_disk) return kGcePdPlugin;
  if (s.aws_elastic_block_store) return kAwsEbsPlugin;
  if (s.cinder) return kCinderPlugin;
  if (s.azure_disk) return kAzureDiskPlugin;
  if (s.azure_file) return kAzureFilePlugin;
  if (s.vsphere_volume) return kVspherePlugin;
  if (s.portworx_volume) return kPortworxPlugin;
  return std::nullopt;
}

std::vector<std::string> Split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  while (true) {
    const size_t cut = s.find(sep);
    out.emplace_back(s.substr(0, cut));
    if (cut == std::string_view::npos) return out;
    s.remove_prefix(cut + sep.size());
  }
}

// "us-central1-a" -> "us-central1": all zones must be of one region.
util::Result<std::string> RegionFromZones(
    const std::vector<std::string>& zones) {
  std::set<std::string> regions;
  for (const std::string& zone : zones) {
    std::vector<std::string> parts = Split(zone, "-");
    if (parts.size() != 3) {
      return util::Error(
          "zone in unexpected format, expected: {locale}-{region}-{zone}, "
          "got: " +
          zone);
    }
    regions.insert(parts[0] + "-" + parts[1]);
  }
  if (regions.size() != 1) {
    std::string list;
    for (const std::string& r : regions) list += (list.empty() ? "" : " ") + r;
    return util::Error("multiple or no regions gotten from zones, got: [" +
                       list + "]");
  }
  return *regions.begin();
}

// Leaves bare IDs alone; "aws://<zone>/vol-..." becomes "vol-...".
util::Result<std::string> EbsVolumeId(const std::string& id) {
  constexpr std::string_view kScheme = "aws://";
  if (!id.starts_with(kScheme)) return id;
  std::string_view rest = std::string_view(id).substr(kScheme.size());
  const size_t slash = rest.find('/');
  std::string_view path =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (!path.starts_with("vol-") || path.find('/') != std::string_view::npos) {
    return util::Error(
        "failed to translate Kubernetes ID to EBS Volume ID "
        "Invalid format for AWS volume (" +
        id + ")");
  }
  return std::string(path);
}

util::Result<std::string> AzureDiskHandle(const api::AzureDiskVolumeSource& s) {
  // Only managed disks migrated; the API defaults an unset kind to Shared.
  if (s.kind && *s.kind != "Managed" && *s.kind != "managed") {
    return util::Error("kind(" + *s.kind +
                       ") is not supported in csi migration");
  }
  return s.disk_uri;
}

}  // namespace

std::optional<std::string_view> InlinePluginName(const api::Volume& volume) {
  return PluginOf(volume.in_tree);
}

std::optional<std::string_view> PvPluginName(const api::PersistentVolume& pv) {
  return PluginOf(pv.spec.in_tree);
}

std::optional<std::string_view> CsiDriverOf(std::string_view plugin) {
  for (const Migration& m : kMigrations) {
    if (m.plugin == plugin) return m.driver;
  }
  return std::nullopt;
}

bool IsCsiMigrationOn(const api::CsiNode* csi_node, std::string_view plugin) {
  if (csi_node == nullptr || plugin.empty()) return false;
  if (plugin == kAwsEbsPlugin || plugin == kGcePdPlugin ||
      plugin == kAzureDiskPlugin || plugin == kCinderPlugin) {
    return true;  // migration is GA: no gate, no annotation
  }
  if (plugin == kPortworxPlugin) {
    // Its gate is on; the node's CSI driver must say it took the plugin over.
    const std::string* migrated =
        csi_node->metadata.annotations.Find(kMigratedPluginsAnnotation);
    if (migrated == nullptr) return false;
    for (const std::string& name : Split(*migrated, ",")) {
      if (name == plugin) return true;
    }
    return false;
  }
  // Azure File and vSphere volumes are not attached: never counted.
  return false;
}

util::Result<std::string> PvHandle(const api::PersistentVolume& pv) {
  const api::InTreeVolumeSources& s = pv.spec.in_tree;
  if (s.gce_persistent_disk) {
    const std::string& pd = s.gce_persistent_disk->pd_name;
    const std::string* label = pv.metadata.labels.Find(kBetaZone);
    if (label == nullptr || label->empty()) {
      label = pv.metadata.labels.Find(kZone);
    }
    const std::vector<std::string> zones =
        Split(label == nullptr ? std::string_view() : *label, "__");
    if (zones.size() == 1 && !zones[0].empty()) {
      return "projects/UNSPECIFIED/zones/" + zones[0] + "/disks/" + pd;
    }
    if (zones.size() > 1) {
      util::Result<std::string> region = RegionFromZones(zones);
      if (!region.ok()) {
        return util::Error("failed to get region from zones: " +
                           region.error().message());
      }
      return "projects/UNSPECIFIED/regions/" + *region + "/disks/" + pd;
    }
    return "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/" + pd;
  }
  if (s.aws_elastic_block_store) {
    return EbsVolumeId(s.aws_elastic_block_store->volume_id);
  }
  if (s.cinder) return s.cinder->volume_id;
  if (s.azure_disk) return AzureDiskHandle(*s.azure_disk);
  if (s.vsphere_volume) return s.vsphere_volume->volume_path;
  if (s.portworx_volume) return s.portworx_volume->volume_id;
  if (s.azure_file) {
    return "#" + s.azure_file->secret_name + "#" + s.azure_file->share_name;
  }
  return util::Error("could not find in-tree plugin translation logic for " +
                     pv.metadata.name);
}

util::Result<std::string> InlineHandle(const api::Volume& volume) {
  const api::InTreeVolumeSources& s = volume.in_tree;
  if (s.gce_persistent_disk) {
    // An inline disk names no zone.
    return std::string("projects/") + std::string(kUnspecified) + "/zones/" +
           std::string(kUnspecified) + "/disks/" +
           s.gce_persistent_disk->pd_name;
  }
  if (s.aws_elastic_block_store) {
    return EbsVolumeId(s.aws_elastic_block_store->volume_id);
  }
  if (s.cinder) return s.cinder->volume_id;
  if (s.azure_disk) return AzureDiskHandle(*s.azure_disk);
  if (s.vsphere_volume) return s.vsphere_volume->volume_path;
  if (s.portworx_volume) return s.portworx_volume->volume_id;
  if (s.azure_file) {
    return "#" + s.azure_file->secret_name + "#" + s.azure_file->share_name;
  }
  return util::Error("could not find in-tree plugin translation logic for " +
                     volume.name);
}

}  // namespace ksched::plugins::csitranslation
