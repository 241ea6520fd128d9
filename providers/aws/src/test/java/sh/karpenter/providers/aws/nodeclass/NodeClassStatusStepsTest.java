package sh.karpenter.providers.aws.nodeclass;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassConditions;
import sh.karpenter.api.aws.v1.KubeletConfiguration;
import sh.karpenter.api.aws.v1.PlacementGroupSelector;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.providers.aws.TestNodeClasses;
import sh.karpenter.providers.aws.ami.ResolvedAmi;
import software.amazon.awssdk.services.ec2.model.SecurityGroup;
import software.amazon.awssdk.services.ec2.model.Subnet;

class NodeClassStatusStepsTest {
  private static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");

  private final EC2NodeClass nodeClass = TestNodeClasses.nodeClass("default", "c1", "al2023@latest", "role");

  @Test
  void everythingResolvedMakesTheClassReady() {
    assertThat(NodeClassStatusSteps.amis(nodeClass, List.of(ami("ami-1")), NOW)).isEqualTo(Duration.ofMinutes(5));
    NodeClassStatusSteps.placementGroup(nodeClass, NOW);
    assertThat(NodeClassStatusSteps.subnets(nodeClass, List.of(
        subnet("subnet-b", "us-west-2b", "usw2-az1", 10), subnet("subnet-a", "us-west-2a", "usw2-az2", 251)), NOW)).isEqualTo(Duration.ofMinutes(1));
    assertThat(NodeClassStatusSteps.securityGroups(nodeClass, List.of(group("sg-2", "b"), group("sg-1", "a")), NOW)).isEqualTo(Duration.ofMinutes(5));
    NodeClassStatusSteps.instanceProfile(nodeClass, "c1_123", NOW);
    assertThat(NodeClassStatusSteps.validation(nodeClass, NOW)).isEqualTo(Duration.ofMinutes(10));
    NodeClassStatusSteps.ready(nodeClass, NOW);

    var status = nodeClass.getStatus();
    assertThat(status.getSubnets()).extracting(s -> s.getId() + "/" + s.getZone() + "/" + s.getZoneID())
        .containsExactly("subnet-a/us-west-2a/usw2-az2", "subnet-b/us-west-2b/usw2-az1");
    assertThat(status.getSecurityGroups()).extracting(g -> g.getId() + "/" + g.getName()).containsExactly("sg-1/a", "sg-2/b");
    assertThat(status.getAmis()).singleElement().satisfies(ami -> {
      assertThat(ami.getId()).isEqualTo("ami-1");
      assertThat(ami.getDeprecated()).isNull();
      assertThat(ami.getRequirements()).hasSize(1);
    });
    assertThat(status.getInstanceProfile()).isEqualTo("c1_123");
    for (String type : List.of(EC2NodeClassConditions.AMIS_READY, EC2NodeClassConditions.SUBNETS_READY, EC2NodeClassConditions.SECURITY_GROUPS_READY,
        EC2NodeClassConditions.INSTANCE_PROFILE_READY, EC2NodeClassConditions.PLACEMENT_GROUP_READY, EC2NodeClassConditions.VALIDATION_SUCCEEDED,
        EC2NodeClassConditions.READY)) {
      assertThat(condition(type).getStatus()).as(type).isEqualTo(Conditions.TRUE);
      assertThat(condition(type).getObservedGeneration()).isEqualTo(1L);
    }
  }

  @Test
  void subnetsMatchingNothingMakeTheClassNotReadyWithTheReason() {
    resolveAllBut(EC2NodeClassConditions.SUBNETS_READY);
    nodeClass.getStatus().setSubnets(List.of(new sh.karpenter.api.aws.v1.Subnet("subnet-old", "us-west-2a", "usw2-az2")));
    assertThat(NodeClassStatusSteps.subnets(nodeClass, List.of(), NOW)).isEqualTo(Duration.ofMinutes(1));
    NodeClassStatusSteps.validation(nodeClass, NOW);
    NodeClassStatusSteps.ready(nodeClass, NOW);

    assertThat(nodeClass.getStatus().getSubnets()).isNull();
    assertCondition(EC2NodeClassConditions.SUBNETS_READY, Conditions.FALSE, "SubnetsNotFound", "SubnetSelector did not match any Subnets");
    assertCondition(EC2NodeClassConditions.VALIDATION_SUCCEEDED, Conditions.FALSE, "DependenciesNotReady",
        "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution");
    assertCondition(EC2NodeClassConditions.READY, Conditions.FALSE, "UnhealthyDependents", "ValidationSucceeded=False, SubnetsReady=False");
  }

