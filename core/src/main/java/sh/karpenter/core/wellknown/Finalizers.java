package sh.karpenter.core.wellknown;

/** Finalizers Karpenter owns. */
public final class Finalizers {
  private Finalizers() {}

  /** On both Node and NodeClaim. */
  public static final String TERMINATION = "karpenter.sh/termination";
}
