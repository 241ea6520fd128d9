package sh.karpenter.providers.aws.interruption;

/** A queue message that is not an event Karpenter can read: deleted, counted, and never retried. */
public final class UnparseableMessageException extends Exception {
  public UnparseableMessageException(String message) {
    super(message);
  }

  public UnparseableMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}
