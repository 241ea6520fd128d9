package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.label;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;
import static sh.karpenter.core.scheduling.SchedulingHarness.req;
import static sh.karpenter.core.scheduling.SchedulingHarness.reqs;
import static sh.karpenter.core.scheduling.SchedulingHarness.resources;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.volume.PersistentVolume;
import sh.karpenter.core.volume.PersistentVolumeClaim;
import sh.karpenter.core.volume.StorageClass;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.Labels;

/** Ports of upstream's provisioning/scheduling suite_test.go and instance_selection_test.go scenarios. */
class SchedulerTest {
  private SchedulingHarness env;

  @BeforeEach
  void setUp() {
    env = new SchedulingHarness();
  }

  private static ExistingNode node(String name, String zone, Resources allocatable, boolean initialized, List<Pod> pods, Taint... taints) {
    return new ExistingNode(
        name,
        Map.of(Labels.HOSTNAME, name, Labels.ZONE, zone, Labels.NODE_POOL, "default", Labels.INSTANCE_TYPE, "default-instance-type",
            Labels.CAPACITY_TYPE, "on-demand", Labels.ARCH, "amd64", Labels.OS, "linux"),
        List.of(taints), allocatable, pods, initialized, "default");
  }

  // --- node selectors and requirements ---

  @Test
  @DisplayName("should schedule unconstrained pods that don't have matching node selectors")
  void unconstrainedPods() {
    env.defaultNodePool();
    Pod pod = pod("1").build();
    env.provision(pod);
    env.expectScheduled(pod);
  }

