package sh.karpenter.core.cloudprovider;

/** The NodeClass the request names is missing or not Ready; the NodeClaim is deleted. */
public final class NodeClassNotReadyException extends CloudProviderException {
  public NodeClassNotReadyException(String message) {
    super(message, null);
  }
}
