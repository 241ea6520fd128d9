package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * Upstream's {@code makeDiversePods} (scheduling_benchmark_test.go): a fifth each of generic pods,
 * zonal spread, hostname spread, zonal self-affinity and hostname anti-affinity, the remainder
 * generic, with random CPU and memory requests. Deterministic for a seed.
 */
final class DiverseMixWorkload {
  private static final String[] CPU = {"100m", "250m", "500m", "1000m", "1500m"};
  private static final String[] MEMORY = {"100Mi", "256Mi", "512Mi", "1024Mi", "2048Mi", "4096Mi"};
  private static final String[] VALUES = {"a", "b", "c", "d", "e", "f", "g"};

  private final Random random;
  private int sequence;

  DiverseMixWorkload(long seed) {
    this.random = new Random(seed);
  }

  List<Pod> diverse(int count) {
    int each = count / 5;
    List<Pod> pods = new ArrayList<>(count);
    pods.addAll(generic(each));
    pods.addAll(spread(each, Labels.ZONE));
    pods.addAll(spread(each, Labels.HOSTNAME));
    pods.addAll(selfAffinity(each, Labels.ZONE));
    pods.addAll(antiAffinity(each, Labels.HOSTNAME));
    pods.addAll(generic(count - pods.size()));
    return pods;
  }

  List<Pod> generic(int count) {
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      pods.add(base().build());
    }
    return pods;
  }

  List<Pod> spread(int count, String key) {
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      pods.add(
          base()
              .labels(Map.of("my-label", value()))
              .topologySpreadConstraint(
                  TopologySpreadConstraint.of(
                      1, key, TopologySpreadConstraint.WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(Map.of("my-label", value()))))
              .build());
    }
    return pods;
  }

  List<Pod> selfAffinity(int count, String key) {
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Map<String, String> labels = Map.of("my-affininity", value());
      pods.add(base().labels(labels).requiredPodAffinity(PodAffinityTerm.of(LabelSelector.of(labels), key)).build());
    }
    return pods;
  }

  List<Pod> antiAffinity(int count, String key) {
    List<Pod> pods = new ArrayList<>(count);
    Map<String, String> labels = Map.of("app", "nginx");
    for (int i = 0; i < count; i++) {
      pods.add(base().labels(labels).requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(labels), key)).build());
    }
    return pods;
  }

  private Pod.Builder base() {
    int n = ++sequence;
    return Pod.builder()
        .name("bench-" + n)
        .uid(String.format("bench-uid-%07d", n))
        .creationTimestampMillis(n)
        .container(Resources.builder().cpu(CPU[random.nextInt(CPU.length)]).memory(MEMORY[random.nextInt(MEMORY.length)]).build());
  }

  private String value() {
    return VALUES[random.nextInt(VALUES.length)];
  }
}
