package sh.karpenter.controller.state.nodepoolhealth;

/** What a NodePool's recent launch outcomes say about its node registrations. */
public enum Status {
  /** No outcome recorded since the tracker was created or reset. */
  UNKNOWN,
  /** Fewer than half the tracked slots hold failures. */
  HEALTHY,
  /** At least half the tracked slots hold failures ({@link Tracker#THRESHOLD_FALSE}). */
  UNHEALTHY
}
