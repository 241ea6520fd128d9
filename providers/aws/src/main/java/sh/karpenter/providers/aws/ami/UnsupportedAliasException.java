package sh.karpenter.providers.aws.ami;

/**
 * An alias the cluster's Kubernetes version does not support (upstream's {@code AL2DeprecationError}
 * and {@code WS2025UnsupportedVersionError}); the NodeClass controller reports it as {@code AMIsReady}
 * False, reason {@code UnsupportedAlias}, and does not retry until the class changes.
 */
public final class UnsupportedAliasException extends RuntimeException {
  public UnsupportedAliasException(String message) {
    super(message);
  }
}
