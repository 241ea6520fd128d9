package sh.karpenter.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.state.StateSnapshot;

/** What an unschedulable pod's reason says about NodePools left out because they are not Ready. */
class NotReadyNodePoolsTest {
  private static StateSnapshot snapshot(Map<String, String> notReady) {
    return new StateSnapshot(null, Map.of(), Map.of(), notReady, Map.of(), Set.of(), List.of());
  }

  @Test
  void nothingWhenEveryNodePoolIsReady() {
    assertThat(Provisioner.notReadyNodePools(snapshot(Map.of()))).isEmpty();
  }

  @Test
  void namesTheNotReadyNodePoolsWithWhy() {
    assertThat(Provisioner.notReadyNodePools(snapshot(Map.of("gpu", "not ready (Ready=False, NodeClassNotFound: NodeClass not found on cluster)"))))
        .isEqualTo("ignored nodepool \"gpu\" not ready (Ready=False, NodeClassNotFound: NodeClass not found on cluster)");
  }

  @Test
  void namesAtMostThree() {
    Map<String, String> notReady = new LinkedHashMap<>();
    for (String name : List.of("a", "b", "c", "d", "e")) {
      notReady.put(name, "not ready: no Ready condition yet");
    }
    assertThat(Provisioner.notReadyNodePools(snapshot(notReady)))
        .startsWith("ignored nodepool \"a\" not ready: no Ready condition yet; nodepool \"b\"")
        .contains("nodepool \"c\"")
        .doesNotContain("nodepool \"d\"")
        .endsWith("; and 2 other nodepool(s) not ready");
  }
}
