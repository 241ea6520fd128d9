package sh.karpenter.providers.aws.instancetype;

/** Instance types could not be read from EC2, or cannot be listed yet. */
public final class InstanceTypeException extends RuntimeException {
  public InstanceTypeException(String message) {
    super(message);
  }

  public InstanceTypeException(String message, Throwable cause) {
    super(message, cause);
  }
}
