package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.label;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;
import static sh.karpenter.core.scheduling.SchedulingHarness.req;
import static sh.karpenter.core.scheduling.SchedulingHarness.resources;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

/**
 * Required pod affinity to pods of the same batch (upstream's topology_test.go "pod affinity"
 * scenarios and scheduler.go's queue): a pod whose target is not placed yet fails, goes to the back
 * of the queue, and is placed once its target is, in the same pass, whatever the queue's order; and
 * pods pinned by hostname affinity to an existing node get its room before pods that could go
 * elsewhere (docs/behaviour/scheduling.md#pod-affinity-in-one-pass).
 */
class PendingPodAffinityTest {
  private static final Map<String, String> TARGET = Map.of("security", "s2");
  private SchedulingHarness env;

  @BeforeEach
  void setUp() {
    env = new SchedulingHarness();
  }

  private static PodAffinityTerm affinity(Map<String, String> labels, String key) {
    return PodAffinityTerm.of(LabelSelector.of(labels), key);
  }

  private static ExistingNode node(String name, String zone, String cpu, List<Pod> pods) {
    return new ExistingNode(
        name, Map.of(Labels.HOSTNAME, name, Labels.ZONE, zone, Labels.NODE_POOL, "default"), List.of(),
        resources("cpu", cpu, "memory", "64Gi", "pods", "110"), pods, true, "default");
  }