  @Test
  void theMostRecentlyChangedUnhealthyDependentComesFirst() {
    resolveAllBut(null);
    NodeClassStatusSteps.validation(nodeClass, NOW);
    NodeClassStatusSteps.securityGroups(nodeClass, List.of(), NOW.plusSeconds(30));
    NodeClassStatusSteps.amis(nodeClass, List.of(), NOW.plusSeconds(60));
    NodeClassStatusSteps.validation(nodeClass, NOW.plusSeconds(60));
    NodeClassStatusSteps.ready(nodeClass, NOW.plusSeconds(60));
    assertCondition(EC2NodeClassConditions.READY, Conditions.FALSE, "UnhealthyDependents",
        "ValidationSucceeded=False, AMIsReady=False, SecurityGroupsReady=False");
  }

  @Test
  void conditionsOfAnOlderGenerationKeepReadyUnknown() {
    resolveAllBut(null);
    NodeClassStatusSteps.validation(nodeClass, NOW);
    NodeClassStatusSteps.ready(nodeClass, NOW);
    assertThat(condition(EC2NodeClassConditions.READY).getStatus()).isEqualTo(Conditions.TRUE);

    nodeClass.getMetadata().setGeneration(2L);
    NodeClassStatusSteps.subnets(nodeClass, List.of(subnet("subnet-a", "us-west-2a", "usw2-az2", 1)), NOW);
    NodeClassStatusSteps.ready(nodeClass, NOW);
    assertThat(condition(EC2NodeClassConditions.READY).getStatus()).isEqualTo(Conditions.UNKNOWN);
    assertThat(condition(EC2NodeClassConditions.READY).getReason()).isEqualTo("ReconcilingDependents");
    assertThat(condition(EC2NodeClassConditions.READY).getMessage()).doesNotContain("SubnetsReady").contains("AMIsReady=True");
  }

  @Test
  void securityGroupsAndAmisMatchingNothing() {
    NodeClassStatusSteps.securityGroups(nodeClass, List.of(), NOW);
    NodeClassStatusSteps.amis(nodeClass, List.of(), NOW);
    assertCondition(EC2NodeClassConditions.SECURITY_GROUPS_READY, Conditions.FALSE, "SecurityGroupsNotFound",
        "SecurityGroupSelector did not match any SecurityGroups");
    assertCondition(EC2NodeClassConditions.AMIS_READY, Conditions.FALSE, "AMINotFound", "AMISelector did not match any AMIs");
  }

  @Test
  void anUnsupportedAlias() {
    NodeClassStatusSteps.unsupportedAlias(nodeClass, "AL2 aliases are no longer supported on EKS 1.33+", NOW);
    assertCondition(EC2NodeClassConditions.AMIS_READY, Conditions.FALSE, "UnsupportedAlias", "AL2 aliases are no longer supported on EKS 1.33+");
  }

  @Test
  void validationWaitsForUnknownDependencies() {
    NodeClassStatusSteps.subnets(nodeClass, List.of(subnet("subnet-a", "us-west-2a", "usw2-az2", 1)), NOW);
    NodeClassStatusSteps.validation(nodeClass, NOW);
    NodeClassStatusSteps.ready(nodeClass, NOW);
    assertCondition(EC2NodeClassConditions.VALIDATION_SUCCEEDED, Conditions.UNKNOWN, "DependenciesNotReady",
        "Awaiting AMI, Instance Profile, Security Group, and Subnet resolution");
    assertCondition(EC2NodeClassConditions.AMIS_READY, Conditions.UNKNOWN, "AwaitingReconciliation", "object is awaiting reconciliation");
    assertCondition(EC2NodeClassConditions.READY, Conditions.UNKNOWN, "ReconcilingDependents",
        "ValidationSucceeded=Unknown, InstanceProfileReady=Unknown, SecurityGroupsReady=Unknown, PlacementGroupReady=Unknown, AMIsReady=Unknown");
  }

  @Test
  void restrictedTagsFailValidation() {
    resolveAllBut(null);
    nodeClass.getSpec().setTags(Map.of("kubernetes.io/cluster/c1", "owned", "team", "a", "karpenter.sh/nodepool", "x"));
    NodeClassStatusSteps.validation(nodeClass, NOW);
    assertCondition(EC2NodeClassConditions.VALIDATION_SUCCEEDED, Conditions.FALSE, "TagValidationFailed",
        "tags failed validation requirements (tags=\"karpenter.sh/nodepool\", \"kubernetes.io/cluster/c1\")");
  }

