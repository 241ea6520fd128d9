package sh.karpenter.cli.plan.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 2,000-pod cluster generated from a fixed seed: services with zone spread, replicated stores with
 * hostname anti-affinity, arm64-only and spot-tolerant batch work and a few impossible pods, over
 * three NodePools and two existing nodes. The whole plan must satisfy the contract.
 */
class GeneratedMixScenarioTest {
  private static final int PODS = 2_000;
  private static final String[] CPU = {"100m", "250m", "500m", "1", "1500m", "2", "4"};
  private static final String[] MEMORY = {"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"};

  @TempDir Path dir;

  @Test
  void twoThousandPodMixHoldsEveryContractRule() throws IOException {
    Path snapshot = dir.resolve("mix.yaml");
    Files.writeString(snapshot, generate(new Random(20240611L)));

    ScenarioPlan plan = ScenarioPlan.of(List.of(snapshot));

    assertThat(plan.pending()).isEqualTo(PODS);
    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).allMatch(p -> p.startsWith("misc/impossible-"));
    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).hasSize(3);
    assertThat(plan.json.at("/summary/lowerBoundPerHour").decimalValue()).isPositive();
  }

  /** NodePools, existing nodes, then workloads until exactly {@link #PODS} pending pods exist. */
  private static String generate(Random random) {
    StringBuilder yaml = new StringBuilder(POOLS);
    int pods = 0;
    int workload = 0;
    while (pods < PODS - 3) {
      int replicas = Math.min(1 + random.nextInt(30), PODS - 3 - pods);
      String kind = workload % 4 == 1 ? "StatefulSet" : "Deployment";
      yaml.append(workload(workload, kind, replicas, random));
      pods += replicas;
      workload++;
    }
    for (int i = 0; i < 3; i++) {
      yaml.append(
          """
          ---
          apiVersion: v1
          kind: Pod
          metadata: {name: impossible-%d, namespace: misc}
          spec:
            containers: [{name: c, image: example.com/x:1, resources: {requests: {cpu: "%d"}}}]
          """
              .formatted(i, 500 + i));
    }
    return yaml.toString();
  }

  private static String workload(int index, String kind, int replicas, Random random) {
    String name = "app-" + index;
    String cpu = CPU[random.nextInt(CPU.length)];
    String memory = MEMORY[random.nextInt(MEMORY.length)];
    String extra =
        switch (index % 5) {
          case 0 ->
              """
                    topologySpreadConstraints:
                      - {maxSkew: %d, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: %s}}}
              """
                  .formatted(1 + random.nextInt(2), name);
          case 1 ->
              """
                    affinity:
                      podAntiAffinity:
                        requiredDuringSchedulingIgnoredDuringExecution:
                          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: %s}}}
              """
                  .formatted(name);
          case 2 ->
              """
                    nodeSelector: {kubernetes.io/arch: arm64}
              """;
          case 3 ->
              """
                    nodeSelector: {workload-type: batch}
                    tolerations: [{key: example.com/batch, operator: Exists, effect: NoSchedule}]
              """;
          default -> "";
        };
    return """
        ---
        apiVersion: apps/v1
        kind: %s
        metadata: {name: %s, namespace: team-%d}
        spec:
          replicas: %d
          selector: {matchLabels: {app: %s}}
          template:
            metadata: {labels: {app: %s}}
            spec:
        %s      containers: [{name: c, image: example.com/%s:1, resources: {requests: {cpu: "%s", memory: %s}}}]
        """
        .formatted(kind, name, index % 7, replicas, name, name, extra, name, cpu, memory);
  }

  private static final String POOLS =
      """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: general}
      spec:
        template:
          metadata:
            labels: {team: platform}
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
            requirements:
              - {key: kubernetes.io/arch, operator: In, values: [amd64, arm64]}
              - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
              - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
              - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
        limits:
          cpu: "100000"
      ---
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: batch}
      spec:
        weight: 10
        template:
          metadata:
            labels: {workload-type: batch}
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
            taints:
              - {key: example.com/batch, value: "true", effect: NoSchedule}
            requirements:
              - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
              - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
      ---
      apiVersion: apps/v1
      kind: DaemonSet
      metadata: {name: log-agent, namespace: kube-system}
      spec:
        selector: {matchLabels: {app: log-agent}}
        template:
          metadata: {labels: {app: log-agent}}
          spec:
            tolerations: [{operator: Exists}]
            containers: [{name: agent, image: example.com/agent:1, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
      ---
      apiVersion: v1
      kind: Node
      metadata:
        name: existing-1
        labels: {karpenter.sh/nodepool: general, topology.kubernetes.io/zone: us-east-1a, kubernetes.io/arch: amd64, kubernetes.io/os: linux, kubernetes.io/hostname: existing-1}
      status:
        capacity: {cpu: "16", memory: 64Gi, pods: "110"}
        allocatable: {cpu: 15890m, memory: 61Gi, pods: "110"}
      ---
      apiVersion: v1
      kind: Node
      metadata:
        name: existing-2
        labels: {karpenter.sh/nodepool: general, topology.kubernetes.io/zone: us-east-1c, kubernetes.io/arch: arm64, kubernetes.io/os: linux, kubernetes.io/hostname: existing-2}
      status:
        capacity: {cpu: "8", memory: 32Gi, pods: "58"}
        allocatable: {cpu: 7910m, memory: 29Gi, pods: "58"}
      """;
}
