package sh.karpenter.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.wellknown.Labels;

class PodMixesTest {

  @Test
  void diverseMixHasAFifthOfEachKindAndGenericRemainder() {
    List<Pod> pods = PodMixes.diverse(1003);

    assertThat(pods).hasSize(1003);
    assertThat(pods.stream().map(Pod::key).distinct()).hasSize(1003);
    Map<String, Long> byKind = pods.stream().collect(Collectors.groupingBy(PodMixesTest::kind, Collectors.counting()));
    assertThat(byKind)
        .containsEntry("generic", 200L + 3)
        .containsEntry("zonal-spread", 200L)
        .containsEntry("hostname-spread", 200L)
        .containsEntry("self-affinity", 200L)
        .containsEntry("anti-affinity", 200L);
  }

  @Test
  void diverseMixConstraintsFollowUpstream() {
    Map<String, Pod> firstOfKind =
        PodMixes.diverse(50).stream()
            .collect(Collectors.toMap(PodMixesTest::kind, Function.identity(), (a, b) -> a));

    var zonal = firstOfKind.get("zonal-spread").topologySpreadConstraints().getFirst();
    assertThat(zonal.maxSkew()).isEqualTo(1);
    assertThat(zonal.topologyKey()).isEqualTo(Labels.ZONE);
    assertThat(firstOfKind.get("hostname-spread").topologySpreadConstraints().getFirst().topologyKey())
        .isEqualTo(Labels.HOSTNAME);
    Pod selfAffinity = firstOfKind.get("self-affinity");
    assertThat(selfAffinity.requiredPodAffinity().getFirst().selector().matches(selfAffinity.labels())).isTrue();
    Pod antiAffinity = firstOfKind.get("anti-affinity");
    assertThat(antiAffinity.labels()).containsEntry("app", "nginx");
    assertThat(antiAffinity.requiredPodAntiAffinity().getFirst().topologyKey()).isEqualTo(Labels.HOSTNAME);
    assertThat(firstOfKind.get("generic").hasPodAffinity()).isFalse();
  }

  @Test
  void mixesAreReproducible() {
    assertThat(requests(PodMixes.diverse(200))).isEqualTo(requests(PodMixes.diverse(200)));
    assertThat(requests(CostMix.MIXED.pods(200))).isEqualTo(requests(CostMix.MIXED.pods(200)));
  }

  @Test
  void preferencePodsCarryOnlyPreferences() {
    Pod pod = PodMixes.preferences(4000).getLast();

    assertThat(pod.preferredNodeAffinity()).hasSize(1);
    assertThat(pod.preferredPodAntiAffinity())
        .extracting(term -> term.weight() + "@" + term.term().topologyKey())
        .containsExactly("10@" + Labels.ZONE, "1@" + Labels.HOSTNAME);
    assertThat(pod.requiredPodAntiAffinity()).isEmpty();
  }

  @Test
  void preferencePodsShareOneRequestDrawAsUpstreamsDo() {
    assertThat(requests(PodMixes.preferences(100)).stream().distinct()).hasSize(1);
  }

  @Test
  void costMixesAreUnconstrained() {
    for (CostMix mix : CostMix.values()) {
      assertThat(mix.pods(100))
          .allSatisfy(
              pod -> {
                assertThat(pod.hasPodAffinity()).isFalse();
                assertThat(pod.topologySpreadConstraints()).isEmpty();
                assertThat(pod.nodeSelector()).isEmpty();
              });
    }
  }

  private static String kind(Pod pod) {
    return pod.name().substring(0, pod.name().lastIndexOf('-'));
  }

  private static List<String> requests(List<Pod> pods) {
    return pods.stream().map(pod -> pod.requests().toString()).toList();
  }
}
