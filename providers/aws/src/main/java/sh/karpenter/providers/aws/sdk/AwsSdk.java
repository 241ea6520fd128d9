package sh.karpenter.providers.aws.sdk;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * How the AWS provider builds its SDK v2 clients. Credentials come from the SDK's default chain
 * (environment, profile, web identity for IRSA/Pod Identity, instance metadata), and so do the region
 * ({@code AWS_REGION}) and the endpoints ({@code AWS_ENDPOINT_URL}, {@code AWS_ENDPOINT_URL_EC2}, ...),
 * unless {@code region} or {@code endpoint} override them (upstream's {@code --aws-endpoint}-style
 * settings; tests point the endpoint at the emulator on loopback). Every client uses the JDK's
 * URLConnection HTTP client. Nothing here logs credentials.
 *
 * @param region the region to sign for and call, or empty for the default chain's
 * @param endpoint one endpoint for every service, or empty for the SDK's (and its environment variables')
 * @param socketTimeout how long a call may wait for the answer's bytes before the attempt fails (and
 *     the SDK retries it): {@link #SOCKET_TIMEOUT}; tests of timeouts shorten it
 */
public record AwsSdk(Optional<Region> region, Optional<URI> endpoint, Duration socketTimeout) {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(60);

  /** Region, endpoints and credentials all from the SDK's default chain and environment. */
  public static AwsSdk fromEnvironment() {
    return new AwsSdk(Optional.empty(), Optional.empty(), SOCKET_TIMEOUT);
  }

  /** Every service at {@code endpoint} (e.g. the emulator), signed for {@code region}. */
  public static AwsSdk at(URI endpoint, Region region) {
    return new AwsSdk(Optional.of(region), Optional.of(endpoint), SOCKET_TIMEOUT);
  }

  /** These clients with another socket timeout. */
  public AwsSdk withSocketTimeout(Duration timeout) {
    return new AwsSdk(region, endpoint, timeout);
  }

  public Ec2Client ec2() {
    return build(Ec2Client.builder());
  }

  public SsmClient ssm() {
    return build(SsmClient.builder());
  }

  public IamClient iam() {
    return build(IamClient.builder());
  }

  /** The interruption queue's client (docs/behaviour/aws-interruption.md). */
  public SqsClient sqs() {
    return build(SqsClient.builder());
  }

  /**
   * Any client: region and endpoint overrides (when set) and the HTTP client applied to {@code
   * builder}, credentials from the default chain.
   */
  public <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(B builder) {
    region.ifPresent(builder::region);
    endpoint.ifPresent(builder::endpointOverride);
    return builder
        .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(CONNECT_TIMEOUT).socketTimeout(socketTimeout))
        .build();
  }
}
