package sh.karpenter.providers.aws.pricing;

/** A price update that failed; the prices from before stay in use. */
public final class PricingException extends RuntimeException {
  public PricingException(String message) {
    super(message);
  }

  public PricingException(String message, Throwable cause) {
    super(message, cause);
  }
}