  @Test
  @DisplayName("should respect pod affinity (hostname) to a pod of the same batch")
  void hostnameAffinityToPendingPod() {
    env.defaultNodePool();
    Map<String, String> spreadLabels = Map.of("test", "test");
    TopologySpreadConstraint spread =
        TopologySpreadConstraint.of(1, Labels.HOSTNAME, WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(spreadLabels));
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pods.add(pod().labels(spreadLabels).topologySpreadConstraint(spread).build());
    }
    Pod target = pod().labels(TARGET).build();
    Pod follower = pod().requiredPodAffinity(affinity(TARGET, Labels.HOSTNAME)).build();
    pods.add(target);
    pods.add(follower);
    env.provision(pods);
    assertThat(env.expectScheduled(follower)).isSameAs(env.expectScheduled(target));
  }

  @Test
  @DisplayName("should place pods with hostname affinity to a pending target tried after them")
  void hostnameAffinityTriedBeforeItsTarget() {
    env.defaultNodePool();
    // Larger pods are tried first, so every follower fails once before the target is placed.
    Pod target = pod("100m").labels(TARGET).build();
    List<Pod> followers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      followers.add(pod("1").requiredPodAffinity(affinity(TARGET, Labels.HOSTNAME)).build());
    }
    List<Pod> pods = new ArrayList<>(followers);
    pods.add(target);
    env.provision(pods);
    assertThat(env.result.unschedulable()).isEmpty();
    PlannedNodeClaim claim = env.expectScheduled(target);
    for (Pod follower : followers) {
      assertThat(env.expectScheduled(follower)).isSameAs(claim);
    }
  }

  @Test
  @DisplayName("should support pod affinity with zone topology (constrained target)")
  void zoneAffinityConstrainedTarget() {
    env.defaultNodePool();
    Pod target = pod().labels(TARGET).requiredNodeAffinityTerm(Requirements.of(req(Labels.ZONE, Operator.In, "test-zone-1"))).build();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pods.add(pod().requiredPodAffinity(affinity(TARGET, Labels.ZONE)).build());
    }
    pods.add(target);
    env.provision(pods);
    assertThat(env.result.unschedulable()).isEmpty();
    assertThat(env.spread(Labels.ZONE, pods)).containsExactly(Map.entry("test-zone-1", 11));
  }

  @Test
  @DisplayName("should support pod affinity with zone topology (unconstrained target), once the target's zone is known")
  void zoneAffinityUnconstrainedTarget() {
    env.defaultNodePool();
    Pod target = pod().labels(TARGET).build();
    List<Pod> followers = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      followers.add(pod().requiredPodAffinity(affinity(TARGET, Labels.ZONE)).build());
    }
    List<Pod> pods = new ArrayList<>(followers);
    pods.add(target);
    env.provision(pods);
    // As upstream: the target's NodeClaim may still launch in any zone, so its followers wait.
    PlannedNodeClaim claim = env.expectScheduled(target);
    for (Pod follower : followers) {
      env.expectNotScheduled(follower);
    }
    // Once the target runs on a node, its zone is known and they follow it.
    String zone = label(claim, Labels.ZONE);
    Pod bound = target.toBuilder().nodeName("node-1").build();
    env = new SchedulingHarness();
    env.defaultNodePool();
    env.node(node("node-1", zone, "100m", List.of(bound)));
    env.provision(followers);
    assertThat(env.result.unschedulable()).isEmpty();
    assertThat(env.spread(Labels.ZONE, followers)).containsExactly(Map.entry(zone, 10));
  }

  @Test
  @DisplayName("should handle multiple dependent affinities whatever the queue's order")
  void dependentHostnameAffinities() {
    Map<String, String> db = Map.of("type", "db");
    Map<String, String> web = Map.of("type", "web");
    Map<String, String> cache = Map.of("type", "cache");
    // db -> web -> cache -> ui must be placed in that order, but the queue (largest first) tries ui first.
    for (int round = 0; round < 5; round++) {
      env = new SchedulingHarness();
      env.defaultNodePool();
      Pod dbPod = pod("100m").labels(db).build();
      Pod webPod = pod("200m").labels(web).requiredPodAffinity(affinity(db, Labels.HOSTNAME)).build();
      Pod cachePod = pod("300m").labels(cache).requiredPodAffinity(affinity(web, Labels.HOSTNAME)).build();
      Pod uiPod = pod("400m").requiredPodAffinity(affinity(cache, Labels.HOSTNAME)).build();
      env.provision(uiPod, cachePod, webPod, dbPod);
      assertThat(env.result.unschedulable()).isEmpty();
      PlannedNodeClaim claim = env.expectScheduled(dbPod);
      assertThat(List.of(env.expectScheduled(webPod), env.expectScheduled(cachePod), env.expectScheduled(uiPod)))
          .allMatch(c -> c == claim);
    }
  }

  @Test
  @DisplayName("should keep an existing node's room for the pods whose hostname affinity can only be met there")
  void hostnameAffinityToExistingNodeKeepsItsRoom() {
    env.defaultNodePool();
    // The proxy's node has 2.5 CPU free: the four agents (500m each) need 2 of it. The apps (1 CPU
    // each, tried first) may run anywhere in the zone, so they must not take the agents' room.
    Map<String, String> proxy = Map.of("app", "proxy");
    Map<String, String> cache = Map.of("app", "cache");
    Pod proxyPod = pod("500m").labels(proxy).nodeName("proxy-node").build();
    Pod cachePod = pod("1").labels(cache).nodeName("proxy-node").build();
    env.node(node("proxy-node", "test-zone-2", "4", List.of(proxyPod, cachePod)));
    List<Pod> agents = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      agents.add(pod("500m").requiredPodAffinity(affinity(proxy, Labels.HOSTNAME)).build());
    }
    List<Pod> apps = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      apps.add(pod("1").requiredPodAffinity(affinity(cache, Labels.ZONE)).build());
    }
    List<Pod> pods = new ArrayList<>(apps);
    pods.addAll(agents);
    env.provision(pods);
    assertThat(env.result.unschedulable()).isEmpty();
    for (Pod agent : agents) {
      assertThat(env.existingNodeOf(agent)).isEqualTo("proxy-node");
    }
    assertThat(env.spread(Labels.ZONE, apps)).containsExactly(Map.entry("test-zone-2", 6));
  }
}
