package sh.karpenter.core.cloudprovider;

/** The instance does not exist (any more). */
public final class NodeClaimNotFoundException extends CloudProviderException {
  public NodeClaimNotFoundException(String message) {
    super(message, null);
  }
}
