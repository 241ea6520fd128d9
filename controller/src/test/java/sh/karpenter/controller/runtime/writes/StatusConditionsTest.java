package sh.karpenter.controller.runtime.writes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import io.prometheus.client.CollectorRegistry;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.controller.metrics.Metrics;

class StatusConditionsTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final List<String> DEPENDENTS = StatusConditions.NODE_CLAIM_DEPENDENTS;

  private static List<Condition> with(List<Condition> conditions, String type, String status, String reason, Instant at) {
    return Conditions.set(conditions, type, status, reason, reason, at, null);
  }

  private static Condition ready(List<Condition> conditions) {
    return Conditions.get(StatusConditions.rollUp(conditions, DEPENDENTS, T0.plusSeconds(100), 1L), ConditionTypes.READY).orElseThrow();
  }

  @Test
  void readyIsTrueWhenEveryDependentIs() {
    List<Condition> conditions = null;
    for (String type : DEPENDENTS) {
      conditions = with(conditions, type, Conditions.TRUE, type, T0);
    }

    Condition ready = ready(conditions);

    assertThat(ready.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(ready.getReason()).isEqualTo(ConditionTypes.READY);
  }

  @Test
  void aFalseDependentWinsOverAnUnknownOne() {
    List<Condition> conditions = with(null, ConditionTypes.LAUNCHED, Conditions.TRUE, "Launched", T0);
    conditions = with(conditions, ConditionTypes.REGISTERED, Conditions.FALSE, "MultipleNodesFound", T0);
    conditions = with(conditions, ConditionTypes.INITIALIZED, Conditions.UNKNOWN, "NotRegistered", T0.plusSeconds(5));

    Condition ready = ready(conditions);

    assertThat(ready.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(ready.getReason()).isEqualTo("MultipleNodesFound");
  }

  @Test
  void theMostRecentlyChangedUnknownDependentExplainsAnUnknownReady() {
    List<Condition> conditions = with(null, ConditionTypes.LAUNCHED, Conditions.TRUE, "Launched", T0);
    conditions = with(conditions, ConditionTypes.REGISTERED, Conditions.UNKNOWN, "NodeNotFound", T0.plusSeconds(10));
    conditions = with(conditions, ConditionTypes.INITIALIZED, Conditions.UNKNOWN, "NotRegistered", T0);

    assertThat(ready(conditions).getReason()).isEqualTo("NodeNotFound");
  }

  @Test
  void aMissingDependentLeavesReadyUnknown() {
    List<Condition> conditions = with(null, ConditionTypes.LAUNCHED, Conditions.TRUE, "Launched", T0);

    assertThat(ready(conditions).getStatus()).isEqualTo(Conditions.UNKNOWN);
  }

  @Test
  void transitionsAreCountedOncePerStatusChange() {
    Metrics metrics = new Metrics(new CollectorRegistry());
    List<Condition> before = with(null, ConditionTypes.LAUNCHED, Conditions.UNKNOWN, "AwaitingReconciliation", T0);
    before = with(before, ConditionTypes.REGISTERED, Conditions.UNKNOWN, "AwaitingReconciliation", T0);
    List<Condition> after = with(before, ConditionTypes.LAUNCHED, Conditions.TRUE, "Launched", T0.plusSeconds(30));
    after = with(after, ConditionTypes.REGISTERED, Conditions.UNKNOWN, "NodeNotFound", T0.plusSeconds(30));
    after = with(after, ConditionTypes.INITIALIZED, Conditions.UNKNOWN, "NotRegistered", T0.plusSeconds(30));

    StatusConditions.recordTransitions(metrics, "nodeclaim", before, after, T0.plusSeconds(30));

    String scraped = metrics.scrape();
    assertThat(scraped.lines().filter(l -> l.startsWith("operator_nodeclaim_status_condition_transitions_total{")))
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).contains("type=\"Launched\"", "status=\"True\"").endsWith(" 1.0"))
        .anySatisfy(l -> assertThat(l).contains("type=\"Initialized\"", "status=\"Unknown\"").endsWith(" 1.0"));
  }

  @Test
  void reasonsTheCrdRejectsAreReplacedAndMessagesTruncated() {
    assertThat(StatusConditions.reason("InsufficientCapacity", "LaunchFailed")).isEqualTo("InsufficientCapacity");
    assertThat(StatusConditions.reason("not-a-reason", "LaunchFailed")).isEqualTo("LaunchFailed");
    assertThat(StatusConditions.reason(null, "LaunchFailed")).isEqualTo("LaunchFailed");
    assertThat(StatusConditions.truncate("x".repeat(400))).hasSize(303).endsWith("...");
    assertThat(StatusConditions.truncate("short")).isEqualTo("short");
  }
}
