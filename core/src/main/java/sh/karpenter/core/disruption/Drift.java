package sh.karpenter.core.disruption;

import java.time.Instant;

/**
 * A NodeClaim's {@code Drifted=True} condition.
 *
 * @param reason {@code NodePoolDrifted}, {@code RequirementsDrifted}, {@code InstanceTypeNotFound} or the provider's
 * @param since the condition's last transition
 */
public record Drift(String reason, Instant since) {
  /** Static drift (the NodePool template hash changed) runs as its own method, before other drift. */
  public boolean isStatic() {
    return "NodePoolDrifted".equals(reason);
  }
}
