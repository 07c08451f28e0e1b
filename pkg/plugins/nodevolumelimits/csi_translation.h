// CSI migration, as far as the scheduler needs it (csi-translation-lib):
// which in-tree volume plugins a CSI driver took over, and the CSI volume
// handle an in-tree PV or inline volume becomes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/pod.h"
#include "pkg/api/storage.h"
#include "pkg/util/result.h"

namespace ksched::plugins::csitranslation {

inline constexpr std::string_view kAwsEbsPlugin = "kubernetes.io/aws-ebs";
inline constexpr std::string_view kGcePdPlugin = "kubernetes.io/gce-pd";
inline constexpr std::string_view kCinderPlugin = "kubernetes.io/cinder";
inline constexpr std::string_view kAzureDiskPlugin = "kubernetes.io/azure-disk";
inline constexpr std::string_view kAzureFilePlugin = "kubernetes.io/azure-file";
inline constexpr std::string_view kVspherePlugin =
    "kubernetes.io/vsphere-volume";
inline constexpr std::string_view kPortworxPlugin =
    "kubernetes.io/portworx-volume";

// The in-tree plugin of an inline volume / a PV's source, when a CSI
// driver took it over (IsInlineMigratable / IsPVMigratable).
std::optional<std::string_view> InlinePluginName(const api::Volume& volume);
std::optional<std::string_view> PvPluginName(const api::PersistentVolume& pv);

// Whether `name` is an in-tree plugin a CSI driver took over, and which
// driver (IsMigratableIntreePluginByName / GetCSINameFromInTreeName).
std::optional<std::string_view> CsiDriverOf(std::string_view plugin);

// Whether the node runs `plugin`'s volumes through its CSI driver: in
// v1.32 migration is complete for these plugins, so a node that has a
// CSINode at all does (isCSIMigrationOn).
bool IsCsiMigrationOn(const api::CsiNode* csi_node, std::string_view plugin);

// The CSI volume handle the volume becomes (TranslateInTreePVToCSI /
// TranslateInTreeInlineVolumeToCSI).
util::Result<std::string> PvHandle(const api::PersistentVolume& pv);
util::Result<std::string> InlineHandle(const api::Volume& volume);

}  // namespace ksched::plugins::csitranslation
