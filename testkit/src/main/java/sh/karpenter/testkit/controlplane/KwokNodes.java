package sh.karpenter.testkit.controlplane;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Nodes for KWOK, which stands in for kubelets on the test control plane: it manages the Nodes
 * carrying {@link #ANNOTATION}{@code =}{@link #ANNOTATION_VALUE}, turns them Ready, keeps their
 * leases fresh, and runs the pods bound to them.
 */
public final class KwokNodes {

  /** The annotation KWOK selects the Nodes it manages by ({@code scripts/control-plane up}). */
  public static final String ANNOTATION = "kwok.x-k8s.io/node";
  public static final String ANNOTATION_VALUE = "fake";

  private KwokNodes() {}

  /** A KWOK-managed Node with the given capacity (also its allocatable) and room for 110 pods. */
  public static Node node(String name, String cpu, String memory) {
    Map<String, Quantity> capacity = Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory), "pods", new Quantity("110"));
    return new NodeBuilder()
        .withNewMetadata()
          .withName(name)
          .addToAnnotations(ANNOTATION, ANNOTATION_VALUE)
          .addToLabels("kubernetes.io/hostname", name)
        .endMetadata()
        .withNewStatus().withCapacity(capacity).withAllocatable(capacity).endStatus()
        .build();
  }

  /**
   * What a Node's kubelet does when its machine is gone: nothing. KWOK stops managing the Node (its
   * annotation goes) and the Node's Ready condition turns Unknown, as the node lifecycle controller
   * sets it once the heartbeats stop (with the transition at this moment).
   */
  public static void stopKubelet(KubernetesClient client, String nodeName) {
    client.nodes().withName(nodeName).edit(node -> {
      node.getMetadata().getAnnotations().remove(ANNOTATION);
      return node;
    });
    Node node = client.nodes().withName(nodeName).get();
    node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).forEach(c -> {
      c.setStatus("Unknown");
      c.setReason("NodeStatusUnknown");
      c.setMessage("Kubelet stopped posting node status.");
      c.setLastTransitionTime(java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
    });
    client.nodes().resource(node).updateStatus();
  }
}
