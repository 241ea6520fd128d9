package sh.karpenter.providers.aws.interruption;

/** What the interruption controller does to a NodeClaim a message names (upstream's {@code Action}). */
public enum Action {
  /**
   * Delete the NodeClaim: the termination controller taints and drains its Node and then terminates
   * the instance, and provisioning finds room for the Node's pods elsewhere meanwhile.
   */
  CORDON_AND_DRAIN,
  /**
   * Set {@code karpenter.sh/nodeclaim-termination-timestamp} to now, then delete the NodeClaim: the
   * instance is already broken, so the drain deletes the pods at once, without waiting for
   * PodDisruptionBudgets (upstream's {@code ForcefulTermination}, for failed status checks).
   */
  FORCEFUL_TERMINATION,
  /** Publish the event and nothing else. */
  NO_ACTION
}
