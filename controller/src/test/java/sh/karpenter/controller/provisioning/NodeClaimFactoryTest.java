package sh.karpenter.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolHash;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulingResult;

class NodeClaimFactoryTest {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();
  private static final List<InstanceType> TYPES = FakeInstanceTypes.instanceTypes(10);

  private static final String POOL = """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: general, uid: 6a1e6f4c-pool}
      spec:
        template:
          metadata:
            labels: {team: payments}
            annotations: {example.com/owner: payments}
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
            expireAfter: 48h
            terminationGracePeriod: 30m
            taints: [{key: dedicated, value: payments, effect: NoSchedule}]
            startupTaints: [{key: example.com/agent-not-ready, effect: NoExecute}]
            requirements:
              - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
              - {key: node.kubernetes.io/instance-type, operator: Exists, minValues: 3}
              - {key: example.com/tier, operator: In, values: [gold, silver]}
              - {key: example.com/rack, operator: Exists}
              - {key: topology.kubernetes.io/zone, operator: In, values: [test-zone-1]}
      """;

  private static <T> T yaml(Class<T> type, String yaml) {
    return YAML.unmarshal(yaml, type);
  }

  private static Pod pod(String name, String cpu) {
    return yaml(Pod.class, """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s, namespace: team, uid: %s-uid}
        spec:
          tolerations: [{key: dedicated, operator: Exists}]
          containers: [{name: c, resources: {requests: {cpu: "%s", memory: 1Gi}}}]
        """.formatted(name, name, cpu));
  }

  private static PlannedNodeClaim plan(NodePool pool, SchedulerOptions options, Pod... pods) {
    SnapshotBuilder builder = new SnapshotBuilder(p -> TYPES);
    builder.add(pool, "pool");
    for (Pod pod : pods) {
      builder.add(pod, "pod " + pod.getMetadata().getName());
    }
    SchedulingResult result = new Scheduler(builder.build().schedulingInput(options)).solve();
    assertThat(result.unschedulable()).isEmpty();
    assertThat(result.newNodeClaims()).hasSize(1);
    return result.newNodeClaims().get(0);
  }

  private final NodePool pool = yaml(NodePool.class, POOL);
  private final PlannedNodeClaim plan = plan(pool, SchedulerOptions.DEFAULT, pod("a", "1"), pod("b", "500m"));
  private final NodeClaim claim = NodeClaimFactory.create(plan, pool);

  private Map<String, NodeSelectorRequirementWithMinValues> requirements() {
    return claim.getSpec().getRequirements().stream()
        .collect(Collectors.toMap(NodeSelectorRequirementWithMinValues::getKey, r -> r));
  }

