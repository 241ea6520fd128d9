package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;
import static sh.karpenter.core.scheduling.SchedulingHarness.req;
import static sh.karpenter.core.scheduling.SchedulingHarness.reqs;
import static sh.karpenter.core.scheduling.SchedulingHarness.resources;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.volume.PersistentVolume;
import sh.karpenter.core.volume.PersistentVolumeClaim;
import sh.karpenter.core.volume.StorageClass;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Cordoned nodes (kube-scheduler's NodeUnschedulable filter, seen as the {@code
 * node.kubernetes.io/unschedulable:NoSchedule} taint) and the reasons a person can act on: the
 * cordon, a volume's zone the NodePool does not offer, a host port a DaemonSet already binds.
 */
class UnschedulableReasonsTest {
  private static final Taint CORDON = Taint.of(TaintKeys.NODE_UNSCHEDULABLE, Taint.Effect.NoSchedule);
  private SchedulingHarness env;

  @BeforeEach
  void setUp() {
    env = new SchedulingHarness();
  }

  private static ExistingNode node(String name, String zone, List<Pod> pods, Taint... taints) {
    return new ExistingNode(
        name,
        Map.of(Labels.HOSTNAME, name, Labels.ZONE, zone, Labels.ARCH, "amd64", Labels.OS, "linux"),
        List.of(taints), resources("cpu", "16", "memory", "64Gi", "pods", "110"), pods, true, null);
  }

  /** NodePool {@code default} in test-zone-1 and test-zone-2 only. */
  private void twoZonePool() {
    env.nodePool(new SchedulingHarness.NodePool("default").require(req(Labels.ZONE, Operator.In, "test-zone-1", "test-zone-2")));
  }

  @Test
  @DisplayName("a cordoned node takes only pods that tolerate node.kubernetes.io/unschedulable:NoSchedule")
  void cordonedNodeTakesOnlyTolerantPods() {
    env.defaultNodePool();
    env.node(node("cordoned", "test-zone-1", List.of(), CORDON));
    Pod plain = pod("1").build();
    Pod tolerant = pod("1").toleration(Toleration.exists(TaintKeys.NODE_UNSCHEDULABLE, Taint.Effect.NoSchedule)).build();

    env.provision(plain, tolerant);

    assertThat(env.existingNodeOf(plain)).isNull();
    env.expectScheduled(plain);
    assertThat(env.existingNodeOf(tolerant)).isEqualTo("cordoned");
  }

  @Test
  @DisplayName("the reason names a cordoned node the pod would otherwise fit, and only such a node")
  void reasonNamesTheCordonWhenItIsWhyAnExistingNodeWasNotUsed() {
    env.node(node("cordoned", "test-zone-1", List.of(), CORDON));
    env.node(node("cordoned-arm", "test-zone-1", List.of(), CORDON));
    Pod fits = pod("1").build();
    Pod tooBig = pod("64").build();

    env.provision(fits, tooBig);

    assertThat(env.expectNotScheduled(fits))
        .isEqualTo("existing nodes \"cordoned\", \"cordoned-arm\" would fit the pod but are cordoned (spec.unschedulable); "
            + "no existing node fits and no NodePool can launch nodes");
    assertThat(env.expectNotScheduled(tooBig)).isEqualTo("no existing node fits and no NodePool can launch nodes");
  }

  @Test
  @DisplayName("a bound volume in a zone the NodePool does not offer is named with its zone and the NodePool's zones")
  void boundVolumeInAZoneTheNodePoolDoesNotOffer() {
    twoZonePool();
    env.volumes =
        new VolumeTopology(
            List.of(new PersistentVolume("pv-data", List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-3"))), false, "ebs.csi.aws.com")),
            List.of(new PersistentVolumeClaim("db", "data", null, "pv-data")),
            List.of());
    Pod pod = pod("1").namespace("db").persistentVolumeClaim("data").build();

    env.provision(pod);

    assertThat(env.expectNotScheduled(pod))
        .isEqualTo("incompatible with nodepool \"default\": volume pvc \"db/data\" is in zone test-zone-3, which nodepool \"default\" "
            + "does not offer (zones: test-zone-1, test-zone-2)");
  }

  @Test
  @DisplayName("a storage class whose allowed topologies miss the NodePool's zones is named")
  void storageClassZonesTheNodePoolDoesNotOffer() {
    twoZonePool();
    env.volumes =
        new VolumeTopology(
            List.of(),
            List.of(new PersistentVolumeClaim("default", "scratch", "zonal", null)),
            List.of(new StorageClass("zonal", "ebs.csi.aws.com", StorageClass.VolumeBindingMode.WaitForFirstConsumer,
                List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-3"))))));
    Pod pod = pod("1").persistentVolumeClaim("scratch").build();

    env.provision(pod);

    assertThat(env.expectNotScheduled(pod))
        .isEqualTo("incompatible with nodepool \"default\": volume pvc \"default/scratch\" can only be provisioned in zone test-zone-3 "
            + "(storageclass \"zonal\" allowedTopologies), which nodepool \"default\" does not offer (zones: test-zone-1, test-zone-2)");
  }

  @Test
  @DisplayName("a volume in an offered zone leaves the reason to what really refuses the pod")
  void volumeInAnOfferedZoneIsNotBlamed() {
    twoZonePool();
    env.volumes =
        new VolumeTopology(
            List.of(new PersistentVolume("pv-data", List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-1"))), false, "ebs.csi.aws.com")),
            List.of(new PersistentVolumeClaim("default", "data", null, "pv-data")),
            List.of());
    Pod pod = pod("10000").persistentVolumeClaim("data").build();

    env.provision(pod);

    assertThat(env.expectNotScheduled(pod)).startsWith("incompatible with nodepool \"default\": no instance type has room for requests").doesNotContain("volume");
  }

  @Test
  @DisplayName("a host port a DaemonSet on every node binds leads the reason")
  void daemonSetHostPortConflictLeadsTheReason() {
    env.defaultNodePool();
    env.daemonSet(pod("100m").namespace("kube-system").owner("DaemonSet", "proxy").hostPort(new HostPort(null, 8080, "TCP")).build());
    Pod pod = pod("1").hostPort(new HostPort(null, 8080, "TCP")).build();
    Pod otherPort = pod("1").hostPort(new HostPort(null, 8081, "TCP")).build();

    env.provision(pod, otherPort);

    assertThat(env.expectNotScheduled(pod))
        .isEqualTo("incompatible with nodepool \"default\": host port 8080/TCP is already used by daemonset \"kube-system/proxy\", "
            + "whose pod runs on every node this nodepool would launch for the pod");
    env.expectScheduled(otherPort);
  }

  @Test
  @DisplayName("a host port conflict with a DaemonSet that runs only on some types does not hide the real reason")
  void daemonSetOnSomeTypesDoesNotTakeTheBlame() {
    env.defaultNodePool();
    env.daemonSet(pod("100m").owner("DaemonSet", "arm-proxy").nodeSelector(Map.of(Labels.ARCH, "arm64")).hostPort(new HostPort(null, 8080, "TCP")).build());
    Pod pod = pod("10000").hostPort(new HostPort(null, 8080, "TCP")).build();

    env.provision(pod);

    assertThat(env.expectNotScheduled(pod)).contains("no instance type has room for requests").doesNotContain("already used");
  }
}
