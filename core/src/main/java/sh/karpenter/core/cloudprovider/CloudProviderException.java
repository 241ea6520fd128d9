package sh.karpenter.core.cloudprovider;

/** An error from a {@link CloudProvider}; the subtype tells the caller what to do about it. */
public abstract sealed class CloudProviderException extends RuntimeException
    permits InsufficientCapacityException, NodeClaimNotFoundException, NodeClassNotReadyException, CreateException {
  protected CloudProviderException(String message, Throwable cause) {
    super(message, cause);
  }
}