  @Test
  void isNamedAfterItsNodePoolAndOwnedByIt() {
    assertThat(claim.getMetadata().getName()).isNull();
    assertThat(claim.getMetadata().getGenerateName()).isEqualTo("general-");
    assertThat(claim.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
      assertThat(owner.getApiVersion()).isEqualTo("karpenter.sh/v1");
      assertThat(owner.getKind()).isEqualTo("NodePool");
      assertThat(owner.getName()).isEqualTo("general");
      assertThat(owner.getUid()).isEqualTo("6a1e6f4c-pool");
      assertThat(owner.getBlockOwnerDeletion()).isTrue();
      assertThat(owner.getController()).isNull();
    });
  }

  @Test
  void labelsAreTheTemplateLabelsThePoolAndResolvedCustomRequirements() {
    assertThat(claim.getMetadata().getLabels()).isEqualTo(Map.of(
        "team", "payments",
        "karpenter.sh/nodepool", "general",
        "example.com/tier", "gold",
        "example.com/rack", "0"));
  }

  @Test
  void annotationsCarryTheDriftHash() {
    assertThat(claim.getMetadata().getAnnotations()).isEqualTo(Map.of(
        "example.com/owner", "payments",
        "karpenter.sh/nodepool-hash", NodePoolHash.of(pool),
        "karpenter.sh/nodepool-hash-version", "v3"));
  }

  @Test
  void requirementsNameTheInstanceTypeOptionsAndKeepMinValues() {
    Map<String, NodeSelectorRequirementWithMinValues> requirements = requirements();

    NodeSelectorRequirementWithMinValues types = requirements.get("node.kubernetes.io/instance-type");
    assertThat(types.getOperator()).isEqualTo("In");
    assertThat(types.getMinValues()).isEqualTo(3);
    assertThat(types.getValues()).containsExactlyInAnyOrderElementsOf(plan.instanceTypeOptions().stream().map(InstanceType::name).toList());
    assertThat(types.getValues()).hasSizeGreaterThanOrEqualTo(3).doesNotContain("fake-it-0"); // 1 CPU cannot take 1.5 CPUs
    assertThat(requirements.get("karpenter.sh/capacity-type").getValues()).containsExactlyInAnyOrder("spot", "on-demand");
    assertThat(requirements.get("karpenter.sh/nodepool").getValues()).containsExactly("general");
    assertThat(requirements.get("topology.kubernetes.io/zone").getValues()).containsExactly("test-zone-1");
    assertThat(requirements.get("example.com/rack").getOperator()).isEqualTo("Exists");
    assertThat(requirements.get("example.com/rack").getValues()).isNull();
    assertThat(requirements).doesNotContainKeys("kubernetes.io/hostname", "karpenter.sh/registered", "karpenter.sh/initialized");
  }

  @Test
  void specCopiesTheTemplateAndRequestsWhatThePodsNeed() {
    var spec = claim.getSpec();
    assertThat(spec.getResources().getRequests()).containsOnlyKeys("cpu", "memory", "pods");
    assertThat(spec.getResources().getRequests().get("cpu").toString()).isEqualTo("1500m");
    assertThat(spec.getResources().getRequests().get("memory").toString()).isEqualTo("2Gi");
    assertThat(spec.getResources().getRequests().get("pods").toString()).isEqualTo("2");
    assertThat(spec.getTaints()).extracting(Taint::getKey, Taint::getValue, Taint::getEffect)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("dedicated", "payments", "NoSchedule"));
    assertThat(spec.getStartupTaints()).extracting(Taint::getKey).containsExactly("example.com/agent-not-ready");
    assertThat(spec.getNodeClassRef().getName()).isEqualTo("default");
    assertThat(spec.getNodeClassRef().getKind()).isEqualTo("KWOKNodeClass");
    assertThat(spec.getExpireAfter().toString()).isEqualTo("48h");
    assertThat(spec.getTerminationGracePeriod().toString()).isEqualTo("30m");
  }

  @Test
  void relaxedMinValuesAreAnnotated() {
    NodePool flexible = yaml(NodePool.class, POOL.replace(
        "operator: Exists, minValues: 3", "operator: In, values: [fake-it-3, fake-it-4], minValues: 2"));
    // Only fake-it-4 (5 CPUs) takes 4.5 CPUs: BestEffort launches it anyway and says so.
    PlannedNodeClaim relaxed =
        plan(flexible, SchedulerOptions.DEFAULT.withMinValuesPolicy(SchedulerOptions.MinValuesPolicy.BestEffort), pod("big", "4500m"));

    NodeClaim claim = NodeClaimFactory.create(relaxed, flexible);

    assertThat(relaxed.minValuesRelaxed()).isTrue();
    assertThat(claim.getMetadata().getAnnotations()).containsEntry("karpenter.sh/nodeclaim-min-values-relaxed", "true");
    NodeSelectorRequirementWithMinValues types = claim.getSpec().getRequirements().stream()
        .filter(r -> r.getKey().equals("node.kubernetes.io/instance-type")).findFirst().orElseThrow();
    assertThat(types.getValues()).containsExactly("fake-it-4");
    assertThat(types.getMinValues()).isEqualTo(1);
    assertThat(this.claim.getMetadata().getAnnotations()).doesNotContainKey("karpenter.sh/nodeclaim-min-values-relaxed");
  }

  @Test
  void serialisesToTheNodeClaimSchema() {
    String json = YAML.asJson(claim);
    NodeClaim back = YAML.unmarshal(json, NodeClaim.class);
    assertThat(back.getSpec().getRequirements()).hasSameSizeAs(claim.getSpec().getRequirements());
    assertThat(json).contains("\"apiVersion\":\"karpenter.sh/v1\"", "\"kind\":\"NodeClaim\"");
  }

  @Test
  void restrictedKeysFollowUpstream() {
    assertThat(NodeClaimFactory.restricted("kubernetes.io/arch")).isTrue();
    assertThat(NodeClaimFactory.restricted("example.kubernetes.io/x")).isTrue();
    assertThat(NodeClaimFactory.restricted("x.k8s.io/y")).isTrue();
    assertThat(NodeClaimFactory.restricted("karpenter.sh/custom")).isTrue();
    assertThat(NodeClaimFactory.restricted("node.kubernetes.io/role")).isFalse();
    assertThat(NodeClaimFactory.restricted("node-restriction.kubernetes.io/team")).isFalse();
    assertThat(NodeClaimFactory.restricted("kops.k8s.io/group")).isFalse();
    assertThat(NodeClaimFactory.restricted("example.com/team")).isFalse();
    assertThat(NodeClaimFactory.restricted("team")).isFalse();
  }
}
