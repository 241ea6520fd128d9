package sh.karpenter.providers.aws.interruption;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageResponse;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * One in-memory SQS queue behind the SDK's client interface: GetQueueUrl, ReceiveMessage (up to the
 * requested count, never waiting) and DeleteMessage; every other call is the SDK's
 * UnsupportedOperationException. A received message is in flight until deleted or {@link #expireVisibility()}.
 */
final class TestingSqsClient implements SqsClient {
  static final String URL = "https://sqs.us-west-2.amazonaws.com/123456789012/";

  private final String queueName;
  private final Map<String, Message> waiting = new LinkedHashMap<>();
  private final Map<String, Message> inFlight = new LinkedHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();
  final List<ReceiveMessageRequest> receives = new ArrayList<>();
  int deletes;

  TestingSqsClient(String queueName) {
    this.queueName = queueName;
  }

  synchronized void send(String body) {
    String id = "m-" + ids.incrementAndGet();
    waiting.put(id, Message.builder().messageId(id).body(body).receiptHandle("rh-" + id).build());
  }

  /** Messages neither deleted nor in flight. */
  synchronized int waiting() {
    return waiting.size();
  }

  synchronized int inFlight() {
    return inFlight.size();
  }

  /** Puts every in-flight message back, as the visibility timeout would. */
  synchronized void expireVisibility() {
    waiting.putAll(inFlight);
    inFlight.clear();
  }

  @Override
  public synchronized GetQueueUrlResponse getQueueUrl(GetQueueUrlRequest request) {
    if (!queueName.equals(request.queueName())) {
      throw QueueDoesNotExistException.builder().message("The specified queue does not exist.").build();
    }
    return GetQueueUrlResponse.builder().queueUrl(URL + queueName).build();
  }

  @Override
  public synchronized ReceiveMessageResponse receiveMessage(ReceiveMessageRequest request) {
    receives.add(request);
    List<Message> out = new ArrayList<>();
    var it = waiting.entrySet().iterator();
    while (it.hasNext() && out.size() < request.maxNumberOfMessages()) {
      var e = it.next();
      it.remove();
      inFlight.put(e.getKey(), e.getValue());
      out.add(e.getValue());
    }
    return ReceiveMessageResponse.builder().messages(out).build();
  }

  @Override
  public synchronized DeleteMessageResponse deleteMessage(DeleteMessageRequest request) {
    deletes++;
    inFlight.values().removeIf(m -> m.receiptHandle().equals(request.receiptHandle()));
    return DeleteMessageResponse.builder().build();
  }

  @Override
  public String serviceName() {
    return SERVICE_NAME;
  }

  @Override
  public void close() {}
}
