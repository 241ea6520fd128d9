package sh.karpenter.controller.runtime.writes;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.metrics.Metrics;

/**
 * Status-condition rules shared by the NodeClaim and NodePool controllers, as operatorpkg applies
 * them upstream: the root {@code Ready} condition rolls up its dependents, and every status change
 * of a condition is counted once it has been written.
 */
public final class StatusConditions {
  private StatusConditions() {}

  /** The object kind NodeClaim condition metrics are labelled with. */
  public static final String NODE_CLAIM_KIND = "nodeclaim";

  /** The dependents of a NodeClaim's {@code Ready}. */
  public static final List<String> NODE_CLAIM_DEPENDENTS =
      List.of(ConditionTypes.LAUNCHED, ConditionTypes.REGISTERED, ConditionTypes.INITIALIZED);

  /** The dependents of a NodePool's {@code Ready}. */
  public static final List<String> NODE_POOL_DEPENDENTS =
      List.of(ConditionTypes.VALIDATION_SUCCEEDED, ConditionTypes.NODE_CLASS_READY);

  /** What the CRDs accept as a condition reason. */
  private static final Pattern REASON = Pattern.compile("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");

  /** Longest condition message the lifecycle writes (upstream truncates launch errors to 300 characters). */
  public static final int MAX_MESSAGE = 300;

  /**
   * Returns {@code conditions} with the root {@code Ready} condition recomputed: False with the
   * reason and message of a False dependent (the most recently changed one), else Unknown with those
   * of an Unknown or missing dependent, else True.
   */
  public static List<Condition> rollUp(List<Condition> conditions, List<String> dependents, Instant now, Long generation) {
    Comparator<Condition> newestFirst =
        Comparator.comparing((Condition c) -> c.getLastTransitionTime() == null ? "" : c.getLastTransitionTime()).reversed();
    List<Condition> present =
        dependents.stream().map(type -> Conditions.get(conditions, type)).flatMap(Optional::stream).sorted(newestFirst).toList();
    Optional<Condition> notTrue =
        present.stream().filter(c -> Conditions.FALSE.equals(c.getStatus())).findFirst()
            .or(() -> present.stream().filter(c -> Conditions.UNKNOWN.equals(c.getStatus())).findFirst());
    if (notTrue.isPresent()) {
      Condition c = notTrue.get();
      return Conditions.set(conditions, ConditionTypes.READY, c.getStatus(), c.getReason(), c.getMessage(), now, generation);
    }
    if (present.size() < dependents.size()) {
      String missing = dependents.stream().filter(type -> Conditions.get(conditions, type).isEmpty()).findFirst().orElseThrow();
      return Conditions.set(conditions, ConditionTypes.READY, Conditions.UNKNOWN, "AwaitingReconciliation",
          missing + " has not been reconciled", now, generation);
    }
    return Conditions.set(conditions, ConditionTypes.READY, Conditions.TRUE, ConditionTypes.READY, "", now, generation);
  }

  /**
   * Counts every condition whose status differs between {@code before} and {@code after} (new ones
   * included) with {@link Metrics#conditionTransition}.
   *
   * @param kind {@code nodeclaim}, {@code nodepool} or {@code node}
   */
  public static void recordTransitions(Metrics metrics, String kind, List<Condition> before, List<Condition> after, Instant now) {
    if (after == null) {
      return;
    }
    for (Condition condition : after) {
      Optional<Condition> previous = Conditions.get(before, condition.getType());
      if (previous.isPresent() && previous.get().getStatus().equals(condition.getStatus())) {
        continue;
      }
      Duration since =
          previous.map(Condition::getLastTransitionTime).filter(t -> t != null && !t.isEmpty())
              .map(t -> Duration.between(Instant.parse(t), now)).filter(d -> !d.isNegative()).orElse(null);
      metrics.conditionTransition(kind, condition.getType(), condition.getStatus(), condition.getReason(), since);
    }
  }

  /**
   * Writes a NodeClaim's conditions as {@code after} (sorted) through the status subresource, locked to
   * the resourceVersion of {@code stored}, and counts the transitions; writes nothing when the
   * conditions are unchanged. A conflict propagates, so the caller re-reads and decides again.
   *
   * @return the NodeClaim as stored ({@code stored} itself when nothing changed), or null when it is gone
   */
  public static NodeClaim write(KubernetesClient client, Metrics metrics, NodeClaim stored, List<Condition> after, Instant now) {
    List<Condition> before = stored.getStatus() == null ? null : stored.getStatus().getConditions();
    List<Condition> sorted = sorted(after);
    if (Objects.equals(orEmpty(sorted(before)), orEmpty(sorted))) {
      return stored;
    }
    NodeClaim update = client.getKubernetesSerialization().clone(stored);
    if (update.getStatus() == null) {
      update.setStatus(new NodeClaimStatus());
    }
    update.getStatus().setConditions(sorted);
    try {
      NodeClaim written = client.resources(NodeClaim.class).resource(update).updateStatus();
      recordTransitions(metrics, NODE_CLAIM_KIND, before, sorted, now);
      return written;
    } catch (RuntimeException e) {
      if (OptimisticWrites.isNotFound(e)) {
        return null;
      }
      throw e;
    }
  }

  private static List<Condition> orEmpty(List<Condition> conditions) {
    return conditions == null ? List.of() : conditions;
  }

  /** The conditions sorted by type (operatorpkg's order), so that equal sets compare and serialize equal. */
  public static List<Condition> sorted(List<Condition> conditions) {
    return conditions == null ? null : conditions.stream().sorted(Comparator.comparing(Condition::getType)).toList();
  }

  /** {@code reason} when the CRDs accept it as a condition reason, else {@code fallback}. */
  public static String reason(String reason, String fallback) {
    return reason != null && REASON.matcher(reason).matches() ? reason : fallback;
  }

  /** The message cut to {@link #MAX_MESSAGE} characters, with {@code ...} appended when cut. */
  public static String truncate(String message) {
    if (message == null) {
      return "";
    }
    return message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE) + "...";
  }
}
