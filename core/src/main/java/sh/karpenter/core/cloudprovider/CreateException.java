package sh.karpenter.core.cloudprovider;

/** A launch failed for another reason; {@code reason} becomes the {@code Launched} condition's reason. */
public final class CreateException extends CloudProviderException {
  private final String reason;

  public CreateException(String reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public String reason() {
    return reason;
  }
}