  @Test
  void anInvalidKubeletConfigurationFailsValidationFirst() throws Exception {
    nodeClass.getSpec().setKubelet(new ObjectMapper().readValue("{\"maxPods\": -1, \"registerWithTaints\": []}", KubeletConfiguration.class));
    assertThat(NodeClassStatusSteps.validation(nodeClass, NOW)).isNull();
    Condition validation = condition(EC2NodeClassConditions.VALIDATION_SUCCEEDED);
    assertThat(validation.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(validation.getReason()).isEqualTo("InvalidKubeletConfiguration");
    assertThat(validation.getMessage()).contains("maxPods").contains("registerWithTaints").contains("; ");
  }

  @Test
  void aPlacementGroupSelectorIsNotResolved() {
    PlacementGroupSelector selector = new PlacementGroupSelector();
    selector.setName("my-group");
    nodeClass.getSpec().setPlacementGroupSelector(selector);
    NodeClassStatusSteps.placementGroup(nodeClass, NOW);
    assertCondition(EC2NodeClassConditions.PLACEMENT_GROUP_READY, Conditions.FALSE, "PlacementGroupNotFound", "Placement group \"my-group\" not found");
  }

  @Test
  void theTransitionTimeMovesOnlyWhenTheStatusChanges() {
    NodeClassStatusSteps.subnets(nodeClass, List.of(), NOW);
    NodeClassStatusSteps.subnets(nodeClass, List.of(), NOW.plusSeconds(60));
    assertThat(condition(EC2NodeClassConditions.SUBNETS_READY).getLastTransitionTime()).isEqualTo("2026-06-01T00:00:00Z");
    NodeClassStatusSteps.subnets(nodeClass, List.of(subnet("subnet-a", "us-west-2a", "usw2-az2", 1)), NOW.plusSeconds(120));
    assertThat(condition(EC2NodeClassConditions.SUBNETS_READY).getLastTransitionTime()).isEqualTo("2026-06-01T00:02:00Z");
  }

  @Test
  void waitingOnNodeClaimsNamesFiveAndCountsTheRest() {
    assertThat(NodeClassController.pretty(List.of("a", "b"), 5)).isEqualTo("a, b");
    assertThat(NodeClassController.pretty(List.of("a", "b", "c", "d", "e", "f", "g"), 5)).isEqualTo("a, b, c, d, e and 2 other(s)");
  }

  private void resolveAllBut(String type) {
    if (!EC2NodeClassConditions.AMIS_READY.equals(type)) {
      NodeClassStatusSteps.amis(nodeClass, List.of(ami("ami-1")), NOW);
    }
    if (!EC2NodeClassConditions.SUBNETS_READY.equals(type)) {
      NodeClassStatusSteps.subnets(nodeClass, List.of(subnet("subnet-a", "us-west-2a", "usw2-az2", 1)), NOW);
    }
    if (!EC2NodeClassConditions.SECURITY_GROUPS_READY.equals(type)) {
      NodeClassStatusSteps.securityGroups(nodeClass, List.of(group("sg-1", "a")), NOW);
    }
    NodeClassStatusSteps.instanceProfile(nodeClass, "profile", NOW);
    NodeClassStatusSteps.placementGroup(nodeClass, NOW);
  }

  private void assertCondition(String type, String status, String reason, String message) {
    Condition condition = condition(type);
    assertThat(condition.getStatus()).as(type).isEqualTo(status);
    assertThat(condition.getReason()).as(type).isEqualTo(reason);
    assertThat(condition.getMessage()).as(type).isEqualTo(message);
  }

  private Condition condition(String type) {
    return Conditions.get(nodeClass.getStatus().getConditions(), type).orElseThrow(() -> new AssertionError("no condition " + type));
  }

  private static ResolvedAmi ami(String id) {
    return new ResolvedAmi(id, id, "2026-01-01T00:00:00Z", false, List.of(new NodeSelectorRequirement("kubernetes.io/arch", "In", List.of("amd64"))));
  }

  private static Subnet subnet(String id, String zone, String zoneId, int free) {
    return Subnet.builder().subnetId(id).availabilityZone(zone).availabilityZoneId(zoneId).availableIpAddressCount(free).build();
  }

  private static SecurityGroup group(String id, String name) {
    return SecurityGroup.builder().groupId(id).groupName(name).build();
  }
}
