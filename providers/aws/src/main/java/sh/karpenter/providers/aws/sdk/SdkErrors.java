package sh.karpenter.providers.aws.sdk;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/** How the AWS provider names an SDK failure in its errors and logs. */
public final class SdkErrors {
  private SdkErrors() {}

  /**
   * The service's error code and message ({@code UnauthorizedOperation: You are not authorized ...}),
   * or the SDK's message for a failure without a service answer (timeouts, connection errors).
   */
  public static String describe(SdkException e) {
    if (e instanceof AwsServiceException service && service.awsErrorDetails() != null) {
      String code = service.awsErrorDetails().errorCode();
      String message = service.awsErrorDetails().errorMessage();
      if (code != null) {
        return code + ": " + (message == null ? e.getMessage() : message);
      }
    }
    return e.getMessage();
  }

  /** Whether the service answered with this error code (upstream's {@code IsUnauthorizedOperationError} and kin). */
  public static boolean hasCode(SdkException e, String code) {
    return e instanceof AwsServiceException service && service.awsErrorDetails() != null
        && code.equals(service.awsErrorDetails().errorCode());
  }
}
