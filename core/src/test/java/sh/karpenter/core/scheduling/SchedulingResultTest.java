package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;

class SchedulingResultTest {
  /** The lower bound is taken over {@code placedPods()} in its order, so the order must not depend on the map's. */
  @Test
  void podsOnExistingNodesComeInNodeNameOrder() {
    Map<String, List<Pod>> placements = new HashMap<>();
    for (int i = 20; i > 0; i--) {
      placements.put("node-" + (char) ('a' + i), List.of(pod("p-" + i)));
    }
    SchedulingResult result = new SchedulingResult(List.of(), placements, List.of());
    List<String> names = result.placedPods().stream().map(Pod::name).toList();
    assertThat(names).hasSize(20).startsWith("p-1", "p-2", "p-3").endsWith("p-20");
  }

  private static Pod pod(String name) {
    return Pod.builder().namespace("default").name(name).container(Resources.builder().cpu("1").memory("1Gi").build()).build();
  }
}
