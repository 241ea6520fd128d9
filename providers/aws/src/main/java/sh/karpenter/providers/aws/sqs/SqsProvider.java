package sh.karpenter.providers.aws.sqs;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * The interruption queue (upstream's {@code sqs.DefaultProvider}): named by {@code
 * --interruption-queue}, its URL resolved once with GetQueueUrl on first use (a failure is retried on
 * the next use), received from with long polling and deleted from one message at a time. Thread-safe.
 */
public final class SqsProvider {
  /** Upstream's {@code MaxNumberOfMessages}: SQS's maximum per ReceiveMessage. */
  public static final int MAX_MESSAGES = 10;
  /** Upstream's {@code WaitTimeSeconds}: SQS's longest long poll. */
  public static final Duration WAIT_TIME = Duration.ofSeconds(20);
  /** Upstream's {@code VisibilityTimeout}: a message not deleted in this time is received again. */
  public static final Duration VISIBILITY_TIMEOUT = Duration.ofSeconds(20);

  private final SqsClient client;
  private final String queueName;
  private final Duration waitTime;
  private volatile String queueUrl;

  /** The queue {@code queueName}, polled for {@link #WAIT_TIME}. */
  public SqsProvider(SqsClient client, String queueName) {
    this(client, queueName, WAIT_TIME);
  }

  /** @param waitTime how long a ReceiveMessage waits for a message (whole seconds, 0..20; tests shorten it) */
  public SqsProvider(SqsClient client, String queueName, Duration waitTime) {
    this.client = Objects.requireNonNull(client, "client");
    if (queueName == null || queueName.isBlank()) {
      throw new IllegalArgumentException("--interruption-queue: the queue name is empty");
    }
    if (waitTime.isNegative() || waitTime.compareTo(WAIT_TIME) > 0) {
      throw new IllegalArgumentException("interruption queue wait time " + waitTime + " is not in [0s, 20s]");
    }
    this.queueName = queueName;
    this.waitTime = waitTime;
  }

  /** The queue's name (upstream's {@code Name()}: the last segment of its URL, which is the name). */
  public String name() {
    return queueName;
  }

  /** The queue's URL, from GetQueueUrl the first time. */
  public String queueUrl() {
    String url = queueUrl;
    if (url == null) {
      url = client.getQueueUrl(r -> r.queueName(queueName)).queueUrl();
      queueUrl = url;
    }
    return url;
  }

  /** Up to {@link #MAX_MESSAGES} messages, waiting up to the wait time for the first one; none when the queue stays empty. */
  public List<Message> receive() {
    String url = queueUrl();
    return client.receiveMessage(r -> r.queueUrl(url)
            .maxNumberOfMessages(MAX_MESSAGES)
            .visibilityTimeout((int) VISIBILITY_TIMEOUT.toSeconds())
            .waitTimeSeconds((int) waitTime.toSeconds())
            .messageSystemAttributeNames(MessageSystemAttributeName.SENT_TIMESTAMP)
            .messageAttributeNames("All"))
        .messages();
  }

  /** Deletes a received message by its receipt handle. */
  public void delete(Message message) {
    String url = queueUrl();
    client.deleteMessage(r -> r.queueUrl(url).receiptHandle(message.receiptHandle()));
  }
}
