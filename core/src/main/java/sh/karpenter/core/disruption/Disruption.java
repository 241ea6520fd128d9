package sh.karpenter.core.disruption;

/**
 * Voluntary disruption decisions (upstream pkg/controllers/disruption), pure: candidates, budgets,
 * the five methods in order, every move simulated with the provisioning {@code Scheduler} against the
 * whole cluster.
 */
public final class Disruption {
  private Disruption() {}

  /** One loop: the commands of the first method, in §5.1's order, that produces any. */
  public static Decision decide(DisruptionInput input) {
    throw new UnsupportedOperationException("not yet");
  }

  /**
   * Re-checks a command against fresh state after the validation delay (15 s): the candidates are
   * still candidates within budget, and a fresh simulation still supports the move (for a replace,
   * the new replacement's instance types are a subset of the command's).
   */
  public static Validation validate(Command command, DisruptionInput fresh) {
    throw new UnsupportedOperationException("not yet");
  }
}
