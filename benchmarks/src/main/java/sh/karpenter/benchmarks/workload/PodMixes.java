package sh.karpenter.benchmarks.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * The pod mixes of upstream's scheduling benchmark ({@code scheduling_benchmark_test.go} in {@code
 * pkg/controllers/provisioning/scheduling}: {@code makeDiversePods}, {@code makePreferencePods}),
 * built the same way: requests drawn from the same CPU and memory lists, label values from {@code
 * a..g}, seed 42. Go's and Java's generators differ, so the pods are the same in distribution, not
 * one for one; BENCHMARKS.md lists the other differences.
 */
public final class PodMixes {

  /** Upstream's RNG seed. */
  public static final long SEED = 42;

  /** Upstream's spelling of the self-affinity label key (sic), kept so the mixes are comparable. */
  public static final String AFFINITY_LABEL = "my-affininity";

  public static final String SPREAD_LABEL = "my-label";

  /** The zone preferred by every pod of the preference case. */
  public static final String PREFERRED_ZONE = "test-zone-1";

  private static final List<String> CPU = List.of("100m", "250m", "500m", "1000m", "1500m");
  private static final List<String> MEMORY = List.of("100Mi", "256Mi", "512Mi", "1024Mi", "2048Mi", "4096Mi");
  private static final List<String> LABEL_VALUES = List.of("a", "b", "c", "d", "e", "f", "g");
  private static final Map<String, String> NGINX = Map.of("app", "nginx");

  private PodMixes() {}

  /**
   * Upstream's {@code makeDiversePods(count)}: {@code count / 5} pods of each of generic, zonal
   * spread, hostname spread, zonal self-affinity and hostname anti-affinity, then generic pods for the
   * remainder.
   *
   * <ul>
   *   <li>generic: a random {@code my-label} and nothing else;
   *   <li>spread: maxSkew 1, DoNotSchedule, selector {@code my-label} = a random value (drawn apart
   *       from the pod's own random {@code my-label}, as upstream does);
   *   <li>self-affinity: required pod affinity on the zone to pods sharing its random {@code
   *       my-affininity} value;
   *   <li>anti-affinity: every such pod is {@code app=nginx} with required hostname anti-affinity to
   *       {@code app=nginx}, so each needs a node of its own.
   * </ul>
   */
  public static List<Pod> diverse(int count) {
    PodFactory factory = new PodFactory(SEED);
    int perKind = count / 5;
    List<Pod> pods = new ArrayList<>(count);
    generic(factory, perKind, pods);
    spread(factory, perKind, Labels.ZONE, pods);
    spread(factory, perKind, Labels.HOSTNAME, pods);
    selfAffinity(factory, perKind, Labels.ZONE, pods);
    antiAffinity(factory, perKind, Labels.HOSTNAME, pods);
    generic(factory, count - pods.size(), pods);
    return pods;
  }

  /**
   * Pure hostname anti-affinity: {@code count} {@code app=nginx} pods that may not share a node with
   * one another (the "self anti-affinity" case of upstream PR #958 and the performance suite).
   */
  public static List<Pod> antiAffinity(int count) {
    List<Pod> pods = new ArrayList<>(count);
    antiAffinity(new PodFactory(SEED), count, Labels.HOSTNAME, pods);
    return pods;
  }

  /**
   * Upstream's preference case ({@code BenchmarkRespectPreferences}, 4,000 pods): {@code app=nginx}
   * pods preferring zone {@code test-zone-1} (weight 1), preferring zone anti-affinity to each other
   * (weight 10: unsatisfiable beyond one pod per zone, so it must be relaxed away) and preferring
   * hostname anti-affinity (weight 1). All pods have the same requests, drawn once: upstream builds
   * them with {@code test.Pods(count, options)} from one options value.
   */
  public static List<Pod> preferences(int count) {
    PodFactory factory = new PodFactory(SEED);
    Resources requests = requests(factory);
    Requirements preferredZone = Requirements.of(Requirement.in(Labels.ZONE, PREFERRED_ZONE));
    WeightedPodAffinityTerm zoneAntiAffinity =
        new WeightedPodAffinityTerm(10, PodAffinityTerm.of(LabelSelector.of(NGINX), Labels.ZONE));
    WeightedPodAffinityTerm hostnameAntiAffinity =
        new WeightedPodAffinityTerm(1, PodAffinityTerm.of(LabelSelector.of(NGINX), Labels.HOSTNAME));
    List<Pod> pods = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      pods.add(
          factory
              .pod("preferences", NGINX, requests)
              .preferredNodeAffinity(1, preferredZone)
              .preferredPodAntiAffinity(zoneAntiAffinity)
              .preferredPodAntiAffinity(hostnameAntiAffinity)
              .build());
    }
    return pods;
  }

  private static void generic(PodFactory factory, int count, List<Pod> pods) {
    for (int i = 0; i < count; i++) {
      pods.add(factory.pod("generic", spreadLabels(factory), requests(factory)).build());
    }
  }

  private static void spread(PodFactory factory, int count, String topologyKey, List<Pod> pods) {
    String kind = topologyKey.equals(Labels.ZONE) ? "zonal-spread" : "hostname-spread";
    for (int i = 0; i < count; i++) {
      Map<String, String> labels = spreadLabels(factory);
      TopologySpreadConstraint constraint =
          TopologySpreadConstraint.of(
              1, topologyKey, WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(spreadLabels(factory)));
      pods.add(factory.pod(kind, labels, requests(factory)).topologySpreadConstraint(constraint).build());
    }
  }

  private static void selfAffinity(PodFactory factory, int count, String topologyKey, List<Pod> pods) {
    for (int i = 0; i < count; i++) {
      Map<String, String> labels = Map.of(AFFINITY_LABEL, factory.pick(LABEL_VALUES));
      pods.add(
          factory
              .pod("self-affinity", labels, requests(factory))
              .requiredPodAffinity(PodAffinityTerm.of(LabelSelector.of(labels), topologyKey))
              .build());
    }
  }

  private static void antiAffinity(PodFactory factory, int count, String topologyKey, List<Pod> pods) {
    PodAffinityTerm term = PodAffinityTerm.of(LabelSelector.of(NGINX), topologyKey);
    for (int i = 0; i < count; i++) {
      pods.add(factory.pod("anti-affinity", NGINX, requests(factory)).requiredPodAntiAffinity(term).build());
    }
  }

  private static Map<String, String> spreadLabels(PodFactory factory) {
    return Map.of(SPREAD_LABEL, factory.pick(LABEL_VALUES));
  }

  private static Resources requests(PodFactory factory) {
    return Resources.builder().cpu(factory.pick(CPU)).memory(factory.pick(MEMORY)).build();
  }
}
