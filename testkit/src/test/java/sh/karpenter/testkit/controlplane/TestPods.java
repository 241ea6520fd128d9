package sh.karpenter.testkit.controlplane;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Optional;

/** Pods and condition look-ups shared by the control-plane integration tests. */
final class TestPods {

  private TestPods() {}

  /** A single-container pod requesting {@code cpu}, labelled {@code app=<app>}. */
  static Pod pod(String name, String app, String cpu) {
    return new PodBuilder()
        .withNewMetadata().withName(name).addToLabels("app", app).endMetadata()
        .withNewSpec()
          .addNewContainer()
            .withName("main")
            .withImage("registry.k8s.io/pause:3.10")
            .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources()
          .endContainer()
        .endSpec()
        .build();
  }

  static Optional<PodCondition> condition(Pod pod, String type) {
    return pod == null || pod.getStatus() == null
        ? Optional.empty()
        : pod.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  static boolean isRunningAndReady(Pod pod) {
    return pod != null && "Running".equals(pod.getStatus().getPhase())
        && condition(pod, "Ready").filter(c -> "True".equals(c.getStatus())).isPresent();
  }

  static boolean isReady(Node node) {
    return node != null && node.getStatus() != null && node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
