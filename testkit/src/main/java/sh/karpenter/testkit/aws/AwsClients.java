package sh.karpenter.testkit.aws;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Builds real AWS SDK for Java v2 clients that talk to an endpoint on loopback (the emulator, or an
 * {@link AwsFaults} proxy in front of it): endpoint override, the emulator's region, static test
 * credentials, and the JDK's URLConnection HTTP client. Each call builds a new client: close it.
 *
 * @param endpoint where every service is served, e.g. {@code http://127.0.0.1:20526}
 * @param region the region the clients sign for and name in requests
 */
public record AwsClients(URI endpoint, Region region) {

  /** The access key ID of the static test credentials ({@code scripts/aws-emulator env} exports it too). */
  public static final String ACCESS_KEY_ID = "testing";
  /** The secret access key of the static test credentials. */
  public static final String SECRET_ACCESS_KEY = "testing";

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(60);

  public Ec2Client ec2() {
    return build(Ec2Client.builder());
  }

  public SsmClient ssm() {
    return build(SsmClient.builder());
  }

  public IamClient iam() {
    return build(IamClient.builder());
  }

  public SqsClient sqs() {
    return build(SqsClient.builder());
  }

  /**
   * Any other client, or one of the above configured further (retries, timeouts): sets endpoint,
   * region, credentials and HTTP client on {@code builder} and builds it, e.g.
   * {@code clients.build(Ec2Client.builder().overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())))}.
   * The IAM client, whose real endpoint is global, signs for this region too.
   */
  public <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(B builder) {
    return builder
        .endpointOverride(endpoint)
        .region(region)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY_ID, SECRET_ACCESS_KEY)))
        .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(CONNECT_TIMEOUT).socketTimeout(SOCKET_TIMEOUT))
        .build();
  }
}
