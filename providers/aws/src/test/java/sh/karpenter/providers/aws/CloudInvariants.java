package sh.karpenter.providers.aws;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.testkit.fixtures.TestObjects;
import software.amazon.awssdk.services.ec2.model.Instance;

/**
 * The cloud side of issue 16's invariants, instances ↔ NodeClaims ↔ Nodes, for the AWS end-to-end
 * tests (docs/behaviour/aws-launch.md). While it runs, every 500 ms it checks what must hold at every
 * moment: every Karpenter Node has a NodeClaim with its provider ID unless the Node is being deleted,
 * and no two Nodes share a provider ID. {@link #unsettled} lists what must hold once the cluster has
 * settled: every live instance of the cluster belongs to a NodeClaim (nothing leaked, nothing launched
 * twice), every NodeClaim has its instance and a Node and none is being deleted, and the pods of the
 * given apps are all Running.
 */
final class CloudInvariants implements AutoCloseable {
  private final AwsE2EFixture e2e;
  private final KubernetesClient client;
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService monitor = Executors.newSingleThreadScheduledExecutor();

  CloudInvariants(AwsE2EFixture e2e) {
    this.e2e = e2e;
    this.client = e2e.client;
    monitor.scheduleWithFixedDelay(this::checkContinuous, 0, 500, TimeUnit.MILLISECONDS);
  }

  /** What broke the continuous invariants so far, each with what was seen. */
  List<String> violations() {
    return List.copyOf(violations);
  }

  private void checkContinuous() {
    try {
      // NodeClaims first: a Node registered in between has its NodeClaim in the later list of Nodes' view
      Set<String> claimed = new HashSet<>();
      e2e.operator.informers().nodeClaims().getStore().list().forEach(c -> claimed.add(providerId(c)));
      Map<String, String> nodeOfProviderId = new HashMap<>();
      for (Node node : e2e.operator.informers().nodes().getStore().list()) {
        if (node.getMetadata().getLabels() == null || !node.getMetadata().getLabels().containsKey(Labels.NODE_POOL)) {
          continue;
        }
        String providerId = node.getSpec().getProviderID();
        String other = nodeOfProviderId.put(providerId, node.getMetadata().getName());
        if (other != null) {
          violations.add("Nodes " + other + " and " + node.getMetadata().getName() + " share provider ID " + providerId);
        }
        if (node.getMetadata().getDeletionTimestamp() == null && !claimed.contains(providerId)
            && !claimedNow(providerId)) {
          violations.add("Node " + node.getMetadata().getName() + " (" + providerId + ") has no NodeClaim and is not being deleted");
        }
      }
    } catch (RuntimeException e) {
      // a failed read (the fixture closing) is not a violation
    }
  }

  /** The API server's word, for a Node the caches show without its NodeClaim (the caches lag each other). */
  private boolean claimedNow(String providerId) {
    return client.resources(NodeClaim.class).list().getItems().stream().anyMatch(c -> providerId.equals(providerId(c)));
  }

  /**
   * What does not hold yet of the settled state, empty when everything does: each live instance of
   * the cluster is a NodeClaim's, each NodeClaim has one live instance and a Node and is not being
   * deleted, and {@code runningPods} of each app are Running (and no more pods of it exist).
   */
  List<String> unsettled(Map<String, Integer> runningPods) {
    List<String> problems = new ArrayList<>();
    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    List<Instance> instances = e2e.karpenterInstances();
    Map<String, Integer> instancesOfProviderId = new HashMap<>();
    for (Instance instance : instances) {
      instancesOfProviderId.merge(InstanceProvider.providerId(instance.placement().availabilityZone(), instance.instanceId()), 1, Integer::sum);
    }
    Set<String> claimed = new HashSet<>();
    Set<String> nodes = new HashSet<>();
    client.nodes().list().getItems().forEach(n -> nodes.add(n.getSpec().getProviderID()));
    for (NodeClaim claim : claims) {
      String providerId = providerId(claim);
      claimed.add(providerId);
      String name = claim.getMetadata().getName();
      if (claim.getMetadata().getDeletionTimestamp() != null) {
        problems.add("NodeClaim " + name + " is being deleted");
      }
      if (instancesOfProviderId.getOrDefault(providerId, 0) != 1) {
        problems.add("NodeClaim " + name + " (" + providerId + ") has " + instancesOfProviderId.getOrDefault(providerId, 0) + " live instances");
      }
      if (!nodes.contains(providerId)) {
        problems.add("NodeClaim " + name + " (" + providerId + ") has no Node");
      }
    }
    instancesOfProviderId.keySet().stream().filter(id -> !claimed.contains(id))
        .forEach(id -> problems.add("instance " + id + " is no NodeClaim's (leaked or launched twice)"));
    runningPods.forEach((app, expected) -> {
      List<Pod> pods = client.pods().withLabel("app", app).list().getItems();
      long running = pods.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null && TestObjects.running(p)).count();
      if (running != expected || pods.size() != expected) {
        problems.add("app " + app + ": " + running + " of " + pods.size() + " pods Running, " + expected + " expected");
      }
    });
    return problems;
  }

  private static String providerId(NodeClaim claim) {
    return claim.getStatus() == null || claim.getStatus().getProviderID() == null ? "" : claim.getStatus().getProviderID();
  }

  @Override
  public void close() {
    monitor.shutdownNow();
  }
}
