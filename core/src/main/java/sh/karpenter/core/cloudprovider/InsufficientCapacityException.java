package sh.karpenter.core.cloudprovider;

/** No offering the request allows has capacity; the NodeClaim is deleted and the pods re-provisioned. */
public final class InsufficientCapacityException extends CloudProviderException {
  public InsufficientCapacityException(String message) {
    super(message, null);
  }
}
