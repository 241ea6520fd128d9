package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.NOW;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.Labels;

/**
 * Re-checking a command after the validation delay (docs/behaviour/disruption.md#validation),
 * including scenario 55: should not consolidate if the action becomes invalid during the node TTL
 * wait.
 */
class ValidationTest {
  private static final List<InstanceType> TYPES = ladder(8);
  private static final Requirement ON_DEMAND = Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND);

  private DisruptionFixture.NodeBuilder destination;
  private DisruptionFixture.NodeBuilder candidate;

  private DisruptionFixture deletable() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("100%", null, null, null)), TYPES, ON_DEMAND);
    destination = f.node("destination", "default", TYPES.get(3)).pods(pod("2")).notConsolidatable();
    candidate = f.node("candidate", "default", TYPES.get(1)).pods(pod("1"));
    return f;
  }

  private static Command decided(DisruptionFixture f) {
    Decision decision = f.decide();
    assertThat(decision.commands()).hasSize(1);
    return decision.commands().getFirst();
  }

  @Test
  void anUnchangedClusterStillSupportsTheCommand() {
    DisruptionFixture f = deletable();
    Command command = decided(f);
    assertThat(command.replacements()).isEmpty();
    assertThat(Disruption.validate(command, f.input())).isEqualTo(Validation.VALID);
  }

  // 55
  @Test
  void shouldNotConsolidateIfTheActionBecomesInvalidDuringTheTtlWait() {
    DisruptionFixture f = deletable();
    Command command = decided(f);
    // a pod landed on the destination while the command waited: the candidate's pod no longer fits there
    destination.pods(pod("1500m"));
    Validation validation = Disruption.validate(command, f.input());
    assertThat(validation.valid()).isFalse();
    assertThat(validation.reason()).isEqualTo("the pods no longer fit without a new node");
  }

  @Test
  void aCandidateNominatedDuringTheWaitInvalidatesTheCommand() {
    DisruptionFixture f = deletable();
    Command command = decided(f);
    candidate.nominated();
    assertThat(Disruption.validate(command, f.input()).reason()).isEqualTo("node candidate is no longer a disruption candidate");
  }

  @Test
  void aCandidateThatIsNoLongerConsolidatableInvalidatesTheCommand() {
    DisruptionFixture f = deletable();
    Command command = decided(f);
    candidate.notConsolidatable();
    assertThat(Disruption.validate(command, f.input()).reason()).isEqualTo("node candidate is no longer consolidatable");
  }

  @Test
  void aBudgetUsedUpDuringTheWaitInvalidatesTheCommand() {
    DisruptionFixture f = deletable();
    Command command = decided(f);
    f.node("other", "default", TYPES.get(1)).markedForDeletion();
    f.node("another", "default", TYPES.get(1)).markedForDeletion();
    f.node("third", "default", TYPES.get(1)).markedForDeletion();
    f.pools.put("default", new PoolPolicy("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("3", null, null, null))));
    assertThat(Disruption.validate(command, f.input()).reason())
        .isEqualTo("budget for nodepool default reason Underutilized no longer allows disrupting candidate");
  }

  @Test
  void anEmptyNodeThatGainedPodsIsNoLongerEmpty() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES);
    DisruptionFixture.NodeBuilder empty = f.node("empty", "default", TYPES.get(1));
    Command command = decided(f);
    assertThat(command.method()).isEqualTo(Method.EMPTINESS);
    assertThat(Disruption.validate(command, f.input()).valid()).isTrue();
    empty.pods(pod("100m"));
    assertThat(Disruption.validate(command, f.input()).reason()).isEqualTo("node empty is no longer empty and consolidatable");
  }

  @Test
  void aReplacementIsValidWhileItsTypesStillFitThePods() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES, ON_DEMAND);
    DisruptionFixture.NodeBuilder big = f.node("big", "default", TYPES.get(7)).pods(pod("1"));
    Command command = decided(f);
    assertThat(command.replacements()).hasSize(1);
    assertThat(Disruption.validate(command, f.input())).isEqualTo(Validation.VALID);

    // the node's pods grew: the cheapest replacement types no longer fit them
    big.pods.clear();
    big.pods(pod("3"));
    Validation grown = Disruption.validate(command, f.input());
    assertThat(grown.valid()).isFalse();
    assertThat(grown.reason()).isEqualTo("replacement instance type t-1 no longer fits the pods");
  }

  @Test
  void aReplacementIsInvalidOnceThePodsFitWithoutIt() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES, ON_DEMAND);
    f.node("big", "default", TYPES.get(7)).pods(pod("1"));
    Command command = decided(f);
    f.node("roomy", "default", TYPES.get(3)).notConsolidatable().pods(pod("100m"));
    assertThat(Disruption.validate(command, f.input()).reason()).isEqualTo("the pods now fit without a replacement; a better move exists");
  }

  @Test
  void aDriftCommandIsInvalidOnceThePodsCannotMove() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, null, List.of(), TYPES, ON_DEMAND);
    DisruptionFixture.NodeBuilder drifted =
        f.node("drifted", "default", TYPES.get(1)).pods(pod("1")).drifted("RequirementsDrifted", NOW.minus(Duration.ofHours(1)));
    Command command = decided(f);
    assertThat(command.method()).isEqualTo(Method.DRIFT);
    assertThat(Disruption.validate(command, f.input()).valid()).isTrue();
    drifted.pods(pod("64"));
    assertThat(Disruption.validate(command, f.input()).reason()).contains("has no other place");
  }
}
