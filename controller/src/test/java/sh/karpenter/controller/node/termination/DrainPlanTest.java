package sh.karpenter.controller.node.termination;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which pods one drain pass evicts, force-deletes and waits for
 * (docs/behaviour/termination.md#drain).
 */
class DrainPlanTest {
  private static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");

  private static PodBuilder pod(String name) {
    return new PodBuilder()
        .withNewMetadata().withName(name).withNamespace("team").withUid(name + "-uid").endMetadata()
        .withNewSpec().withNodeName("node-1").withTerminationGracePeriodSeconds(30L).addNewContainer().withName("c").endContainer().endSpec()
        .withNewStatus().withPhase("Running").endStatus();
  }

  private static PodBuilder daemonSet(PodBuilder pod) {
    return pod.editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("ds").withUid("ds")
        .endOwnerReference().endMetadata();
  }

  private static PodBuilder critical(PodBuilder pod) {
    return pod.editSpec().withPriorityClassName("system-node-critical").endSpec();
  }

  private static PodBuilder terminatingSince(PodBuilder pod, Instant deletionTimestamp) {
    return pod.editMetadata().withDeletionTimestamp(deletionTimestamp.toString()).endMetadata();
  }

  private static PodBuilder doNotDisrupt(PodBuilder pod) {
    return pod.editMetadata().addToAnnotations("karpenter.sh/do-not-disrupt", "true").endMetadata();
  }

  private static PodBuilder grace(PodBuilder pod, long seconds) {
    return pod.editSpec().withTerminationGracePeriodSeconds(seconds).endSpec();
  }

  private static List<String> names(List<Pod> pods) {
    return pods.stream().map(p -> p.getMetadata().getName()).toList();
  }

  private static List<String> deleted(DrainPlan plan) {
    return plan.delete().stream().map(d -> d.pod().getMetadata().getName()).toList();
  }

  private static final Pod WEB = pod("web").build();
  private static final Pod LOGS = daemonSet(pod("logs")).build();
  private static final Pod DNS = critical(pod("dns")).build();
  private static final Pod CNI = critical(daemonSet(pod("cni"))).build();

  @Test
  void aNodeWithoutPodsIsDrained() {
    DrainPlan plan = DrainPlan.of(List.of(), NOW, null);

    assertThat(plan.drained()).isTrue();
    assertThat(plan.evict()).isEmpty();
    assertThat(plan.delete()).isEmpty();
  }

  @Test
  void evictsNonCriticalPodsFirstThenDaemonSetsThenCriticalPodsThenCriticalDaemonSets() {
    assertThat(names(DrainPlan.of(List.of(CNI, DNS, LOGS, WEB), NOW, null).evict())).containsExactly("web");
    assertThat(names(DrainPlan.of(List.of(CNI, DNS, LOGS), NOW, null).evict())).containsExactly("logs");
    assertThat(names(DrainPlan.of(List.of(CNI, DNS), NOW, null).evict())).containsExactly("dns");
    assertThat(names(DrainPlan.of(List.of(CNI), NOW, null).evict())).containsExactly("cni");

    DrainPlan plan = DrainPlan.of(List.of(CNI, DNS, LOGS, WEB), NOW, null);
    assertThat(names(plan.waiting())).containsExactlyInAnyOrder("web", "logs", "dns", "cni");
    assertThat(plan.drained()).isFalse();
  }

  @Test
  void theNextTierWaitsUntilTheEvictedPodsAreGoneNotJustTerminating() {
    Pod evicted = terminatingSince(pod("web"), NOW.plusSeconds(20)).build();

    DrainPlan plan = DrainPlan.of(List.of(evicted, LOGS), NOW, null);

    assertThat(plan.evict()).isEmpty();
    assertThat(names(plan.waiting())).containsExactlyInAnyOrder("web", "logs");
  }

  @Test
  void aPodStuckTerminatingForMoreThanAMinuteIsNoLongerWaitedFor() {
    Pod stuck = terminatingSince(pod("web"), NOW.minus(Duration.ofSeconds(61))).build();
    Pod recent = terminatingSince(pod("api"), NOW.minus(Duration.ofSeconds(59))).build();

    assertThat(names(DrainPlan.of(List.of(stuck, LOGS), NOW, null).evict())).containsExactly("logs");
    assertThat(names(DrainPlan.of(List.of(recent, LOGS), NOW, null).waiting())).containsExactlyInAnyOrder("api", "logs");
  }

  @Test
  void terminalMirrorAndTaintToleratingPodsAreLeftAlone() {
    Pod succeeded = pod("job").editStatus().withPhase("Succeeded").endStatus().build();
    Pod failed = pod("crashed").editStatus().withPhase("Failed").endStatus().build();
    Pod mirror = pod("static").editMetadata().addNewOwnerReference().withApiVersion("v1").withKind("Node").withName("node-1").withUid("n")
        .endOwnerReference().endMetadata().build();
    Pod annotatedMirror = pod("static-2").editMetadata().addToAnnotations("kubernetes.io/config.mirror", "abc").endMetadata().build();
    Pod toleratesKey = pod("tolerant").editSpec()
        .withTolerations(new TolerationBuilder().withKey("karpenter.sh/disrupted").withOperator("Exists").build()).endSpec().build();
    Pod toleratesAll = pod("tolerates-all").editSpec().withTolerations(new TolerationBuilder().withOperator("Exists").build()).endSpec().build();

    DrainPlan plan = DrainPlan.of(List.of(succeeded, failed, mirror, annotatedMirror, toleratesKey, toleratesAll), NOW, null);

    assertThat(plan.drained()).isTrue();
    assertThat(plan.evict()).isEmpty();
  }

  @Test
  void aTolerationOfAnotherEffectDoesNotExemptThePod() {
    Pod noExecuteOnly = pod("web").editSpec()
        .withTolerations(new TolerationBuilder().withKey("karpenter.sh/disrupted").withOperator("Exists").withEffect("NoExecute").build())
        .endSpec().build();

    assertThat(names(DrainPlan.of(List.of(noExecuteOnly), NOW, null).evict())).containsExactly("web");
  }

  @Test
  void aDoNotDisruptPodIsNeverEvictedAndStallsItsTier() {
    Pod guarded = doNotDisrupt(pod("guarded")).build();

    DrainPlan plan = DrainPlan.of(List.of(guarded, WEB, LOGS), NOW, null);

    assertThat(names(plan.evict())).containsExactly("web");
    assertThat(names(plan.waiting())).contains("guarded");

    DrainPlan alone = DrainPlan.of(List.of(guarded, LOGS), NOW, null);
    assertThat(alone.evict()).isEmpty();
    assertThat(alone.drained()).isFalse();
  }

  @Test
  void aDoNotDisruptDurationProtectsThePodUntilItElapsesFromPodStart() {
    Pod protectedForAnHour = pod("batch").editMetadata().addToAnnotations("karpenter.sh/do-not-disrupt", "1h").endMetadata()
        .editStatus().withStartTime(NOW.minus(Duration.ofMinutes(10)).toString()).endStatus().build();
    Pod elapsed = pod("old-batch").editMetadata().addToAnnotations("karpenter.sh/do-not-disrupt", "1h").endMetadata()
        .editStatus().withStartTime(NOW.minus(Duration.ofHours(2)).toString()).endStatus().build();

    DrainPlan plan = DrainPlan.of(List.of(protectedForAnHour, elapsed), NOW, null);

    assertThat(names(plan.evict())).containsExactly("old-batch");
    assertThat(names(plan.waiting())).containsExactlyInAnyOrder("batch", "old-batch");
    assertThat(names(DrainPlan.of(List.of(protectedForAnHour), NOW.plus(Duration.ofMinutes(50)), null).evict())).containsExactly("batch");
  }

  @Test
  void withoutADeadlineNothingIsForceDeleted() {
    Pod slow = grace(doNotDisrupt(pod("slow")), 86_400).build();

    assertThat(DrainPlan.of(List.of(slow), NOW.plus(Duration.ofDays(365)), null).delete()).isEmpty();
  }

  @Test
  void aPodIsDeletedWhenItsGracePeriodWouldOverrunTheDeadline() {
    Instant deadline = NOW.plus(Duration.ofMinutes(10));
    Pod slow = grace(pod("slow"), 300).build();

    assertThat(DrainPlan.of(List.of(slow), NOW, deadline).delete()).isEmpty();
    assertThat(DrainPlan.of(List.of(slow), deadline.minusSeconds(301), deadline).delete()).isEmpty();

    DrainPlan due = DrainPlan.of(List.of(slow), deadline.minusSeconds(300), deadline);
    assertThat(due.delete()).singleElement().satisfies(d -> {
      assertThat(d.pod().getMetadata().getName()).isEqualTo("slow");
      assertThat(d.gracePeriodSeconds()).isEqualTo(300);
    });
    assertThat(due.evict()).isEmpty(); // deleted, not evicted as well

    DrainPlan late = DrainPlan.of(List.of(slow), deadline.minusSeconds(120), deadline);
    assertThat(late.delete()).singleElement().satisfies(d -> assertThat(d.gracePeriodSeconds()).isEqualTo(120));
  }

  @Test
  void pastDeadlinePodsAreNotGatedBehindTheGracefulEvictionOfEarlierTiers() {
    Instant deadline = NOW.plus(Duration.ofMinutes(5));
    Pod slowCriticalDaemon = grace(critical(daemonSet(pod("cni"))), 600).build();

    DrainPlan plan = DrainPlan.of(List.of(WEB, LOGS, slowCriticalDaemon), NOW, deadline);

    assertThat(deleted(plan)).containsExactly("cni");
    assertThat(plan.delete().getFirst().gracePeriodSeconds()).isEqualTo(300);
    assertThat(names(plan.evict())).containsExactly("web");
  }

  @Test
  void atTheDeadlineEveryRemainingPodIsDeletedWithoutGraceDoNotDisruptIncluded() {
    Instant deadline = NOW;
    Pod guarded = doNotDisrupt(pod("guarded")).build();

    DrainPlan plan = DrainPlan.of(List.of(guarded, WEB, LOGS, DNS, CNI), deadline.plusSeconds(3), deadline);

    assertThat(deleted(plan)).containsExactlyInAnyOrder("guarded", "web", "logs", "dns", "cni");
    assertThat(plan.delete()).allSatisfy(d -> assertThat(d.gracePeriodSeconds()).isZero());
    assertThat(plan.evict()).isEmpty();
  }

  @Test
  void aPodTerminatingPastTheDeadlineIsDeletedAgainWithTheTimeLeft() {
    Instant deadline = NOW.plus(Duration.ofMinutes(1));
    Pod pastDeadline = grace(terminatingSince(pod("slow"), NOW.plus(Duration.ofMinutes(50))), 3600).build();
    Pod withinDeadline = grace(terminatingSince(pod("quick"), NOW.plusSeconds(30)), 3600).build();

    DrainPlan plan = DrainPlan.of(List.of(pastDeadline, withinDeadline), NOW, deadline);

    assertThat(deleted(plan)).containsExactly("slow");
    assertThat(plan.delete().getFirst().gracePeriodSeconds()).isEqualTo(60);
  }

  @Test
  void aPodWithoutAGracePeriodCountsTheApiServersDefaultOfThirtySeconds() {
    Instant deadline = NOW.plusSeconds(30);
    Pod unset = pod("unset").editSpec().withTerminationGracePeriodSeconds(null).endSpec().build();

    assertThat(DrainPlan.of(List.of(unset), NOW.minusSeconds(1), deadline).delete()).isEmpty();
    assertThat(deleted(DrainPlan.of(List.of(unset), NOW, deadline))).containsExactly("unset");
  }

  @Test
  void tiersClassifyByPriorityClassAndDaemonSetOwner() {
    assertThat(DrainPlan.Tier.of(WEB)).isEqualTo(DrainPlan.Tier.NON_CRITICAL);
    assertThat(DrainPlan.Tier.of(LOGS)).isEqualTo(DrainPlan.Tier.NON_CRITICAL_DAEMONSET);
    assertThat(DrainPlan.Tier.of(DNS)).isEqualTo(DrainPlan.Tier.CRITICAL);
    assertThat(DrainPlan.Tier.of(CNI)).isEqualTo(DrainPlan.Tier.CRITICAL_DAEMONSET);
    assertThat(DrainPlan.Tier.of(critical(pod("cluster")).editSpec().withPriorityClassName("system-cluster-critical").endSpec().build()))
        .isEqualTo(DrainPlan.Tier.CRITICAL);
    // An owner of another API group with the same kind is not a DaemonSet.
    assertThat(DrainPlan.Tier.of(pod("x").editMetadata().addNewOwnerReference().withApiVersion("example.com/v1").withKind("DaemonSet")
        .withName("d").withUid("d").endOwnerReference().endMetadata().build())).isEqualTo(DrainPlan.Tier.NON_CRITICAL);
  }
}
