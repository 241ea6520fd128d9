package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.Labels;

/**
 * A small test bed in the spirit of upstream's {@code ExpectProvisioned}/{@code ExpectScheduled}:
 * NodePools, existing nodes and DaemonSets are set up, pods are provisioned, and the result is
 * queried per pod.
 */
final class SchedulingHarness {
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  final List<NodeClaimTemplate> templates = new ArrayList<>();
  final List<ExistingNode> nodes = new ArrayList<>();
  final List<Pod> daemonSets = new ArrayList<>();
  VolumeTopology volumes = VolumeTopology.EMPTY;
  SchedulerOptions options = SchedulerOptions.DEFAULT;
  Map<String, Map<String, String>> namespaceLabels = Map.of();
  SchedulingResult result;

  /** A pod builder with a unique name and UID, created after every pod built before it. */
  static Pod.Builder pod() {
    int n = SEQUENCE.incrementAndGet();
    return Pod.builder().name("pod-" + n).uid(String.format("uid-%06d", n)).creationTimestampMillis(n);
  }

  static Pod.Builder pod(String cpu, String memory) {
    return pod().container(Resources.builder().cpu(cpu).memory(memory).build());
  }

  static Pod.Builder pod(String cpu) {
    return pod().container(Resources.builder().cpu(cpu).build());
  }

  static Resources resources(String... nameQuantityPairs) {
    Resources.Builder builder = Resources.builder();
    for (int i = 0; i < nameQuantityPairs.length; i += 2) {
      builder.quantity(nameQuantityPairs[i], nameQuantityPairs[i + 1]);
    }
    return builder.build();
  }

  static Requirement req(String key, Operator op, String... values) {
    return Requirement.of(key, op, Arrays.asList(values));
  }

  static Requirements reqs(Requirement... requirements) {
    return Requirements.of(requirements);
  }

  /** A NodePool template under construction. */
  static final class NodePool {
    String name;
    int weight;
    Map<String, String> labels = new HashMap<>();
    List<Taint> taints = new ArrayList<>();
    List<Taint> startupTaints = new ArrayList<>();
    Requirements requirements = new Requirements();
    Resources limits;
    Resources usage = Resources.EMPTY;
    List<InstanceType> instanceTypes = FakeInstanceTypes.defaults();

    NodePool(String name) {
      this.name = name;
    }

    NodePool weight(int w) {
      weight = w;
      return this;
    }

    NodePool label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    NodePool taint(Taint t) {
      taints.add(t);
      return this;
    }

    NodePool startupTaint(Taint t) {
      startupTaints.add(t);
      return this;
    }

    NodePool require(Requirement r) {
      requirements.add(r);
      return this;
    }

    NodePool limits(Resources l) {
      limits = l;
      return this;
    }

    NodePool usage(Resources u) {
      usage = u;
      return this;
    }

    NodePool instanceTypes(List<InstanceType> types) {
      instanceTypes = types;
      return this;
    }

    NodeClaimTemplate build() {
      Requirements all = requirements.copy().add(Requirement.in(Labels.NODE_POOL, name));
      return new NodeClaimTemplate(name, weight, labels, Map.of(), taints, startupTaints, all, limits, usage, instanceTypes);
    }
  }

  SchedulingHarness nodePool(NodePool pool) {
    templates.add(pool.build());
    return this;
  }

  /** The default NodePool over upstream's default fake catalogue. */
  SchedulingHarness defaultNodePool() {
    return nodePool(new NodePool("default"));
  }

  SchedulingHarness node(ExistingNode node) {
    nodes.add(node);
    return this;
  }

  SchedulingHarness daemonSet(Pod pod) {
    daemonSets.add(pod);
    return this;
  }

  SchedulingResult provision(Pod... pods) {
    return provision(List.of(pods));
  }

  SchedulingResult provision(List<Pod> pods) {
    result = new Scheduler(new SchedulingInput(templates, nodes, pods, daemonSets, volumes, options, namespaceLabels)).solve();
    assertThat(result.newNodeClaims().stream().mapToInt(c -> c.pods().size()).sum()
            + result.existingNodePlacements().values().stream().mapToInt(List::size).sum()
            + result.unschedulable().size()
            + result.deferred().size())
        .as("every pending pod appears exactly once")
        .isEqualTo(pods.size());
    return result;
  }

  /** Provisions {@code pods} in a pass that stops once {@code deadline} has passed. */
  SchedulingResult provision(Deadline deadline, List<Pod> pods) {
    result = new Scheduler(new SchedulingInput(templates, nodes, pods, daemonSets, volumes, options, namespaceLabels)).solve(deadline);
    return result;
  }


  /** The NodeClaim a pod was planned on; fails when it was not planned on a new NodeClaim. */
  PlannedNodeClaim expectScheduled(Pod pod) {
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      if (claim.pods().contains(pod)) {
        return claim;
      }
    }
    for (PodError error : result.unschedulable()) {
      if (error.pod() == pod) {
        return fail("expected %s to schedule, but: %s", pod.key(), error.reason());
      }
    }
    return fail("expected %s on a new NodeClaim, but it went to an existing node", pod.key());
  }

  /** The existing node a pod was placed on, or null. */
  String existingNodeOf(Pod pod) {
    for (Map.Entry<String, List<Pod>> entry : result.existingNodePlacements().entrySet()) {
      if (entry.getValue().contains(pod)) {
        return entry.getKey();
      }
    }
    return null;
  }

  /** The reason the pod could not schedule; fails when it was scheduled. */
  String expectNotScheduled(Pod pod) {
    for (PodError error : result.unschedulable()) {
      if (error.pod() == pod) {
        return error.reason();
      }
    }
    return fail("expected %s not to schedule", pod.key());
  }

  void expectNotScheduled(Pod pod, String reasonFragment) {
    assertThat(expectNotScheduled(pod)).contains(reasonFragment);
  }

  /** The label value a planned NodeClaim will have for a key: its single allowed value, or null. */
  static String label(PlannedNodeClaim claim, String key) {
    if (claim.labels().containsKey(key)) {
      return claim.labels().get(key);
    }
    Requirement r = claim.requirements().get(key);
    if (!claim.requirements().has(key) || r.complement() || r.size() != 1) {
      if (Labels.INSTANCE_TYPE.equals(key)) {
        return claim.cheapestInstanceType().name();
      }
      if (Labels.ZONE.equals(key) || Labels.CAPACITY_TYPE.equals(key)) {
        return Labels.ZONE.equals(key) ? claim.cheapestOffering().zone() : claim.cheapestOffering().capacityType();
      }
      return null;
    }
    return r.any();
  }

  /** Pod count per value of a label over the planned NodeClaims (and existing nodes' labels). */
  Map<String, Integer> spread(String key, List<Pod> pods) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      for (Pod pod : claim.pods()) {
        if (pods.contains(pod)) {
          String value = Labels.HOSTNAME.equals(key) ? "claim-" + System.identityHashCode(claim) : label(claim, key);
          counts.merge(value, 1, Integer::sum);
        }
      }
    }
    for (ExistingNode node : nodes) {
      for (Pod pod : result.existingNodePlacements().getOrDefault(node.name(), List.of())) {
        if (pods.contains(pod)) {
          counts.merge(Labels.HOSTNAME.equals(key) ? node.name() : node.labels().get(key), 1, Integer::sum);
        }
      }
    }
    return counts;
  }
}
