package sh.karpenter.cli.plan.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.wellknown.Labels;

/**
 * The checker is only evidence if it fails broken plans: each test breaks one rule of a valid plan
 * and expects the checker to name it.
 */
class PlanContractCheckerScenarioTest {
  private static final ScenarioPlan DATABASE = ScenarioPlan.ofResources("database-anti-affinity.yaml");

  private static String violations(Consumer<ObjectNode> breakIt) {
    ObjectNode broken = DATABASE.json.deepCopy();
    breakIt.accept(broken);
    return String.join("\n", PlanContractChecker.violations(DATABASE.inputs, broken));
  }

  private static ObjectNode firstClaim(ObjectNode plan) {
    return (ObjectNode) plan.get("nodeClaims").get(0);
  }

  @Test
  void validPlanHasNoViolations() {
    assertThat(violations(plan -> {})).isEmpty();
  }

  @Test
  void podOnACordonedNode() {
    ScenarioPlan cordoned = ScenarioPlan.ofResources("cordoned-nodes.yaml");
    ObjectNode broken = cordoned.json.deepCopy();
    ObjectNode claim = (ObjectNode) broken.get("nodeClaims").get(0);
    String pod = claim.get("pods").get(0).asText();
    ((ArrayNode) claim.get("pods")).remove(0);
    ((ArrayNode) broken.get("existingNodes")).addObject().put("name", "edge-1").putArray("pods").add(pod);

    assertThat(PlanContractChecker.violations(cordoned.inputs, broken))
        .anyMatch(v -> v.contains(pod + " on edge-1: the node is cordoned (spec.unschedulable)"));
  }

  @Test
  void nodeTooSmallForTheDaemonSetsLivePod() {
    ScenarioPlan live = ScenarioPlan.ofResources("daemonset-live-pod.yaml");
    ObjectNode broken = live.json.deepCopy();
    ObjectNode claim = (ObjectNode) broken.get("nodeClaims").get(0);
    claim.put("instanceType", "c6a.large").put("pricePerHour", new BigDecimal("0.0765"));
    ((ObjectNode) claim.get("labels")).put(Labels.INSTANCE_TYPE, "c6a.large");
    ((ObjectNode) claim.get("allocatable")).put("cpu", "1930m");
    ((ArrayNode) claim.get("instanceTypeOptions")).insert(0, "c6a.large");

    assertThat(PlanContractChecker.violations(live.inputs, broken)).anyMatch(v -> v.contains("cpu requested 3 (pods + DaemonSets) exceeds allocatable"));
  }

  @Test
  void podListedTwice() {
    assertThat(violations(plan -> ((ArrayNode) plan.get("unschedulable")).addObject().put("pod", "db/cassandra-0").put("reason", "x")))
        .contains("db/cassandra-0 appears 2 times");
  }

  @Test
  void podMissing() {
    assertThat(violations(plan -> ((ArrayNode) firstClaim(plan).get("pods")).removeAll())).contains("missing from the plan");
  }

  @Test
  void wrongPriceAndCost() {
    assertThat(violations(plan -> firstClaim(plan).put("pricePerHour", new BigDecimal("0.001"))))
        .contains("is not the offering's", "is not the sum of pricePerHour");
  }

  @Test
  void dearerOfferingThanNeeded() {
    String found =
        violations(
            plan -> {
              ObjectNode claim = firstClaim(plan);
              ObjectNode labels = (ObjectNode) claim.get("labels");
              claim.put("instanceType", "m5.24xlarge");
              labels.put(Labels.INSTANCE_TYPE, "m5.24xlarge");
              ((ArrayNode) claim.get("instanceTypeOptions")).add("m5.24xlarge");
            });
    assertThat(found).contains("is compatible and cheaper");
  }

  @Test
  void missingWellKnownLabelAndWrongHostname() {
    assertThat(
            violations(
                plan -> {
                  ObjectNode labels = (ObjectNode) firstClaim(plan).get("labels");
                  labels.remove(Labels.ARCH);
                  labels.put(Labels.HOSTNAME, "elsewhere");
                }))
        .contains("label " + Labels.ARCH, "label " + Labels.HOSTNAME);
  }

  @Test
  void lowerBoundAboveCost() {
    assertThat(violations(plan -> ((ObjectNode) plan.get("summary")).put("lowerBoundPerHour", new BigDecimal("1000"))))
        .contains("lowerBoundPerHour");
  }

  @Test
  void antiAffinityReplicasSharingANode() {
    String found =
        violations(
            plan -> {
              JsonNode claims = plan.get("nodeClaims");
              String moved = claims.get(1).get("pods").get(0).asText();
              ((ArrayNode) claims.get(1).get("pods")).remove(0);
              ((ArrayNode) claims.get(0).get("pods")).add(moved);
            });
    assertThat(found).contains("required anti-affinity over " + Labels.HOSTNAME);
  }

  @Test
  void zoneSpreadSkewBroken() {
    ScenarioPlan spread = ScenarioPlan.ofResources("zone-spread.yaml");
    ObjectNode broken = spread.json.deepCopy();
    // Move every checkout replica onto the first NodeClaim that holds one: all in one zone.
    ArrayNode target = null;
    for (JsonNode claim : broken.get("nodeClaims")) {
      ArrayNode pods = (ArrayNode) claim.get("pods");
      for (int i = pods.size() - 1; i >= 0; i--) {
        if (pods.get(i).asText().startsWith("shop/checkout-")) {
          if (target == null) {
            target = pods;
            break;
          }
          target.add(pods.remove(i));
        }
      }
    }

    assertThat(String.join("\n", PlanContractChecker.violations(spread.inputs, broken))).contains("zone spread (maxSkew 1) is broken");
  }

  @Test
  void blankReasonAndOverfullNode() {
    String found =
        violations(
            plan -> {
              ((ObjectNode) firstClaim(plan).get("allocatable")).put("cpu", "1");
              ((ArrayNode) plan.get("unschedulable")).addObject().put("pod", "db/ghost").put("reason", "");
            });
    assertThat(found).contains("allocatable", "exceeds allocatable", "db/ghost has no reason", "not a pending pod");
  }
}
