package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static sh.karpenter.controller.snapshot.TestManifests.ORIGIN;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.taints.Taint;

class NodePoolConverterTest {
  private static final String POOL = """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: general}
      spec:
        weight: 40
        limits: {cpu: "100", memory: 400Gi}
        template:
          metadata:
            labels: {team: payments}
            annotations: {example.com/owner: payments}
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
            taints: [{key: dedicated, value: payments, effect: NoSchedule}]
            startupTaints: [{key: example.com/agent-not-ready, effect: NoExecute}]
            requirements:
              - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
              - {key: node.kubernetes.io/instance-type, operator: Exists, minValues: 3}
      """;

  private static NodePool pool(String yaml) {
    return TestManifests.yaml(NodePool.class, yaml);
  }

  @Test
  void templateBecomesTheSchedulersNodeClaimTemplate() {
    Resources usage = Resources.builder().cpu("8").pods(2).build();

    NodeClaimTemplate template = NodePoolConverter.convert(pool(POOL), usage, List.of(), ORIGIN);

    assertThat(template.nodePoolName()).isEqualTo("general");
    assertThat(template.weight()).isEqualTo(40);
    assertThat(template.labels()).isEqualTo(Map.of("team", "payments", "karpenter.sh/nodepool", "general"));
    assertThat(template.annotations()).isEqualTo(Map.of("example.com/owner", "payments"));
    assertThat(template.taints()).containsExactly(new Taint("dedicated", "payments", Taint.Effect.NoSchedule));
    assertThat(template.startupTaints()).containsExactly(new Taint("example.com/agent-not-ready", null, Taint.Effect.NoExecute));
    assertThat(template.limits().toQuantities()).isEqualTo(Map.of("cpu", "100", "memory", "400Gi"));
    assertThat(template.usage()).isEqualTo(usage);
  }

  @Test
  void requirementsKeepMinValuesAndIncludeTheTemplateLabels() {
    NodeClaimTemplate template = NodePoolConverter.convert(pool(POOL), Resources.EMPTY, List.of(), ORIGIN);

    assertThat(template.requirements().toString()).isEqualTo(
        "karpenter.sh/capacity-type In [on-demand spot], karpenter.sh/nodepool In [general],"
            + " node.kubernetes.io/instance-type Exists minValues 3, team In [payments]");
    assertThat(template.requirements().get("node.kubernetes.io/instance-type"))
        .extracting(Requirement::minValues).isEqualTo(3);
  }

  @Test
  void aPoolWithoutLimitsOrWeightHasNone() {
    NodeClaimTemplate template = NodePoolConverter.convert(
        pool(POOL.replace("  weight: 40\n", "").replace("  limits: {cpu: \"100\", memory: 400Gi}\n", "")), Resources.EMPTY, List.of(), ORIGIN);

    assertThat(template.limits()).isNull();
    assertThat(template.weight()).isZero();
  }

  @Test
  void staticAndDeletedPoolsDoNotProvision() {
    NodePool dynamic = pool(POOL);
    NodePool fixed = pool(POOL.replace("  weight: 40\n", "  replicas: 3\n"));
    NodePool deleting = pool(POOL.replace("metadata: {name: general}", "metadata: {name: general, deletionTimestamp: \"2025-01-01T00:00:00Z\"}"));

    assertThat(List.of(dynamic, fixed, deleting)).extracting(NodePoolConverter::provisionable).containsExactly(true, false, false);
  }

  @Test
  void invalidValuesNameTheirField() {
    assertThatThrownBy(() -> NodePoolConverter.convert(pool(POOL.replace("memory: 400Gi", "memory: lots")), Resources.EMPTY, List.of(), ORIGIN))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(ORIGIN + ": spec.limits.memory: invalid quantity \"lots\"");
    assertThatThrownBy(() -> NodePoolConverter.convert(pool(POOL.replace("operator: Exists", "operator: Near")), Resources.EMPTY, List.of(), ORIGIN))
        .hasMessageStartingWith(ORIGIN + ": spec.template.spec.requirements[1].operator: ");
  }
}
