package sh.karpenter.controller.nodeclaim.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.Result;

/** The deadlines Liveness waits for; deleting at the deadline is covered by NodeClaimLifecycleIT. */
class LivenessTest {

  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private final Liveness liveness = new Liveness(null, Metrics.noop(), null);

  private static LifecycleState state(Instant now) {
    return new LifecycleState(Manifests.nodeClaim("metadata: {name: c, creationTimestamp: '" + CREATED + "'}\nspec: {}\n"), now);
  }

  @Test
  void waitsForTheLaunchTimeoutFromCreation() {
    LifecycleState state = state(CREATED.plusSeconds(60));

    assertThat(liveness.reconcile(state)).isEqualTo(Result.requeueAfter(Duration.ofMinutes(4)));
    assertThat(state.deleted()).isFalse();
  }

  @Test
  void waitsForTheRegistrationTimeoutFromTheLaunch() {
    Instant launched = CREATED.plusSeconds(30);
    LifecycleState state = new LifecycleState(state(launched).nodeClaim(), launched);
    state.setCondition(ConditionTypes.LAUNCHED, Conditions.TRUE, ConditionTypes.LAUNCHED, "");
    LifecycleState later = new LifecycleState(state.nodeClaim(), launched.plus(Duration.ofMinutes(10)));

    assertThat(liveness.reconcile(later)).isEqualTo(Result.requeueAfter(Duration.ofMinutes(5)));
  }

  @Test
  void aRegisteredNodeClaimHasNoDeadline() {
    LifecycleState state = state(CREATED.plus(Duration.ofHours(1)));
    state.setCondition(ConditionTypes.LAUNCHED, Conditions.TRUE, ConditionTypes.LAUNCHED, "");
    state.setCondition(ConditionTypes.REGISTERED, Conditions.TRUE, ConditionTypes.REGISTERED, "");

    assertThat(liveness.reconcile(state)).isEqualTo(Result.done());
  }
}
