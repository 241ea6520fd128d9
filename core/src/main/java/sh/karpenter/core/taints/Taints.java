package sh.karpenter.core.taints;

import java.util.ArrayList;
import java.util.List;

/** Checks a pod's tolerations against a node's (or NodeClaim template's) taints. */
public final class Taints {
  private Taints() {}

  /**
   * Null when every taint is tolerated, else a reason naming each untolerated taint. PreferNoSchedule
   * taints are skipped only when {@code ignorePreferNoSchedule}; upstream's scheduler treats them as
   * hard (ignorePreferNoSchedule = false).
   */
  public static String untolerated(List<Taint> taints, List<Toleration> tolerations, boolean ignorePreferNoSchedule) {
    if (tolerates(taints, tolerations, ignorePreferNoSchedule)) {
      return null;
    }
    List<String> missing = new ArrayList<>(1);
    for (Taint taint : taints) {
      if (!tolerated(taint, tolerations, ignorePreferNoSchedule)) {
        missing.add(taint.toString());
      }
    }
    return (missing.size() == 1 ? "did not tolerate taint " : "did not tolerate taints ") + String.join(", ", missing);
  }

  /** True when every taint is tolerated; does not allocate. */
  public static boolean tolerates(List<Taint> taints, List<Toleration> tolerations, boolean ignorePreferNoSchedule) {
    for (int i = 0, n = taints.size(); i < n; i++) {
      if (!tolerated(taints.get(i), tolerations, ignorePreferNoSchedule)) {
        return false;
      }
    }
    return true;
  }

  private static boolean tolerated(Taint taint, List<Toleration> tolerations, boolean ignorePreferNoSchedule) {
    if (ignorePreferNoSchedule && taint.effect() == Taint.Effect.PreferNoSchedule) {
      return true;
    }
    for (int i = 0, n = tolerations.size(); i < n; i++) {
      if (tolerations.get(i).tolerates(taint)) {
        return true;
      }
    }
    return false;
  }
}
