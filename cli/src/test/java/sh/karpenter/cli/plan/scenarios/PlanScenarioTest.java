package sh.karpenter.cli.plan.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.wellknown.Labels;

/**
 * Realistic cluster snapshots under {@code src/test/resources/scenarios/}: each plan is checked
 * against the whole contract by {@link PlanContractChecker} (inside {@link ScenarioPlan}), then
 * against what that situation specifically must produce.
 */
class PlanScenarioTest {
  private static final Map<String, InstanceType> CATALOGUE = new TreeMap<>();

  static {
    InstanceTypeCatalog.aws().instanceTypes().forEach(t -> CATALOGUE.put(t.name(), t));
  }

  @Test
  void shippedExamplesSatisfyTheChecker() {
    ScenarioPlan plan = ScenarioPlan.of(List.of(Path.of("..", "examples")));

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).containsExactly("analytics/in-memory-warehouse");
  }

  @Test
  void weightedPoolsAreTriedByDescendingWeight() {
    ScenarioPlan plan = ScenarioPlan.ofResources("weighted-pools.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    for (int i = 0; i < 6; i++) {
      JsonNode claim = plan.claimOf("shop/web-" + i);
      assertThat(claim.path("nodePool").asText()).as("web-%d", i).isEqualTo("on-demand-m");
      assertThat(claim.path("capacityType").asText()).isEqualTo("on-demand");
      assertThat(claim.at("/labels/purchase").asText()).isEqualTo("committed");
    }
    for (int i = 0; i < 3; i++) {
      assertThat(plan.claimOf("data/analytics-" + i).path("nodePool").asText()).isEqualTo("data");
    }
    assertThat(plan.claimsOf("fallback")).isEmpty();
  }

  @Test
  void poolLimitsStopProvisioningPartWayAndSayWhy() {
    ScenarioPlan plan = ScenarioPlan.ofResources("pool-limits.yaml");

    // The checker already proved capacity (existing 4 + new) <= 16 CPUs; here: it is partial.
    assertThat(plan.scheduled()).isPositive().isLessThan(20);
    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isNotEmpty().allMatch(p -> p.startsWith("work/worker-"));
    for (String pod : plan.unschedulablePods()) {
      assertThat(plan.reasonOf(pod)).as(pod).containsIgnoringCase("limit");
    }
    long newCpu = plan.claims().stream().mapToLong(c -> CATALOGUE.get(c.path("instanceType").asText()).capacity().cpuMilli()).sum();
    assertThat(newCpu).isLessThanOrEqualTo(12_000);
  }

  @Test
  void arm64OnlyPodsLandOnArm64InstanceTypesOnly() {
    ScenarioPlan plan = ScenarioPlan.ofResources("arm64.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    for (int i = 0; i < 5; i++) {
      JsonNode claim = plan.claimOf("media/encoder-" + i);
      assertThat(claim.at("/labels").path(Labels.ARCH).asText()).isEqualTo("arm64");
      claim.path("instanceTypeOptions")
          .forEach(o -> assertThat(CATALOGUE.get(o.asText()).requirements().labels()).containsEntry(Labels.ARCH, "arm64"));
    }
  }

  @Test
  void spotOnlyPoolBuysSpotAndCannotServeOnDemandPods() {
    ScenarioPlan plan = ScenarioPlan.ofResources("spot-only.yaml");

    assertThat(plan.claims()).isNotEmpty().allMatch(c -> c.path("capacityType").asText().equals("spot"));
    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).containsExactly("search/ledger");
    assertThat(plan.reasonOf("search/ledger")).contains(Labels.CAPACITY_TYPE);
  }

  @Test
  void taintedPoolTakesOnlyPodsThatTolerateIt() {
    ScenarioPlan plan = ScenarioPlan.ofResources("taints.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    for (int i = 0; i < 3; i++) {
      assertThat(plan.claimOf("ml/trainer-" + i).path("nodePool").asText()).isEqualTo("ml");
    }
    for (int i = 0; i < 4; i++) {
      assertThat(plan.claimOf("shop/api-" + i).path("nodePool").asText()).isEqualTo("general");
    }
    for (JsonNode claim : plan.claimsOf("ml")) {
      assertThat(claim.path("taints").toString()).contains("dedicated", "NoSchedule", "example.com/noisy", "PreferNoSchedule");
    }
  }

  @Test
  void zoneSpreadHoldsItsSkewOverThreeZones() {
    ScenarioPlan plan = ScenarioPlan.ofResources("zone-spread.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    Map<String, Integer> checkout = zoneCounts(plan, "shop/checkout-", 7);
    assertThat(checkout.keySet()).containsExactlyInAnyOrder("us-east-1a", "us-east-1b", "us-east-1c");
    assertThat(checkout.values()).allMatch(n -> n == 2 || n == 3);
    Map<String, Integer> search = zoneCounts(plan, "shop/search-", 8);
    int max = search.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int min = search.size() < 3 ? 0 : search.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
    assertThat(max - min).isLessThanOrEqualTo(2);
  }

  private static Map<String, Integer> zoneCounts(ScenarioPlan plan, String prefix, int replicas) {
    Map<String, Integer> counts = new TreeMap<>();
    IntStream.range(0, replicas).forEach(i -> counts.merge(plan.zoneOf(prefix + i), 1, Integer::sum));
    return counts;
  }

  @Test
  void hostnameAntiAffinityGivesEachDatabaseReplicaItsOwnNode() {
    ScenarioPlan plan = ScenarioPlan.ofResources("database-anti-affinity.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    assertEachOnANewNodeClaimOfItsOwn(plan, "db/cassandra-", 5);
    assertThat(plan.existingNodeOf("db/repair-tool")).isEqualTo("db-host-1");
  }

  @Test
  void podAffinityFollowsThePodOnTheExistingNode() {
    ScenarioPlan plan = ScenarioPlan.ofResources("pod-affinity.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    assertThat(plan.existingNodeOf("shop/sidecar-agent")).isEqualTo("cache-node");
    for (int i = 0; i < 4; i++) {
      String pod = "shop/session-" + i;
      String zone = plan.existingNodeOf(pod) != null ? "us-east-1b" : plan.zoneOf(pod);
      assertThat(zone).as(pod).isEqualTo("us-east-1b");
    }
  }

  @Test
  void daemonSetOverheadRulesOutTypesTooSmallForIt() {
    ScenarioPlan plan = ScenarioPlan.ofResources("daemonset-overhead.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    for (JsonNode claim : plan.claims()) {
      for (JsonNode option : claim.path("instanceTypeOptions")) {
        long cpu = CATALOGUE.get(option.asText()).allocatable().cpuMilli();
        assertThat(cpu).as("%s leaves room for the 3-CPU agent and a 500m pod", option.asText()).isGreaterThanOrEqualTo(3_500);
      }
    }
  }

  @Test
  void daemonSetOverheadComesFromTheDaemonSetsLivePodNotItsTemplate() {
    ScenarioPlan plan = ScenarioPlan.ofResources("daemonset-live-pod.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    JsonNode claim = plan.claimOf("default/report");
    // 1 CPU + the agent's live 2 CPUs fit a 4-vCPU type; its template's 4 CPUs would need 8 vCPUs.
    assertThat(CATALOGUE.get(claim.path("instanceType").asText()).capacity().cpuMilli()).isEqualTo(4_000);
    for (JsonNode option : claim.path("instanceTypeOptions")) {
      assertThat(CATALOGUE.get(option.asText()).allocatable().cpuMilli()).as(option.asText()).isGreaterThanOrEqualTo(3_000);
    }
  }

  @Test
  void runtimeClassOverheadAndSchedulingApplyToPodsOfATemplate() {
    ScenarioPlan plan = ScenarioPlan.ofResources("runtime-class.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    for (int i = 0; i < 2; i++) {
      JsonNode claim = plan.claimOf("jobs/untrusted-" + i);
      assertThat(claim.path("nodePool").asText()).as("the class's node selector and toleration steer it").isEqualTo("sandbox");
      for (JsonNode option : claim.path("instanceTypeOptions")) {
        // both replicas share a node: 2 × (1 CPU + 2 CPUs of Kata overhead)
        assertThat(CATALOGUE.get(option.asText()).allocatable().cpuMilli()).as(option.asText()).isGreaterThanOrEqualTo(6_000);
      }
    }
    assertThat(plan.claimOf("jobs/gvisor-probe").path("nodePool").asText()).isEqualTo("general");
    assertThat(plan.stderr).contains("spec.runtimeClassName: RuntimeClass \"gvisor\" is not among the manifests");
  }

  @Test
  void cordonedNodesTakeOnlyPodsThatTolerateTheCordon() {
    ScenarioPlan plan = ScenarioPlan.ofResources("cordoned-nodes.yaml");

    for (int i = 0; i < 3; i++) {
      assertThat(plan.existingNodeOf("shop/web-" + i)).as("web-%d", i).isNull();
      assertThat(plan.claimOf("shop/web-" + i)).as("web-%d", i).isNotNull();
    }
    assertThat(plan.existingNodeOf("ops/drain-helper")).isIn("edge-1", "edge-2");
    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).containsExactly("shop/ingress-canary");
    assertThat(plan.reasonOf("shop/ingress-canary"))
        .startsWith("existing nodes \"edge-1\", \"edge-2\" would fit the pod but are cordoned (spec.unschedulable); incompatible with nodepool \"default\"");
  }

  @Test
  void reasonsNameTheVolumeZoneAndTheHostPort() {
    ScenarioPlan plan = ScenarioPlan.ofResources("actionable-reasons.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).containsExactlyInAnyOrder("db/postgres", "batch/worker", "ops/debug-proxy");
    assertThat(plan.reasonOf("db/postgres"))
        .isEqualTo("incompatible with nodepool \"default\": volume pvc \"db/data\" is in zone us-east-1d, which nodepool \"default\" does not offer "
            + "(zones: us-east-1a, us-east-1b)");
    assertThat(plan.reasonOf("batch/worker"))
        .isEqualTo("incompatible with nodepool \"default\": volume pvc \"batch/scratch\" can only be provisioned in zone us-east-1c "
            + "(storageclass \"zone-c\" allowedTopologies), which nodepool \"default\" does not offer (zones: us-east-1a, us-east-1b)");
    assertThat(plan.reasonOf("ops/debug-proxy"))
        .startsWith("incompatible with nodepool \"default\": host port 8080/TCP is already used by daemonset \"kube-system/ingress\"");
    assertThat(plan.claimOf("ops/fine")).isNotNull();
  }

  @Test
  void volumesPinPodsToTheirZones() {
    ScenarioPlan plan = ScenarioPlan.ofResources("zonal-volumes.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    assertThat(plan.zoneOf("analytics/reports")).isEqualTo("us-east-1c");
    for (int i = 0; i < 3; i++) {
      assertThat(plan.zoneOf("streaming/kafka-" + i)).isEqualTo("us-east-1a");
    }
  }

  @Test
  void hostPortsAllowOneReplicaPerNode() {
    ScenarioPlan plan = ScenarioPlan.ofResources("host-ports.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    assertEachOnANewNodeClaimOfItsOwn(plan, "ingress/ingress-", 4);
    assertThat(plan.existingNodeOf("ingress/batch-helper")).isEqualTo("edge-1");
  }

  @Test
  void existingNodesWithRoomAreUsedBeforeNewNodeClaims() {
    ScenarioPlan plan = ScenarioPlan.ofResources("existing-nodes-first.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).isEmpty();
    for (int i = 0; i < 10; i++) {
      assertThat(plan.existingNodeOf("ops/small-" + i)).as("small-%d", i).isIn("node-a", "node-b");
    }
    assertThat(plan.claims()).hasSize(1);
    assertThat(plan.claims().getFirst().path("pods").toString()).isEqualTo("[\"ops/big\"]");
  }

  @Test
  void impossiblePodsAreUnschedulableWithAReasonNamingTheCause() {
    ScenarioPlan plan = ScenarioPlan.ofResources("impossible.yaml");

    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).containsExactlyInAnyOrder("edge/too-big", "edge/untolerated", "edge/no-such-label", "edge/mainframe");
    assertThat(plan.claimOf("edge/fine")).isNotNull();
    assertThat(plan.reasonOf("edge/too-big")).contains("cpu");
    assertThat(plan.reasonOf("edge/untolerated")).contains("example.com/pci");
    assertThat(plan.reasonOf("edge/no-such-label")).contains("disktype");
    assertThat(plan.reasonOf("edge/mainframe")).contains(Labels.ARCH);
  }

  @Test
  void controllersExpandIntoNamedReplicas() {
    ScenarioPlan plan = ScenarioPlan.ofResources("workloads.yaml");

    List<String> expected = new ArrayList<>();
    IntStream.range(0, 3).forEach(i -> expected.add("web/frontend-" + i));
    expected.add("default/singleton-0");
    IntStream.range(0, 2).forEach(i -> expected.add("web/legacy-rs-" + i));
    IntStream.range(0, 3).forEach(i -> expected.add("coord/zookeeper-" + i));
    IntStream.range(0, 4).forEach(i -> expected.add("web/migrate-" + i));
    expected.add("web/once-0");
    List<String> planned = new ArrayList<>();
    plan.claims().forEach(c -> c.path("pods").forEach(p -> planned.add(p.asText())));
    assertThat(planned).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(plan.json.at("/summary/costPerHour").decimalValue()).isGreaterThan(BigDecimal.ZERO);
  }

  /** Pods {@code <prefix>0 .. <prefix>(count-1)} each on a NodeClaim of its own, none on an existing node. */
  private static void assertEachOnANewNodeClaimOfItsOwn(ScenarioPlan plan, String prefix, int count) {
    Set<String> claims = new HashSet<>();
    for (int i = 0; i < count; i++) {
      assertThat(plan.existingNodeOf(prefix + i)).as(prefix + i).isNull();
      claims.add(plan.claimOf(prefix + i).path("name").asText());
    }
    assertThat(claims).as("NodeClaims of %s*", prefix).hasSize(count);
  }
}
