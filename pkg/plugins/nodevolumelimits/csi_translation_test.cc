#include "pkg/plugins/nodevolumelimits/csi_translation.h"

#include <gtest/gtest.h>

namespace ksched::plugins::csitranslation {
namespace {

api::PersistentVolume GcePv(std::string zone_label) {
  api::PersistentVolume pv;
  pv.metadata.name = "pv";
  if (!zone_label.empty()) {
    pv.metadata.labels.Set("topology.kubernetes.io/zone", zone_label);
  }
  pv.spec.in_tree.gce_persistent_disk =
      api::GcePersistentDiskVolumeSource{.pd_name = "pd-name"};
  return pv;
}

// Handles as csi-translation-lib's tests expect them.
TEST(CsiTranslationTest, GcePdHandles) {
  EXPECT_EQ(*PvHandle(GcePv("us-east1-a")),
            "projects/UNSPECIFIED/zones/us-east1-a/disks/pd-name");
  EXPECT_EQ(*PvHandle(GcePv("us-central1-a__us-central1-c")),
            "projects/UNSPECIFIED/regions/us-central1/disks/pd-name");
  EXPECT_EQ(*PvHandle(GcePv("")),
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd-name");
  auto bad = PvHandle(GcePv("us-central1-a__europe-west1-b"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "failed to get region from zones: multiple or no regions gotten "
            "from zones, got: [europe-west1 us-central1]");
  api::Volume inline_pd;
  inline_pd.in_tree.gce_persistent_disk =
      api::GcePersistentDiskVolumeSource{.pd_name = "pd-name"};
  EXPECT_EQ(*InlineHandle(inline_pd),
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd-name");
}

TEST(CsiTranslationTest, EbsVolumeIds) {
  auto handle = [](std::string id) {
    api::Volume v;
    v.in_tree.aws_elastic_block_store =
        api::AwsElasticBlockStoreVolumeSource{.volume_id = std::move(id)};
    return InlineHandle(v);
  };
  EXPECT_EQ(*handle("vol-123"), "vol-123");
  EXPECT_EQ(*handle("aws://us-west-2a/vol-123"), "vol-123");
  EXPECT_EQ(*handle("aws:///vol-123"), "vol-123");
  EXPECT_EQ(*handle("anything-else"), "anything-else");
  EXPECT_FALSE(handle("aws://us-west-2a/02399794d890f9375").ok());
}

TEST(CsiTranslationTest, AzureDiskOnlyManaged) {
  api::Volume v;
  v.in_tree.azure_disk = api::AzureDiskVolumeSource{
      .disk_name = "d", .disk_uri = "/subscriptions/s/disks/d"};
  EXPECT_EQ(*InlineHandle(v), "/subscriptions/s/disks/d");
  v.in_tree.azure_disk->kind = "Managed";
  EXPECT_TRUE(InlineHandle(v).ok());
  v.in_tree.azure_disk->kind = "Shared";
  EXPECT_EQ(InlineHandle(v).error().message(),
            "kind(Shared) is not supported in csi migration");
}

TEST(CsiTranslationTest, WhichPluginsMigrated) {
  EXPECT_EQ(CsiDriverOf("kubernetes.io/aws-ebs"), "ebs.csi.aws.com");
  EXPECT_EQ(CsiDriverOf("kubernetes.io/gce-pd"), "pd.csi.storage.gke.io");
  EXPECT_EQ(CsiDriverOf("kubernetes.io/rbd"), std::nullopt);
  EXPECT_EQ(CsiDriverOf("ebs.csi.aws.com"), std::nullopt);
  api::Volume rbd;
  rbd.in_tree.rbd = api::RbdVolumeSource{.monitors = {"a"}};
  EXPECT_EQ(InlinePluginName(rbd), std::nullopt);

  api::CsiNode node;
  EXPECT_FALSE(IsCsiMigrationOn(nullptr, kAwsEbsPlugin));
  EXPECT_TRUE(IsCsiMigrationOn(&node, kAwsEbsPlugin));
  EXPECT_TRUE(IsCsiMigrationOn(&node, kCinderPlugin));
  EXPECT_FALSE(IsCsiMigrationOn(&node, kAzureFilePlugin));
  EXPECT_FALSE(IsCsiMigrationOn(&node, kVspherePlugin));
  EXPECT_FALSE(IsCsiMigrationOn(&node, kPortworxPlugin));
  node.metadata.annotations.Set(
      "storage.alpha.kubernetes.io/migrated-plugins",
      "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume");
  EXPECT_TRUE(IsCsiMigrationOn(&node, kPortworxPlugin));
}

}  // namespace
}  // namespace ksched::plugins::csitranslation
