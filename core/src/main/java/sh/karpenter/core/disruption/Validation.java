package sh.karpenter.core.disruption;

/** The re-check of a command after the validation delay: still valid, or why not. */
public record Validation(boolean valid, String reason) {
  public static final Validation VALID = new Validation(true, "");

  public static Validation invalid(String reason) {
    return new Validation(false, reason);
  }
}