  @Test
  @DisplayName("should not schedule nodes with a hostname selector")
  void hostnameSelector() {
    env.defaultNodePool();
    Pod pod = pod("1").nodeSelector(Map.of(Labels.HOSTNAME, "red-node")).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "kubernetes.io/hostname");
  }

  @Test
  @DisplayName("should schedule pods that have matching node selectors on NodePool labels")
  void nodePoolLabelSelector() {
    env.nodePool(new SchedulingHarness.NodePool("default").label("team", "blue"));
    Pod pod = pod("1").nodeSelector(Map.of("team", "blue")).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), "team")).isEqualTo("blue");
  }

  @Test
  @DisplayName("should not schedule pods with a node selector value the NodePool does not have")
  void mismatchedLabelSelector() {
    env.nodePool(new SchedulingHarness.NodePool("default").label("team", "blue"));
    Pod pod = pod("1").nodeSelector(Map.of("team", "red")).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "team");
  }

  @Test
  @DisplayName("should schedule compatible requirements with Operator=Gt")
  void gt() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req(FakeInstanceTypes.LABEL_INTEGER, Operator.Gt, "8"))).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("arm-instance-type");
  }

  @Test
  @DisplayName("should schedule compatible requirements with Operator=Lt")
  void lt() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req(FakeInstanceTypes.LABEL_INTEGER, Operator.Lt, "3"))).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("small-instance-type");
  }

  @Test
  @DisplayName("should schedule compatible requirements with Operator=Gte")
  void gte() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req(FakeInstanceTypes.LABEL_INTEGER, Operator.Gte, "16"))).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("arm-instance-type");
  }

  @Test
  @DisplayName("should schedule compatible requirements with Operator=Lte")
  void lte() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req(FakeInstanceTypes.LABEL_INTEGER, Operator.Lte, "2"))).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("small-instance-type");
  }

  @Test
  @DisplayName("should not schedule incompatible requirements with Operator=Gt")
  void gtIncompatible() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req(FakeInstanceTypes.LABEL_INTEGER, Operator.Gt, "100"))).build();
    env.provision(pod);
    env.expectNotScheduled(pod, FakeInstanceTypes.LABEL_INTEGER);
  }

  @Test
  @DisplayName("should schedule incompatible preferences and requirements with Operator=In")
  void incompatiblePreferenceAndRequirement() {
    env.defaultNodePool();
    Pod pod =
        pod("1")
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-3")))
            .preferredNodeAffinity(1, reqs(req(Labels.ZONE, Operator.In, "test-zone-1")))
            .build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-3");
  }

  @Test
  @DisplayName("should schedule pods that have node selectors with NotIn operator and undefined key")
  void notInUndefinedKey() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req("foo", Operator.NotIn, "bar"))).build();
    env.provision(pod);
    env.expectScheduled(pod);
  }

  @Test
  @DisplayName("should schedule pods that have node selectors with DoesNotExist operator and undefined key")
  void doesNotExistUndefinedKey() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req("foo", Operator.DoesNotExist))).build();
    env.provision(pod);
    env.expectScheduled(pod);
  }

  @Test
  @DisplayName("should not schedule pods that have node selectors with Exists operator and undefined key")
  void existsUndefinedKey() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req("foo", Operator.Exists))).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "foo");
  }

  @Test
  @DisplayName("should schedule pods with Exists operator on a label the NodePool defines")
  void existsDefinedKey() {
    env.nodePool(new SchedulingHarness.NodePool("default").label("foo", "bar"));
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req("foo", Operator.Exists))).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), "foo")).isEqualTo("bar");
  }

  @Test
  @DisplayName("Exists operator should not overwrite the existing value")
  void existsKeepsValue() {
    env.defaultNodePool();
    Pod pod =
        pod("1")
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "non-existent-zone"), req(Labels.ZONE, Operator.Exists)))
            .build();
    env.provision(pod);
    env.expectNotScheduled(pod, Labels.ZONE);
  }

  @Test
  @DisplayName("should schedule the pod to the zone its node selector names")
  void zoneSelector() {
    env.defaultNodePool();
    Pod pod = pod("1").nodeSelector(Map.of(Labels.ZONE, "test-zone-2")).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should normalize deprecated beta labels in node selectors")
  void betaLabels() {
    env.defaultNodePool();
    Pod pod = pod("1").nodeSelector(Map.of("failure-domain.beta.kubernetes.io/zone", "test-zone-3")).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-3");
  }

  @Test
  @DisplayName("should not schedule pods selecting an architecture the NodePool excludes")
  void archExcluded() {
    env.nodePool(new SchedulingHarness.NodePool("default").require(req(Labels.ARCH, Operator.In, "amd64")));
    Pod pod = pod("1").nodeSelector(Map.of(Labels.ARCH, "arm64")).build();
    env.provision(pod);
    String reason = env.expectNotScheduled(pod);
    assertThat(reason).contains("nodepool \"default\"").contains(Labels.ARCH);
  }

  @Test
  @DisplayName("should schedule arm64 pods on arm instance types")
  void armPods() {
    env.defaultNodePool();
    Pod pod = pod("1").nodeSelector(Map.of(Labels.ARCH, "arm64")).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("arm-instance-type");
  }

  // --- node affinity OR terms and preferences ---

  @Test
  @DisplayName("should schedule with the first satisfiable node affinity OR term")
  void orTerms() {
    env.defaultNodePool();
    Pod pod =
        pod("1")
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "invalid")))
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-2")))
            .build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should not relax the final term")
  void notRelaxFinalTerm() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "invalid"))).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "invalid");
  }

  @Test
  @DisplayName("should relax multiple terms")
  void relaxMultipleTerms() {
    env.defaultNodePool();
    Pod pod =
        pod("1")
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "invalid")))
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "invalid-2")))
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-1")))
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-2")))
            .build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-1");
  }

  @Test
  @DisplayName("should relax to use lighter weights")
  void relaxToLighterWeights() {
    env.defaultNodePool();
    Pod pod =
        pod("1")
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-1", "test-zone-2")))
            .preferredNodeAffinity(100, reqs(req(Labels.ZONE, Operator.In, "test-zone-3")))
            .preferredNodeAffinity(50, reqs(req(Labels.ZONE, Operator.In, "test-zone-2")))
            .preferredNodeAffinity(1, reqs(req(Labels.ZONE, Operator.In, "test-zone-1")))
            .build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should schedule to the heaviest satisfiable preference")
  void heaviestPreference() {
    env.defaultNodePool();
    Pod pod =
        pod("1")
            .preferredNodeAffinity(1, reqs(req(Labels.ZONE, Operator.In, "test-zone-1")))
            .preferredNodeAffinity(90, reqs(req(Labels.ZONE, Operator.In, "test-zone-3")))
            .build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-3");
  }

  @Test
  @DisplayName("should ignore preferences under the Ignore preference policy")
  void ignorePreferences() {
    env.defaultNodePool();
    env.options = SchedulerOptions.DEFAULT.withPreferencePolicy(SchedulerOptions.PreferencePolicy.Ignore);
    Pod pod = pod("1").preferredNodeAffinity(100, reqs(req(Labels.ZONE, Operator.In, "test-zone-3"))).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).requirements().has(Labels.ZONE)).isFalse();
  }

  // --- instance selection and bin packing ---

  @Test
  @DisplayName("should launch pods with resources that aren't on any single instance type on different instances")
  void resourcesOnDifferentInstances() {
    env.defaultNodePool();
    Pod a = pod().container(resources(FakeInstanceTypes.RESOURCE_GPU_VENDOR_A, "1")).build();
    Pod b = pod().container(resources(FakeInstanceTypes.RESOURCE_GPU_VENDOR_B, "1")).build();
    env.provision(a, b);
    assertThat(env.expectScheduled(a).cheapestInstanceType().name()).isEqualTo("gpu-vendor-instance-type");
    assertThat(env.expectScheduled(b).cheapestInstanceType().name()).isEqualTo("gpu-vendor-b-instance-type");
  }

  @Test
  @DisplayName("should not schedule pods requesting a resource no instance type has")
  void unknownResource() {
    env.defaultNodePool();
    Pod pod = pod().container(resources("example.com/fpga", "1")).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "example.com/fpga");
  }

  @Test
  @DisplayName("should schedule a small pod on the smallest instance")
  void smallPodSmallestInstance() {
    env.defaultNodePool();
    Pod pod = pod("100m", "100Mi").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("small-instance-type");
  }

  @Test
  @DisplayName("should schedule a big pod on the arm instance when only it fits")
  void bigPod() {
    env.defaultNodePool();
    Pod pod = pod("10", "64Gi").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("arm-instance-type");
  }

  @Test
  @DisplayName("should not schedule a pod bigger than every instance type, naming the resource")
  void tooBig() {
    env.defaultNodePool();
    Pod pod = pod("100", "1Gi").build();
    env.provision(pod);
    String reason = env.expectNotScheduled(pod);
    assertThat(reason).contains("no instance type has room").contains("cpu");
  }

  @Test
  @DisplayName("should pack small and large pods together")
  void packSmallAndLarge() {
    env.defaultNodePool();
    Pod large = pod("3", "1Gi").build();
    List<Pod> pods = new ArrayList<>(List.of(large));
    for (int i = 0; i < 3; i++) {
      pods.add(pod("100m", "100Mi").build());
    }
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(1);
    assertThat(env.expectScheduled(large).pods()).hasSize(4);
  }

  @Test
  @DisplayName("should create new nodes when a node is at capacity due to pod limits per node")
  void podLimitsPerNode() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pods.add(pod("1m", "1Mi").build());
    }
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(2);
    assertThat(env.result.newNodeClaims()).allSatisfy(c -> assertThat(c.pods()).hasSize(5));
  }

  @Test
  @DisplayName("should take into account initContainer resource requests when binpacking")
  void initContainers() {
    env.defaultNodePool();
    Pod pod =
        pod()
            .container(Resources.builder().cpu("1").memory("1Gi").build())
            .initContainer(Resources.builder().cpu("3").memory("1Gi").build())
            .build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("default-instance-type");
  }

  @Test
  @DisplayName("should not schedule a pod whose initContainer exceeds every instance type")
  void initContainersTooBig() {
    env.defaultNodePool();
    Pod pod =
        pod().container(Resources.builder().cpu("1").build()).initContainer(Resources.builder().cpu("100").build()).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "cpu");
  }

  @Test
  @DisplayName("should order instance type options cheapest first and price the claim at the first")
  void cheapestFirst() {
    env.defaultNodePool();
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    List<Double> prices = claim.instanceTypeOptions().stream().map(t -> t.cheapestPrice(claim.requirements())).toList();
    assertThat(prices).isSorted();
    assertThat(claim.cheapestInstanceType()).isSameAs(claim.instanceTypeOptions().get(0));
    assertThat(claim.cheapestOffering().price()).isEqualTo(prices.get(0));
  }

  @Test
  @DisplayName("should schedule on one of the cheapest instances (pod ct = spot, pod zone = test-zone-1)")
  void cheapestSpotZone1() {
    env.defaultNodePool();
    Pod pod = pod("100m").nodeSelector(Map.of(Labels.CAPACITY_TYPE, "spot", Labels.ZONE, "test-zone-1")).build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.cheapestOffering().capacityType()).isEqualTo("spot");
    assertThat(claim.cheapestOffering().zone()).isEqualTo("test-zone-1");
    assertThat(claim.requirements().get(Labels.CAPACITY_TYPE).values()).containsExactly("spot");
  }

  @Test
  @DisplayName("should not schedule when no offering matches (spot in test-zone-3)")
  void noOffering() {
    env.defaultNodePool();
    Pod pod = pod("100m").nodeSelector(Map.of(Labels.CAPACITY_TYPE, "spot", Labels.ZONE, "test-zone-3")).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "offering");
  }

  @Test
  @DisplayName("should resolve the capacity types of the compatible offerings on the NodeClaim")
  void capacityTypesResolved() {
    env.defaultNodePool();
    Pod pod = pod("100m").nodeSelector(Map.of(Labels.ZONE, "test-zone-3")).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).requirements().get(Labels.CAPACITY_TYPE).values()).containsExactly("on-demand");
  }

  @Test
  @DisplayName("should keep at most 600 instance types on a NodeClaim")
  void truncatesTo600() {
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(FakeInstanceTypes.instanceTypes(700)));
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.instanceTypeOptions()).hasSize(600);
    assertThat(claim.requirements().get(Labels.INSTANCE_TYPE).values()).hasSize(600).contains("fake-it-0");
    assertThat(claim.cheapestInstanceType().name()).isEqualTo("fake-it-0");
  }

  @Test
  @DisplayName("schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the requirement after truncation")
  void minValuesAfterTruncation() {
    env.nodePool(
        new SchedulingHarness.NodePool("default")
            .instanceTypes(FakeInstanceTypes.instanceTypes(700))
            .require(Requirement.of(Labels.INSTANCE_TYPE, Operator.Exists, List.of(), 650)));
    Pod pod = pod("100m").build();
    env.provision(pod);
    env.expectNotScheduled(pod, "minValues");
  }

  @Test
  @DisplayName("should schedule when minValues are met")
  void minValuesMet() {
    env.nodePool(
        new SchedulingHarness.NodePool("default").require(Requirement.of(Labels.INSTANCE_TYPE, Operator.Exists, List.of(), 3)));
    Pod pod = pod("100m").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).instanceTypeOptions().size()).isGreaterThanOrEqualTo(3);
  }

  @Test
  @DisplayName("should not schedule when pods narrow the options below minValues (Strict)")
  void minValuesStrict() {
    env.nodePool(
        new SchedulingHarness.NodePool("default").require(Requirement.of(Labels.INSTANCE_TYPE, Operator.Exists, List.of(), 3)));
    Pod pod = pod("10", "64Gi").build();
    env.provision(pod);
    env.expectNotScheduled(pod, "minValues");
  }

  @Test
  @DisplayName("should relax minValues before falling back to other nodepools (BestEffort)")
  void minValuesBestEffort() {
    env.options = SchedulerOptions.DEFAULT.withMinValuesPolicy(SchedulerOptions.MinValuesPolicy.BestEffort);
    env.nodePool(
        new SchedulingHarness.NodePool("preferred")
            .weight(100)
            .require(Requirement.of(Labels.INSTANCE_TYPE, Operator.Exists, List.of(), 10)));
    env.nodePool(new SchedulingHarness.NodePool("fallback"));
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.nodePoolName()).isEqualTo("preferred");
    assertThat(claim.minValuesRelaxed()).isTrue();
  }

  /** Upstream's {@code multiZoneInstanceType}: 4 CPU, 4Gi, arm64 linux, a spot offering at 0.52 in each zone. */
  private static InstanceType multiZoneInstanceType(String name, String... zones) {
    List<Requirements> offerings = new ArrayList<>();
    for (String zone : zones) {
      offerings.add(reqs(req(Labels.CAPACITY_TYPE, Operator.In, Labels.CAPACITY_TYPE_SPOT), req(Labels.ZONE, Operator.In, zone)));
    }
    return FakeInstanceTypes.instanceType(
        name, FakeInstanceTypes.withDefaults(resources("cpu", "4", "memory", "4Gi")), "arm64", Set.of("linux"), offerings);
  }

  /** A NodePool requiring all three test zones with minValues 3, over one type offered in all three. */
  private void zoneMinValuesNodePoolAndZonalVolume() {
    env.nodePool(
        new SchedulingHarness.NodePool("default")
            .instanceTypes(List.of(multiZoneInstanceType("instance-type-1", "test-zone-1", "test-zone-2", "test-zone-3")))
            .require(Requirement.of(Labels.ZONE, Operator.In, List.of("test-zone-1", "test-zone-2", "test-zone-3"), 3)));
    env.volumes =
        new VolumeTopology(
            List.of(),
            List.of(new PersistentVolumeClaim("default", "zonal", "zone-1-class", null)),
            List.of(new StorageClass("zone-1-class", "ebs.csi.aws.com", StorageClass.VolumeBindingMode.WaitForFirstConsumer,
                List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-1"))))));
  }

  @Test
  @DisplayName("should not schedule when pod volume topology narrows zones below minValues (Strict)")
  void minValuesNarrowedByVolumeTopologyStrict() {
    zoneMinValuesNodePoolAndZonalVolume();
    Pod pod = pod("900m", "0.9Gi").persistentVolumeClaim("zonal").build();
    env.provision(pod);
    env.expectNotScheduled(pod, "minValues requirement is not met for label(s) topology.kubernetes.io/zone (1 distinct values available)");
  }

  @Test
  @DisplayName("should relax minValues when pod volume topology narrows zones below minValues (BestEffort)")
  void minValuesNarrowedByVolumeTopologyBestEffort() {
    env.options = SchedulerOptions.DEFAULT.withMinValuesPolicy(SchedulerOptions.MinValuesPolicy.BestEffort);
    zoneMinValuesNodePoolAndZonalVolume();
    Pod pod = pod("900m", "0.9Gi").persistentVolumeClaim("zonal").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.minValuesRelaxed()).isTrue();
    // Relaxed against the narrowed requirement, so the NodeClaim passes validation (values >= minValues).
    assertThat(claim.requirements().get(Labels.ZONE)).isEqualTo(Requirement.of(Labels.ZONE, Operator.In, List.of("test-zone-1"), 1));
  }

  @Test
  @DisplayName("should fall back to the next nodepool when minValues cannot be met (Strict)")
  void minValuesStrictFallback() {
    env.nodePool(
        new SchedulingHarness.NodePool("preferred")
            .weight(100)
            .require(Requirement.of(Labels.INSTANCE_TYPE, Operator.Exists, List.of(), 10)));
    env.nodePool(new SchedulingHarness.NodePool("fallback"));
    Pod pod = pod("100m").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).nodePoolName()).isEqualTo("fallback");
  }

  // --- existing and in-flight nodes ---

  @Test
  @DisplayName("should not launch a second node if there is an in-flight node that can support the pod")
  void inFlightNode() {
    env.defaultNodePool();
    env.node(node("in-flight", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), false, List.of()));
    Pod pod = pod("1").build();
    env.provision(pod);
    assertThat(env.existingNodeOf(pod)).isEqualTo("in-flight");
    assertThat(env.result.newNodeClaims()).isEmpty();
  }

  @Test
  @DisplayName("should prefer initialized nodes over in-flight ones")
  void initializedFirst() {
    env.defaultNodePool();
    env.node(node("a-in-flight", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), false, List.of()));
    env.node(node("b-ready", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), true, List.of()));
    Pod pod = pod("1").build();
    env.provision(pod);
    assertThat(env.existingNodeOf(pod)).isEqualTo("b-ready");
  }

  @Test
  @DisplayName("should launch a new node when the existing node is full")
  void existingNodeFull() {
    env.defaultNodePool();
    Pod bound = pod("3").nodeName("full").build();
    env.node(node("full", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), true, List.of(bound)));
    Pod pod = pod("2").build();
    env.provision(pod);
    env.expectScheduled(pod);
  }

  @Test
  @DisplayName("should not place pods on existing nodes with taints they do not tolerate")
  void existingNodeTaints() {
    env.defaultNodePool();
    env.node(node("tainted", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), true, List.of(),
        new Taint("dedicated", "gpu", Taint.Effect.NoSchedule)));
    Pod pod = pod("1").build();
    Pod tolerant = pod("1").toleration(Toleration.equal("dedicated", "gpu", Taint.Effect.NoSchedule)).build();
    env.provision(pod, tolerant);
    env.expectScheduled(pod);
    assertThat(env.existingNodeOf(tolerant)).isEqualTo("tainted");
  }

  @Test
  @DisplayName("should require existing nodes to define every label a pod selects (strict compatibility)")
  void existingNodeStrict() {
    env.defaultNodePool();
    env.node(node("plain", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), true, List.of()));
    Pod pod = pod("1").nodeSelector(Map.of(FakeInstanceTypes.LABEL_SIZE, "small")).build();
    env.provision(pod);
    assertThat(env.existingNodeOf(pod)).isNull();
    env.expectScheduled(pod);
  }

  @Test
  @DisplayName("should track daemonset usage separately so we know how many DS resources are remaining to be scheduled")
  void daemonSetRemainingOnExistingNode() {
    env.defaultNodePool();
    env.daemonSet(pod("1").owner("DaemonSet", "ds").build());
    env.node(node("node", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), true, List.of()));
    Pod fits = pod("2500m").build();
    Pod tooBig = pod("3500m").build();
    env.provision(tooBig);
    assertThat(env.existingNodeOf(tooBig)).isNull();
    env.provision(fits);
    assertThat(env.existingNodeOf(fits)).isEqualTo("node");
  }

  @Test
  @DisplayName("should count daemonset pods already bound against the remaining daemonset overhead")
  void daemonSetAlreadyBound() {
    env.defaultNodePool();
    env.daemonSet(pod("1").owner("DaemonSet", "ds").build());
    Pod boundDaemon = pod("1").owner("DaemonSet", "ds").nodeName("node").build();
    env.node(node("node", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), true, List.of(boundDaemon)));
    Pod pod = pod("2900m").build();
    env.provision(pod);
    assertThat(env.existingNodeOf(pod)).isEqualTo("node");
  }

  // --- taints and tolerations ---

  @Test
  @DisplayName("should not schedule pods that do not tolerate the NodePool's taints")
  void poolTaints() {
    env.nodePool(new SchedulingHarness.NodePool("default").taint(new Taint("dedicated", "gpu", Taint.Effect.NoSchedule)));
    Pod pod = pod("1").build();
    env.provision(pod);
    env.expectNotScheduled(pod, "dedicated");
  }

  @Test
  @DisplayName("should schedule pods that tolerate the NodePool's taints")
  void poolTaintsTolerated() {
    env.nodePool(new SchedulingHarness.NodePool("default").taint(new Taint("dedicated", "gpu", Taint.Effect.NoSchedule)));
    Pod pod = pod("1").toleration(Toleration.exists("dedicated", null)).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).taints()).extracting(Taint::key).containsExactly("dedicated");
  }

  @Test
  @DisplayName("should assume pod will schedule to a tainted node with a custom startup taint")
  void startupTaints() {
    env.nodePool(new SchedulingHarness.NodePool("default").startupTaint(new Taint("foo.com/taint", "tainted", Taint.Effect.NoSchedule)));
    Pod pod = pod("1").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).startupTaints()).extracting(Taint::key).containsExactly("foo.com/taint");
  }

  @Test
  @DisplayName("should tolerate PreferNoSchedule taint only after trying to relax Affinity terms")
  void preferNoScheduleAfterAffinity() {
    env.nodePool(new SchedulingHarness.NodePool("tainted").weight(100).taint(new Taint("foo", "bar", Taint.Effect.PreferNoSchedule)));
    env.nodePool(new SchedulingHarness.NodePool("untainted"));
    Pod pod = pod("1").preferredNodeAffinity(10, reqs(req(Labels.ZONE, Operator.In, "invalid"))).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).nodePoolName()).isEqualTo("untainted");
  }

  @Test
  @DisplayName("should tolerate a PreferNoSchedule taint when nothing else schedules the pod")
  void preferNoScheduleLastResort() {
    env.nodePool(new SchedulingHarness.NodePool("tainted").taint(new Taint("foo", "bar", Taint.Effect.PreferNoSchedule)));
    Pod pod = pod("1").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).nodePoolName()).isEqualTo("tainted");
  }

  // --- daemonsets ---

  @Test
  @DisplayName("should add daemonset overhead to the NodeClaim's requests")
  void daemonSetOverhead() {
    env.defaultNodePool();
    env.daemonSet(pod("1", "1Gi").owner("DaemonSet", "ds").build());
    Pod pod = pod("1", "1Gi").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.requests().cpuMilli()).isEqualTo(2000);
    assertThat(claim.requests().podsMilli()).isEqualTo(2000);
  }

  @Test
  @DisplayName("should pick an instance type with room for the pod and the daemonset overhead")
  void daemonSetOverheadSizing() {
    env.defaultNodePool();
    env.daemonSet(pod("1").owner("DaemonSet", "ds").build());
    Pod pod = pod("1500m").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).cheapestInstanceType().name()).isEqualTo("default-instance-type");
  }

  @Test
  @DisplayName("should not schedule if daemonset overhead is too large")
  void daemonSetTooLarge() {
    env.defaultNodePool();
    env.daemonSet(pod("10000", "10000Gi").owner("DaemonSet", "ds").build());
    Pod pod = pod("1").build();
    env.provision(pod);
    env.expectNotScheduled(pod, "daemonset overhead");
  }

  @Test
  @DisplayName("should ignore daemonsets that do not tolerate the NodePool's taints")
  void daemonSetNotTolerating() {
    env.nodePool(new SchedulingHarness.NodePool("default").taint(new Taint("foo", "bar", Taint.Effect.NoSchedule)));
    env.daemonSet(pod("10000").owner("DaemonSet", "ds").build());
    Pod pod = pod("1").toleration(Toleration.exists("foo", null)).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).requests().cpuMilli()).isEqualTo(1000);
  }

  @Test
  @DisplayName("should consider a daemonset schedulable with a PreferNoSchedule taint")
  void daemonSetPreferNoSchedule() {
    env.nodePool(new SchedulingHarness.NodePool("default").taint(new Taint("foo", "bar", Taint.Effect.PreferNoSchedule)));
    env.daemonSet(pod("1").owner("DaemonSet", "ds").build());
    Pod pod = pod("1").toleration(Toleration.exists("foo", null)).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).requests().cpuMilli()).isEqualTo(2000);
  }

  @Test
  @DisplayName("should only count daemonsets whose node selector matches the instance type")
  void daemonSetSelector() {
    env.defaultNodePool();
    env.daemonSet(pod("1").owner("DaemonSet", "arm-only").nodeSelector(Map.of(Labels.ARCH, "arm64")).build());
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.cheapestInstanceType().name()).isEqualTo("small-instance-type");
    assertThat(claim.requests().cpuMilli()).isEqualTo(100);
  }

  // --- host ports ---

  @Test
  @DisplayName("should schedule pods with the same host port to different nodes")
  void sameHostPort() {
    env.defaultNodePool();
    Pod a = pod("100m").hostPort(new HostPort(null, 80, "TCP")).build();
    Pod b = pod("100m").hostPort(new HostPort(null, 80, "TCP")).build();
    env.provision(a, b);
    assertThat(env.expectScheduled(a)).isNotSameAs(env.expectScheduled(b));
  }

  @Test
  @DisplayName("should schedule pods with different host ports to the same node")
  void differentHostPorts() {
    env.defaultNodePool();
    Pod a = pod("100m").hostPort(new HostPort(null, 80, "TCP")).build();
    Pod b = pod("100m").hostPort(new HostPort(null, 443, "TCP")).build();
    Pod c = pod("100m").hostPort(new HostPort(null, 80, "UDP")).build();
    env.provision(a, b, c);
    assertThat(env.result.newNodeClaims()).hasSize(1);
  }

  @Test
  @DisplayName("should schedule pods with the same host port on different IPs to the same node")
  void hostPortDifferentIps() {
    env.defaultNodePool();
    Pod a = pod("100m").hostPort(new HostPort("10.0.0.1", 80, "TCP")).build();
    Pod b = pod("100m").hostPort(new HostPort("10.0.0.2", 80, "TCP")).build();
    env.provision(a, b);
    assertThat(env.result.newNodeClaims()).hasSize(1);
  }

  @Test
  @DisplayName("should not place a pod on an existing node whose pods use its host port")
  void hostPortExistingNode() {
    env.defaultNodePool();
    Pod bound = pod("100m").hostPort(new HostPort(null, 80, "TCP")).nodeName("node").build();
    env.node(node("node", "test-zone-1", resources("cpu", "4", "memory", "4Gi", "pods", "5"), true, List.of(bound)));
    Pod pod = pod("100m").hostPort(new HostPort(null, 80, "TCP")).build();
    env.provision(pod);
    env.expectScheduled(pod);
  }

  // --- NodePools: weight and limits ---

  @Test
  @DisplayName("should schedule to the nodepool with the highest priority always")
  void highestWeight() {
    env.nodePool(new SchedulingHarness.NodePool("low").weight(10));
    env.nodePool(new SchedulingHarness.NodePool("high").weight(100));
    env.nodePool(new SchedulingHarness.NodePool("none"));
    List<Pod> pods = List.of(pod("1").build(), pod("1").build(), pod("1").build());
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).allSatisfy(c -> assertThat(c.nodePoolName()).isEqualTo("high"));
  }

  @Test
  @DisplayName("should break weight ties by nodepool name descending")
  void weightTie() {
    env.nodePool(new SchedulingHarness.NodePool("alpha"));
    env.nodePool(new SchedulingHarness.NodePool("beta"));
    Pod pod = pod("1").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).nodePoolName()).isEqualTo("beta");
  }

  @Test
  @DisplayName("should schedule to an explicitly selected nodepool regardless of weight")
  void explicitNodePool() {
    env.nodePool(new SchedulingHarness.NodePool("high").weight(100));
    env.nodePool(new SchedulingHarness.NodePool("chosen"));
    Pod pod = pod("1").nodeSelector(Map.of(Labels.NODE_POOL, "chosen")).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).nodePoolName()).isEqualTo("chosen");
  }

  @Test
  @DisplayName("should fall back to a lower weight nodepool when the pod is incompatible with the higher one")
  void fallbackByCompatibility() {
    env.nodePool(new SchedulingHarness.NodePool("amd").weight(100).require(req(Labels.ARCH, Operator.In, "amd64")));
    env.nodePool(new SchedulingHarness.NodePool("any"));
    Pod pod = pod("1").nodeSelector(Map.of(Labels.ARCH, "arm64")).build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).nodePoolName()).isEqualTo("any");
  }

  @Test
  @DisplayName("should partially schedule if limits would be exceeded")
  void partialLimits() {
    env.nodePool(
        new SchedulingHarness.NodePool("default")
            .limits(resources("cpu", "5"))
            .instanceTypes(FakeInstanceTypes.defaults().stream().filter(t -> t.name().equals("default-instance-type")).toList()));
    Pod a = pod("3").build();
    Pod b = pod("3").build();
    env.provision(a, b);
    env.expectScheduled(a);
    env.expectNotScheduled(b, "limits");
  }

  @Test
  @DisplayName("should not schedule if limits would be exceeded (node)")
  void nodeLimits() {
    env.nodePool(new SchedulingHarness.NodePool("default").limits(resources("nodes", "1")));
    Pod a = pod("100m").hostPort(new HostPort(null, 80, "TCP")).build();
    Pod b = pod("100m").hostPort(new HostPort(null, 80, "TCP")).build();
    env.provision(a, b);
    env.expectScheduled(a);
    env.expectNotScheduled(b, "node limit");
  }

  @Test
  @DisplayName("should exclude instance types larger than the remaining limits")
  void limitsExcludeLargeTypes() {
    env.nodePool(new SchedulingHarness.NodePool("default").limits(resources("cpu", "3")));
    Pod pod = pod("100m").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).instanceTypeOptions()).extracting(t -> t.name()).containsExactly("small-instance-type");
  }

  @Test
  @DisplayName("should count the nodepool's current usage against its limits")
  void limitsUsage() {
    env.nodePool(new SchedulingHarness.NodePool("default").limits(resources("cpu", "10")).usage(resources("cpu", "9")));
    Pod pod = pod("100m").build();
    env.provision(pod);
    env.expectNotScheduled(pod, "limits");
  }

  @Test
  @DisplayName("should name the instance types' size, not only the limits, when a pod is too big for every type and the limits are spent")
  void tooBigAndLimitsSpent() {
    env.nodePool(new SchedulingHarness.NodePool("default").limits(resources("cpu", "10")).usage(resources("cpu", "10")));
    Pod pod = pod("200").build();
    env.provision(pod);
    String reason = env.expectNotScheduled(pod);
    // Raising the limits would not help: the size comes first, the limits second.
    assertThat(reason)
        .startsWith("incompatible with nodepool \"default\": no instance type has room for requests {cpu: 200, pods: 1}")
        .contains("(largest allocatable: cpu 15900m)")
        .endsWith("; also all instance types exceed the nodepool's remaining limits {cpu: 0}");
  }

  @Test
  @DisplayName("should name what every fitting instance type needs when the limits are what blocks a pod")
  void limitsSpentNameTheShortfall() {
    env.nodePool(new SchedulingHarness.NodePool("default").limits(resources("cpu", "10")).usage(resources("cpu", "9")));
    Pod pod = pod("3").build();
    env.provision(pod);
    assertThat(env.expectNotScheduled(pod))
        .isEqualTo(
            "incompatible with nodepool \"default\": all instance types exceed the nodepool's remaining limits {cpu: 1}: "
                + "every instance type the pod fits has at least cpu 4 (raise the nodepool's limits)");
  }

  @Test
  @DisplayName("should put the node limit second when the pod fits no instance type either")
  void tooBigAndNodeLimitReached() {
    env.nodePool(new SchedulingHarness.NodePool("default").limits(resources("nodes", "1")).usage(resources("nodes", "1")));
    Pod pod = pod("200").build();
    env.provision(pod);
    assertThat(env.expectNotScheduled(pod)).contains("no instance type has room for requests").endsWith("; also nodepool node limit reached");
  }

  // --- volumes ---

  private static final String CSI_DRIVER = "fake.csi.provider";

  private static ExistingNode nodeWithVolumeLimit(String name, int limit, List<Pod> pods) {
    return node(name, "test-zone-1", resources("cpu", "1024", "pods", "1024"), true, pods).withVolumeLimits(Map.of(CSI_DRIVER, limit));
  }

  /** Claims {@code prefix-0 .. prefix-(count-1)} of the CSI class {@code my-storage-class}, unbound. */
  private static List<PersistentVolumeClaim> claims(String prefix, int count) {
    List<PersistentVolumeClaim> claims = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      claims.add(new PersistentVolumeClaim("default", prefix + "-" + i, "my-storage-class", null));
    }
    return claims;
  }

  private static StorageClass csiStorageClass() {
    return new StorageClass(
        "my-storage-class", CSI_DRIVER, StorageClass.VolumeBindingMode.WaitForFirstConsumer, List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-1"))));
  }

  @Test
  @DisplayName("should launch multiple nodes if required due to volume limits")
  void volumeLimitsLaunchMoreNodes() {
    env.defaultNodePool();
    env.node(nodeWithVolumeLimit("node-a", 10, List.of()));
    List<PersistentVolumeClaim> claims = new ArrayList<>(claims("my-claim-a", 6));
    claims.addAll(claims("my-claim-b", 6));
    env.volumes = new VolumeTopology(List.of(), claims, List.of(csiStorageClass()));
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      pods.add(pod("100m").persistentVolumeClaim("my-claim-a-" + i).persistentVolumeClaim("my-claim-b-" + i).build());
    }
    env.provision(pods.toArray(Pod[]::new));
    // The node can attach 10 volumes: five pods of two claims each; the sixth needs a new node.
    assertThat(pods.stream().filter(p -> "node-a".equals(env.existingNodeOf(p))).count()).isEqualTo(5);
    assertThat(env.result.newNodeClaims()).hasSize(1);
    assertThat(env.result.newNodeClaims().getFirst().pods()).hasSize(1);
    assertThat(env.result.unschedulable()).isEmpty();
  }

  @Test
  @DisplayName("should count the volumes of the pods already bound to a node against its volume limit")
  void volumeLimitsCountBoundPods() {
    env.defaultNodePool();
    env.volumes = new VolumeTopology(List.of(), claims("data", 3), List.of(csiStorageClass()));
    Pod bound = pod("100m").persistentVolumeClaim("data-0").persistentVolumeClaim("data-1").build();
    env.node(nodeWithVolumeLimit("node-a", 2, List.of(bound)));
    Pod pod = pod("100m").persistentVolumeClaim("data-2").build();
    env.provision(pod);
    assertThat(env.existingNodeOf(pod)).isNull();
    env.expectScheduled(pod);
  }

  @Test
  @DisplayName("should count a claim shared by several pods once against a volume limit")
  void volumeLimitsCountSharedClaimsOnce() {
    env.defaultNodePool();
    env.volumes = new VolumeTopology(List.of(), claims("shared", 1), List.of(csiStorageClass()));
    Pod bound = pod("100m").persistentVolumeClaim("shared-0").build();
    env.node(nodeWithVolumeLimit("node-a", 1, List.of(bound)));
    Pod first = pod("100m").persistentVolumeClaim("shared-0").build();
    Pod second = pod("100m").persistentVolumeClaim("shared-0").build();
    env.provision(first, second);
    assertThat(env.existingNodeOf(first)).isEqualTo("node-a");
    assertThat(env.existingNodeOf(second)).isEqualTo("node-a");
  }

  @Test
  @DisplayName("should not limit volumes of a driver the node reports no limit for")
  void volumeLimitsOnlyForReportedDrivers() {
    env.defaultNodePool();
    env.volumes = new VolumeTopology(List.of(), claims("data", 3), List.of(csiStorageClass()));
    env.node(node("node-a", "test-zone-1", resources("cpu", "1024", "pods", "1024"), true, List.of()).withVolumeLimits(Map.of("other.csi.driver", 1)));
    Pod pod = pod("100m").persistentVolumeClaim("data-0").persistentVolumeClaim("data-1").persistentVolumeClaim("data-2").build();
    env.provision(pod);
    assertThat(env.existingNodeOf(pod)).isEqualTo("node-a");
  }

  @Test
  @DisplayName("should count a bound claim for its persistent volume's CSI driver")
  void volumeLimitsForBoundClaims() {
    env.defaultNodePool();
    env.volumes =
        new VolumeTopology(
            List.of(new PersistentVolume("pv-0", List.of(), false, CSI_DRIVER), new PersistentVolume("pv-1", List.of(), false, CSI_DRIVER)),
            List.of(new PersistentVolumeClaim("default", "bound-0", null, "pv-0"), new PersistentVolumeClaim("default", "bound-1", null, "pv-1")),
            List.of());
    Pod bound = pod("100m").persistentVolumeClaim("bound-0").build();
    env.node(nodeWithVolumeLimit("node-a", 1, List.of(bound)));
    Pod pod = pod("100m").persistentVolumeClaim("bound-1").build();
    Pod withoutVolumes = pod("100m").build();
    env.provision(pod, withoutVolumes);
    assertThat(env.existingNodeOf(pod)).isNull();
    env.expectScheduled(pod);
    assertThat(env.existingNodeOf(withoutVolumes)).isEqualTo("node-a");
  }

  // Upstream v1.15 "InstanceType VolumeAttachmentLimits": new NodeClaims keep only the types whose CSI
  // volume attachment limits hold their pods' volumes; existing nodes fall back to them.

  /** Upstream's fake type of 1024 CPUs and 1024 pods with these volume attachment limits. */
  private static InstanceType volumeLimitedType(String name, String cpu, Map<String, Integer> limits) {
    return FakeInstanceTypes.instanceType(name, FakeInstanceTypes.withDefaults(resources("cpu", cpu, "pods", "1024")), "amd64", Set.of("linux"), null)
        .withVolumeAttachmentLimits(limits);
  }

  private void volumeLimitedNodePool(InstanceType... types) {
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(types)));
  }

  private static List<Pod> podsWithOneClaimEach(String prefix, int count) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pods.add(pod("1m").persistentVolumeClaim(prefix + "-" + i).build());
    }
    return pods;
  }

  @Test
  @DisplayName("should launch enough nodes for all pods in a single scheduling loop (instance type volume limits)")
  void instanceTypeVolumeLimitsLaunchEnoughNodes() {
    volumeLimitedNodePool(volumeLimitedType("limited-instance-type", "1024", Map.of(CSI_DRIVER, 10)));
    env.volumes = new VolumeTopology(List.of(), claims("my-claim", 100), List.of(csiStorageClass()));
    env.provision(podsWithOneClaimEach("my-claim", 100));
    // each node supports 10 attachments, so 100 pods with one claim each need 10 NodeClaims
    assertThat(env.result.newNodeClaims()).hasSize(10);
    assertThat(env.result.unschedulable()).isEmpty();
  }

  @Test
  @DisplayName("should use instance type limits until the CSINode driver is published")
  void existingNodesFallBackToInstanceTypeVolumeLimits() {
    volumeLimitedNodePool(volumeLimitedType("limited-instance-type", "1024", Map.of(CSI_DRIVER, 10)));
    env.volumes = new VolumeTopology(List.of(), claims("my-claim", 11), List.of(csiStorageClass()));
    Map<String, String> labels =
        Map.of(Labels.HOSTNAME, "in-flight", Labels.ZONE, "test-zone-1", Labels.NODE_POOL, "default", Labels.INSTANCE_TYPE, "limited-instance-type");
    env.node(new ExistingNode("in-flight", labels, List.of(), resources("cpu", "1024", "pods", "1024"), List.of(), false, "default"));
    List<Pod> pods = podsWithOneClaimEach("my-claim", 11);
    env.provision(pods);
    assertThat(pods.stream().filter(p -> "in-flight".equals(env.existingNodeOf(p))).count()).isEqualTo(10);
    assertThat(env.result.newNodeClaims()).hasSize(1);
  }

  @Test
  @DisplayName("should prefer the CSINode's volume limit over the instance type's once it is published")
  void csiNodeVolumeLimitsOverrideTheInstanceType() {
    volumeLimitedNodePool(volumeLimitedType("limited-instance-type", "1024", Map.of(CSI_DRIVER, 10)));
    env.volumes = new VolumeTopology(List.of(), claims("my-claim", 11), List.of(csiStorageClass()));
    Map<String, String> labels =
        Map.of(Labels.HOSTNAME, "node-a", Labels.ZONE, "test-zone-1", Labels.NODE_POOL, "default", Labels.INSTANCE_TYPE, "limited-instance-type");
    env.node(
        new ExistingNode("node-a", labels, List.of(), resources("cpu", "1024", "pods", "1024"), List.of(), true, "default")
            .withVolumeLimits(Map.of(CSI_DRIVER, 20)));
    List<Pod> pods = podsWithOneClaimEach("my-claim", 11);
    env.provision(pods);
    assertThat(pods).allSatisfy(p -> assertThat(env.existingNodeOf(p)).isEqualTo("node-a"));
  }

  @Test
  @DisplayName("should account for pods with multiple volumes (instance type volume limits)")
  void instanceTypeVolumeLimitsCountEveryVolumeOfAPod() {
    volumeLimitedNodePool(volumeLimitedType("limited-instance-type", "1024", Map.of(CSI_DRIVER, 10)));
    List<PersistentVolumeClaim> claims = new ArrayList<>(claims("my-claim-a", 6));
    claims.addAll(claims("my-claim-b", 6));
    env.volumes = new VolumeTopology(List.of(), claims, List.of(csiStorageClass()));
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      pods.add(pod("1m").persistentVolumeClaim("my-claim-a-" + i).persistentVolumeClaim("my-claim-b-" + i).build());
    }
    env.provision(pods);
    // each NodeClaim can only hold 5 of the 6 pods due to the volume limit
    assertThat(env.result.newNodeClaims()).hasSize(2);
  }

  @Test
  @DisplayName("should count each PVC once when shared by multiple pods (instance type volume limits)")
  void instanceTypeVolumeLimitsCountSharedClaimsOnce() {
    volumeLimitedNodePool(volumeLimitedType("limited-instance-type", "1024", Map.of(CSI_DRIVER, 10)));
    env.volumes = new VolumeTopology(List.of(), claims("my-claim", 1), List.of(csiStorageClass()));
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      pods.add(pod("1m").persistentVolumeClaim("my-claim-0").build());
    }
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(1);
  }

  @Test
  @DisplayName("should not limit volumes for drivers without a declared limit")
  void instanceTypeVolumeLimitsOnlyForDeclaredDrivers() {
    volumeLimitedNodePool(volumeLimitedType("instance-type", "1024", Map.of("other.csi.provider", 1)));
    env.volumes = new VolumeTopology(List.of(), claims("my-claim", 20), List.of(csiStorageClass()));
    env.provision(podsWithOneClaimEach("my-claim", 20));
    assertThat(env.result.newNodeClaims()).hasSize(1);
  }

  @Test
  @DisplayName("should not schedule pods which exceed the volume limits of every instance type")
  void instanceTypeVolumeLimitsExceededByEveryType() {
    volumeLimitedNodePool(volumeLimitedType("limited-instance-type", "1024", Map.of(CSI_DRIVER, 10)));
    env.volumes = new VolumeTopology(List.of(), claims("my-claim", 11), List.of(csiStorageClass()));
    Pod.Builder builder = pod("1m");
    for (int i = 0; i < 11; i++) {
      builder.persistentVolumeClaim("my-claim-" + i);
    }
    Pod pod = builder.build();
    env.provision(pod);
    assertThat(env.expectNotScheduled(pod))
        .isEqualTo(
            "incompatible with nodepool \"default\": would exceed volume limit for all instance type options: "
                + "csi driver \"fake.csi.provider\" needs 11 volumes, the largest limit is 10");
  }

  @Test
  @DisplayName("should filter out instance types which cannot support the pod's volumes")
  void instanceTypeVolumeLimitsFilterTheOptions() {
    // cheaper, but can't support the pod's volumes
    volumeLimitedNodePool(
        volumeLimitedType("small-limit", "16", Map.of(CSI_DRIVER, 2)), volumeLimitedType("large-limit", "1024", Map.of(CSI_DRIVER, 20)));
    env.volumes = new VolumeTopology(List.of(), claims("my-claim", 5), List.of(csiStorageClass()));
    Pod.Builder builder = pod("1m");
    for (int i = 0; i < 5; i++) {
      builder.persistentVolumeClaim("my-claim-" + i);
    }
    Pod pod = builder.build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).instanceTypeOptions()).extracting(InstanceType::name).containsExactly("large-limit");
  }

  @Test
  @DisplayName("should filter out instance types which cannot support all of the pod's volumes across multiple CSI drivers")
  void instanceTypeVolumeLimitsAcrossDrivers() {
    String localDriver = "local.csi.provider";
    volumeLimitedNodePool(
        volumeLimitedType("partial-support", "16", Map.of(CSI_DRIVER, 10, localDriver, 1)),
        volumeLimitedType("full-support", "1024", Map.of(CSI_DRIVER, 10, localDriver, 10)));
    List<PersistentVolumeClaim> claims = new ArrayList<>(claims("my-claim", 2));
    for (int i = 0; i < 2; i++) {
      claims.add(new PersistentVolumeClaim("default", "my-local-claim-" + i, "local-storage-class", null));
    }
    env.volumes =
        new VolumeTopology(
            List.of(),
            claims,
            List.of(
                csiStorageClass(),
                new StorageClass("local-storage-class", localDriver, StorageClass.VolumeBindingMode.WaitForFirstConsumer,
                    List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-1"))))));
    Pod pod = pod("1m").persistentVolumeClaim("my-claim-0").persistentVolumeClaim("my-local-claim-0")
        .persistentVolumeClaim("my-claim-1").persistentVolumeClaim("my-local-claim-1").build();
    env.provision(pod);
    assertThat(env.expectScheduled(pod).instanceTypeOptions()).extracting(InstanceType::name).containsExactly("full-support");
  }

  @Test
  @DisplayName("should schedule to the zone of a bound persistent volume")
  void boundVolumeZone() {
    env.defaultNodePool();
    env.volumes =
        new VolumeTopology(
            List.of(new PersistentVolume("pv", List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-3"))), false, "ebs.csi.aws.com")),
            List.of(new PersistentVolumeClaim("default", "data", null, "pv")),
            List.of());
    Pod pod = pod("1").persistentVolumeClaim("data").build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-3");
  }

  @Test
  @DisplayName("should schedule to a zone the storage class allows")
  void storageClassTopology() {
    env.defaultNodePool();
    env.volumes =
        new VolumeTopology(
            List.of(),
            List.of(new PersistentVolumeClaim("default", "data", "zonal", null)),
            List.of(new StorageClass("zonal", "ebs.csi.aws.com", StorageClass.VolumeBindingMode.WaitForFirstConsumer,
                List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-2"))))));
    Pod pod = pod("1").persistentVolumeClaim("data").build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should not schedule a pod whose volume is in a zone it cannot use")
  void volumeConflict() {
    env.defaultNodePool();
    env.volumes =
        new VolumeTopology(
            List.of(new PersistentVolume("pv", List.of(reqs(req(Labels.ZONE, Operator.In, "test-zone-3"))), false, "ebs.csi.aws.com")),
            List.of(new PersistentVolumeClaim("default", "data", null, "pv")),
            List.of());
    Pod pod = pod("1").persistentVolumeClaim("data").nodeSelector(Map.of(Labels.ZONE, "test-zone-1")).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "volume");
  }

  @Test
  @DisplayName("should not schedule a pod whose claim does not exist")
  void missingClaim() {
    env.defaultNodePool();
    Pod pod = pod("1").persistentVolumeClaim("missing").build();
    env.provision(pod);
    env.expectNotScheduled(pod, "missing");
  }

  @Test
  @DisplayName("should report every pod exactly once and leave no pod unattempted")
  void everyPodOnce() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      pods.add(pod(i % 3 == 0 ? "100" : "500m").build());
    }
    env.provision(pods);
    assertThat(env.result.unschedulable()).hasSize(10).allSatisfy(e -> assertThat(e.reason()).isNotBlank());
    assertThat(Set.copyOf(env.result.newNodeClaims().stream().flatMap(c -> c.pods().stream()).toList())).hasSize(20);
  }
}
