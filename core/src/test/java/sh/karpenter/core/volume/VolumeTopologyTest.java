package sh.karpenter.core.volume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

class VolumeTopologyTest {
  static Requirements zones(String... zones) {
    return Requirements.of(Requirement.in(Labels.ZONE, zones));
  }

  static final VolumeTopology VOLUMES =
      new VolumeTopology(
          List.of(
              new PersistentVolume("pv-zone-1", List.of(zones("zone-1")), false, "ebs.csi.aws.com"),
              new PersistentVolume("pv-two-zones", List.of(zones("zone-1"), zones("zone-2")), false, "ebs.csi.aws.com"),
              new PersistentVolume(
                  "pv-local",
                  List.of(Requirements.of(Requirement.in(Labels.HOSTNAME, "node-a"), Requirement.in(Labels.ZONE, "zone-3"))),
                  true,
                  null),
              new PersistentVolume("pv-anywhere", List.of(), false, "efs.csi.aws.com")),
          List.of(
              new PersistentVolumeClaim("default", "bound-zone-1", "gp3", "pv-zone-1"),
              new PersistentVolumeClaim("default", "bound-two-zones", "gp3", "pv-two-zones"),
              new PersistentVolumeClaim("default", "bound-local", "local", "pv-local"),
              new PersistentVolumeClaim("default", "bound-anywhere", "efs", "pv-anywhere"),
              new PersistentVolumeClaim("default", "unbound-gp3", "gp3", null),
              new PersistentVolumeClaim("default", "unbound-no-class", null, null),
              new PersistentVolumeClaim("default", "unbound-missing-class", "missing", null),
              new PersistentVolumeClaim("default", "bound-missing-volume", "gp3", "pv-gone")),
          List.of(
              new StorageClass(
                  "gp3", "ebs.csi.aws.com", StorageClass.VolumeBindingMode.WaitForFirstConsumer, List.of(zones("zone-2"), zones("zone-3"))),
              new StorageClass("efs", "efs.csi.aws.com", null, List.of())));

  static Pod pod(String... claims) {
    return Pod.builder().namespace("default").name("p").persistentVolumeClaims(List.of(claims)).build();
  }

  @Test
  void podWithoutVolumesIsUnconstrained() {
    assertThat(VOLUMES.requirementsFor(pod())).containsExactly(Requirements.EMPTY);
    assertThat(VOLUMES.requirementsFor(pod("bound-anywhere", "unbound-no-class"))).containsExactly(Requirements.EMPTY);
  }

  @Test
  void boundClaimUsesTheVolumesTermsAsAlternatives() {
    assertThat(VOLUMES.requirementsFor(pod("bound-zone-1"))).containsExactly(zones("zone-1"));
    assertThat(VOLUMES.requirementsFor(pod("bound-two-zones"))).containsExactly(zones("zone-1"), zones("zone-2"));
  }

  @Test
  void localVolumesDropTheHostname() {
    assertThat(VOLUMES.requirementsFor(pod("bound-local"))).containsExactly(zones("zone-3"));
  }

  @Test
  void unboundClaimUsesTheStorageClassTopologies() {
    assertThat(VOLUMES.requirementsFor(pod("unbound-gp3"))).containsExactly(zones("zone-2"), zones("zone-3"));
  }

  @Test
  void alternativesCombineAcrossVolumesKeepingCompatibleOnes() {
    assertThat(VOLUMES.requirementsFor(pod("bound-two-zones", "unbound-gp3"))).containsExactly(zones("zone-2"));
    assertThat(VOLUMES.requirementsFor(pod("bound-zone-1", "unbound-gp3"))).isEmpty();
  }

  @Test
  void validateNamesWhatIsMissing() {
    assertThat(VOLUMES.validate(pod("bound-zone-1", "unbound-gp3", "unbound-no-class"))).isNull();
    assertThat(VOLUMES.validate(pod("nope"))).isEqualTo("persistentvolumeclaim \"nope\" not found in namespace default");
    assertThat(VOLUMES.validate(pod("unbound-missing-class"))).isEqualTo("storageclass \"missing\" of claim \"unbound-missing-class\" not found");
    assertThat(VOLUMES.validate(pod("bound-missing-volume"))).isEqualTo("persistentvolume \"pv-gone\" of claim \"bound-missing-volume\" not found");
  }

  @Test
  void csiVolumesAreCountedPerDriver() {
    assertThat(VOLUMES.csiVolumeCounts(pod("bound-zone-1", "unbound-gp3", "bound-anywhere", "bound-local")))
        .isEqualTo(Map.of("ebs.csi.aws.com", 2, "efs.csi.aws.com", 1));
  }

  @Test
  void csiVolumesNameTheClaimsPerDriver() {
    assertThat(VOLUMES.csiVolumes(pod("bound-zone-1", "unbound-gp3", "bound-anywhere", "bound-local", "unbound-no-class", "nope")))
        .isEqualTo(
            Map.of(
                "ebs.csi.aws.com", Set.of("default/bound-zone-1", "default/unbound-gp3"),
                "efs.csi.aws.com", Set.of("default/bound-anywhere")));
    assertThat(VOLUMES.csiVolumes(pod())).isEmpty();
  }

  @Test
  void zoneConstraintsNameEachClaimThatAllowsOnlySomeZones() {
    assertThat(VOLUMES.zoneConstraints(pod("bound-zone-1", "bound-two-zones", "bound-local", "unbound-gp3", "bound-anywhere", "unbound-no-class", "absent")))
        .containsExactly(
            new VolumeTopology.ZoneConstraint("default/bound-zone-1", "persistentvolume \"pv-zone-1\"", true, new java.util.TreeSet<>(Set.of("zone-1"))),
            new VolumeTopology.ZoneConstraint("default/bound-two-zones", "persistentvolume \"pv-two-zones\"", true, new java.util.TreeSet<>(Set.of("zone-1", "zone-2"))),
            new VolumeTopology.ZoneConstraint("default/bound-local", "persistentvolume \"pv-local\"", true, new java.util.TreeSet<>(Set.of("zone-3"))),
            new VolumeTopology.ZoneConstraint("default/unbound-gp3", "storageclass \"gp3\"", false, new java.util.TreeSet<>(Set.of("zone-2", "zone-3"))));
  }
}
