package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static sh.karpenter.controller.snapshot.TestManifests.ORIGIN;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.snapshot.VolumeConverter.Sourced;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.volume.StorageClass.VolumeBindingMode;
import sh.karpenter.core.volume.VolumeTopology;

class VolumeConverterTest {
  private static final String STANDARD = """
      apiVersion: storage.k8s.io/v1
      kind: StorageClass
      metadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
      provisioner: ebs.csi.aws.com
      volumeBindingMode: WaitForFirstConsumer
      allowedTopologies:
        - matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [zone-a, zone-b]}]
      """;
  private static final String FAST = """
      apiVersion: storage.k8s.io/v1
      kind: StorageClass
      metadata: {name: fast}
      provisioner: ebs.csi.aws.com
      """;

  private static <T> List<Sourced<T>> sourced(Class<T> type, String... yamls) {
    return java.util.Arrays.stream(yamls).map(yaml -> new Sourced<>(TestManifests.yaml(type, yaml), ORIGIN)).toList();
  }

  private static String claim(String name, String spec) {
    return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " + name + ", namespace: team}\nspec: " + spec + "\n";
  }

  private static VolumeTopology topology(List<String> volumes, List<String> claims) {
    return VolumeConverter.convert(
        sourced(PersistentVolume.class, volumes.toArray(String[]::new)),
        sourced(PersistentVolumeClaim.class, claims.toArray(String[]::new)),
        sourced(StorageClass.class, STANDARD, FAST));
  }

  private static Pod podWith(String claim) {
    return Pod.builder().namespace("team").name("p").persistentVolumeClaim(claim).build();
  }

  @Test
  void aClaimWithoutAClassGetsTheDefaultClass() {
    VolumeTopology topology = topology(List.of(), List.of(claim("unnamed", "{}"), claim("named", "{storageClassName: fast}")));

    assertThat(topology.claim("team", "unnamed").storageClassName()).isEqualTo("standard");
    assertThat(topology.claim("team", "named").storageClassName()).isEqualTo("fast");
  }

  @Test
  void waitForFirstConsumerClassesConstrainUnboundClaimsToTheirTopologies() {
    VolumeTopology topology = topology(List.of(), List.of(claim("data", "{}")));

    assertThat(topology.storageClass("standard").volumeBindingMode()).isEqualTo(VolumeBindingMode.WaitForFirstConsumer);
    assertThat(topology.storageClass("fast").volumeBindingMode()).as("Kubernetes' default").isEqualTo(VolumeBindingMode.Immediate);
    assertThat(topology.requirementsFor(podWith("data"))).extracting(Object::toString)
        .containsExactly("topology.kubernetes.io/zone In [zone-a zone-b]");
  }

  @Test
  void aBoundClaimFollowsItsVolumesNodeAffinity() {
    String volume = """
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: pv-1}
        spec:
          csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
          nodeAffinity:
            required:
              nodeSelectorTerms:
                - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [zone-c]}]
        """;

    VolumeTopology topology = topology(List.of(volume), List.of(claim("data", "{volumeName: pv-1}")));

    assertThat(topology.volume("pv-1").csiDriver()).isEqualTo("ebs.csi.aws.com");
    assertThat(topology.volume("pv-1").localOrHostPath()).isFalse();
    assertThat(topology.requirementsFor(podWith("data"))).extracting(Object::toString)
        .containsExactly("topology.kubernetes.io/zone In [zone-c]");
  }

  @Test
  void aLocalVolumeIsMarkedSoItsHostnameCanBeDropped() {
    String volume = """
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: local-1}
        spec:
          local: {path: /mnt/disk}
          nodeAffinity:
            required:
              nodeSelectorTerms:
                - matchExpressions:
                    - {key: kubernetes.io/hostname, operator: In, values: [node-1]}
                    - {key: topology.kubernetes.io/zone, operator: In, values: [zone-a]}
        """;

    VolumeTopology topology = topology(List.of(volume), List.of(claim("data", "{volumeName: local-1}")));

    assertThat(topology.volume("local-1").localOrHostPath()).isTrue();
    assertThat(topology.requirementsFor(podWith("data"))).extracting(Object::toString)
        .containsExactly("topology.kubernetes.io/zone In [zone-a]");
  }

  @Test
  void anUnknownBindingModeIsNamed() {
    assertThatThrownBy(() -> VolumeConverter.convert(List.of(), List.of(), sourced(StorageClass.class, FAST + "volumeBindingMode: Lazy\n")))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessage(ORIGIN + ": volumeBindingMode: unknown value \"Lazy\"");
  }
}
