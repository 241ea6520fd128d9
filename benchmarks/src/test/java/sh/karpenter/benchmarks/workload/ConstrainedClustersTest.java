package sh.karpenter.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

/** The constrained clusters are well-formed, cover issue 18's constraints, and are the same on every call. */
class ConstrainedClustersTest {

  private static final List<InstanceType> CATALOGUE = InstanceTypeCatalog.aws().instanceTypes();

  @ParameterizedTest
  @EnumSource(ConstrainedClusters.class)
  void eachClusterIsWellFormed(ConstrainedClusters cluster) {
    SchedulingInput input = cluster.input(CATALOGUE);

    assertThat(input.pendingPods()).hasSizeBetween(50, 5000);
    assertThat(cluster.label()).matches("[a-z0-9-]+");
    Set<String> uids = new HashSet<>();
    input.pendingPods().forEach(p -> assertThat(uids.add(p.uid())).as("unique uid %s", p.uid()).isTrue());
    input.nodes().forEach(n -> n.pods().forEach(p -> assertThat(uids.add(p.uid())).as("unique uid %s", p.uid()).isTrue()));
    assertThat(input.templates()).isNotEmpty().allSatisfy(t -> assertThat(t.instanceTypes()).isNotEmpty());
    assertThat(input.templates().stream().map(NodeClaimTemplate::nodePoolName).distinct().count())
        .isEqualTo(input.templates().size());
    assertThat(input.daemonSetPods()).hasSize(1);
    for (Pod pod : input.pendingPods()) {
      for (String claim : pod.persistentVolumeClaims()) {
        assertThat(input.volumes().claim(pod.namespace(), claim)).as("claim %s", claim).isNotNull();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(ConstrainedClusters.class)
  void theSameCaseGivesTheSamePods(ConstrainedClusters cluster) {
    SchedulingInput first = cluster.input(CATALOGUE);
    SchedulingInput second = cluster.input(CATALOGUE);

    assertThat(second.pendingPods().stream().map(ConstrainedClustersTest::describe).toList())
        .isEqualTo(first.pendingPods().stream().map(ConstrainedClustersTest::describe).toList());
    assertThat(second.nodes().stream().map(n -> n.name() + n.labels() + n.pods().stream().map(ConstrainedClustersTest::describe).toList()).toList())
        .isEqualTo(first.nodes().stream().map(n -> n.name() + n.labels() + n.pods().stream().map(ConstrainedClustersTest::describe).toList()).toList());
    assertThat(second.templates()).isEqualTo(first.templates());
  }

  /** What of a pod the cases set: name, labels, requests and every constraint. */
  private static String describe(Pod pod) {
    return String.join(
        "|",
        pod.uid(),
        String.valueOf(new java.util.TreeMap<>(pod.labels())),
        String.valueOf(pod.requests()),
        String.valueOf(new java.util.TreeMap<>(pod.nodeSelector())),
        String.valueOf(pod.tolerations()),
        String.valueOf(pod.requiredPodAffinity()),
        String.valueOf(pod.requiredPodAntiAffinity()),
        String.valueOf(pod.topologySpreadConstraints()),
        String.valueOf(pod.persistentVolumeClaims()));
  }

  @Test
  void theCasesCoverTheIssuesConstraints() {
    List<Pod> pods = new java.util.ArrayList<>();
    List<SchedulingInput> inputs = new java.util.ArrayList<>();
    for (ConstrainedClusters cluster : ConstrainedClusters.values()) {
      SchedulingInput input = cluster.input(CATALOGUE);
      inputs.add(input);
      pods.addAll(input.pendingPods());
    }
    assertThat(ConstrainedClusters.values()).hasSizeGreaterThanOrEqualTo(10);
    assertThat(pods).anyMatch(p -> p.topologySpreadConstraints().stream().anyMatch(t -> t.topologyKey().equals(Labels.ZONE)));
    assertThat(pods).anyMatch(p -> p.topologySpreadConstraints().stream().anyMatch(t -> t.topologyKey().equals(Labels.HOSTNAME)));
    assertThat(pods).anyMatch(p -> p.requiredPodAntiAffinity().stream().anyMatch(t -> t.topologyKey().equals(Labels.HOSTNAME)));
    assertThat(pods).anyMatch(p -> p.requiredPodAntiAffinity().stream().anyMatch(t -> t.topologyKey().equals(Labels.ZONE)));
    assertThat(pods).anyMatch(p -> !p.requiredPodAffinity().isEmpty());
    assertThat(pods).anyMatch(p -> !p.tolerations().isEmpty());
    assertThat(pods).anyMatch(p -> "arm64".equals(p.nodeSelector().get(Labels.ARCH)));
    assertThat(pods).anyMatch(p -> !p.persistentVolumeClaims().isEmpty());
    assertThat(pods).anyMatch(p -> p.requests().milli(AwsLabels.RESOURCE_NVIDIA_GPU) > 0);
    assertThat(inputs).anyMatch(i -> !i.nodes().isEmpty());
    assertThat(inputs).anyMatch(i -> i.templates().size() >= 3 && i.templates().stream().anyMatch(t -> t.limits() != null));
    assertThat(inputs)
        .anyMatch(i -> i.templates().stream().anyMatch(t -> java.util.stream.StreamSupport.stream(t.requirements().spliterator(), false).anyMatch(r -> r.minValues() != null)));
  }

  @Test
  void theIssuesExampleIs110PodsOfAbout45CpuSpreadOverZones() {
    SchedulingInput input = ConstrainedClusters.ZONE_SPREAD_110.input(CATALOGUE);

    double cpu = input.pendingPods().stream().mapToLong(p -> p.requests().cpuMilli()).sum() / 1000.0;
    assertThat(input.pendingPods()).hasSize(110);
    assertThat(cpu).isBetween(40.0, 50.0);
    assertThat(input.pendingPods())
        .allMatch(p -> p.topologySpreadConstraints().stream().anyMatch(t -> t.maxSkew() == 1 && t.topologyKey().equals(Labels.ZONE)));
  }
}
