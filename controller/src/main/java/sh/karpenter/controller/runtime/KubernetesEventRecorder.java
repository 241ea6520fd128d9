package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes core/v1 Events to the API server with upstream Karpenter's recorder behaviour: identical
 * events (object, type, reason, message) inside the de-duplication window are dropped, then
 * per-reason token buckets limit noisy reasons (pod {@code Nominated}: 5/s, burst 10). Events are
 * written by one background thread from a bounded queue; the caller never blocks on the API server
 * and failures are only logged.
 *
 * <p>Events name the object through {@code involvedObject} and live in its namespace ({@code
 * default} for cluster-scoped objects such as Nodes and NodeClaims), with {@code source.component}
 * and {@code reportingComponent} {@code karpenter}.
 */
public final class KubernetesEventRecorder implements EventRecorder, AutoCloseable {
  /** The component named as the events' source. */
  public static final String COMPONENT = "karpenter";
  /** How many events may wait for the background thread before new ones are dropped. */
  public static final int QUEUE_CAPACITY = 1000;

  /** A token bucket: {@code qps} events per second, up to {@code burst} at once. */
  public record RateLimit(double qps, int burst) {}

  /** Upstream's per-reason limits: pod {@code Nominated} events at 5/s, burst 10. */
  public static final Map<String, RateLimit> DEFAULT_RATE_LIMITS = Map.of("Nominated", new RateLimit(5, 10));

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEventRecorder.class);
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX").withZone(ZoneOffset.UTC);
  private static final int REPORTING_INSTANCE_LIMIT = 128;

  private final KubernetesClient client;
  private final Clock clock;
  private final String reportingInstance;
  private final EventDeduplicator deduplicator;
  private final Map<String, TokenBucket> reasonLimits = new HashMap<>();
  private final ThreadPoolExecutor writer;

  /** Upstream's rate limits; the reporting instance is this host's name. */
  public KubernetesEventRecorder(KubernetesClient client, Clock clock) {
    this(client, clock, DEFAULT_RATE_LIMITS, hostname());
  }

  /**
   * @param rateLimits token buckets by event reason; reasons not listed are not rate limited
   * @param reportingInstance this replica, as written to {@code reportingInstance} (e.g. the pod name)
   */
  public KubernetesEventRecorder(KubernetesClient client, Clock clock, Map<String, RateLimit> rateLimits,
      String reportingInstance) {
    this.client = client;
    this.clock = clock;
    this.reportingInstance = reportingInstance.length() > REPORTING_INSTANCE_LIMIT
        ? reportingInstance.substring(0, REPORTING_INSTANCE_LIMIT)
        : reportingInstance;
    this.deduplicator = new EventDeduplicator(clock);
    rateLimits.forEach((reason, limit) -> reasonLimits.put(reason, new TokenBucket(limit.qps(), limit.burst(), clock)));
    this.writer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(QUEUE_CAPACITY),
        runnable -> {
          Thread thread = new Thread(runnable, "event-recorder");
          thread.setDaemon(true);
          return thread;
        },
        (runnable, executor) -> LOG.warn("event queue full or closed, dropping an event"));
  }

  private static String hostname() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      String host = System.getenv("HOSTNAME");
      return host != null ? host : COMPONENT;
    }
  }

  @Override
  public void publish(HasMetadata involved, String type, String reason, String message, Duration dedupe) {
    try {
      if (!admit(involved, type, reason, message, dedupe)) {
        return;
      }
      Event event = toEvent(involved, type, reason, message, clock.instant());
      writer.execute(() -> write(event));
    } catch (RuntimeException e) {
      LOG.warn("could not publish event reason={} object={}", reason, EventDeduplicator.name(involved), e);
    }
  }

  /** Applies de-duplication, then the reason's rate limit (upstream's order). */
  boolean admit(HasMetadata involved, String type, String reason, String message, Duration dedupe) {
    if (!deduplicator.admit(involved, type, reason, message, dedupe)) {
      return false;
    }
    TokenBucket limit = reasonLimits.get(reason);
    if (limit != null && !limit.tryAcquire()) {
      LOG.debug("event rate limited reason={} object={}", reason, EventDeduplicator.name(involved));
      return false;
    }
    return true;
  }

  /** The core/v1 Event for one publish (namespace {@code default} for cluster-scoped objects). */
  Event toEvent(HasMetadata involved, String type, String reason, String message, Instant now) {
    String objectNamespace = EventDeduplicator.namespace(involved);
    String objectName = EventDeduplicator.name(involved);
    String namespace = objectNamespace == null || objectNamespace.isEmpty() ? "default" : objectNamespace;
    String timestamp = now.truncatedTo(ChronoUnit.SECONDS).toString();
    return new EventBuilder()
        .withNewMetadata()
          .withGenerateName((objectName == null ? "unnamed" : objectName) + ".")
          .withNamespace(namespace)
        .endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder()
            .withKind(EventDeduplicator.kind(involved))
            .withApiVersion(EventDeduplicator.apiVersion(involved))
            .withName(objectName)
            .withNamespace(objectNamespace)
            .withUid(involved.getMetadata() == null ? null : involved.getMetadata().getUid())
            .withResourceVersion(involved.getMetadata() == null ? null : involved.getMetadata().getResourceVersion())
            .build())
        .withType(type)
        .withReason(reason)
        .withMessage(message)
        .withAction(reason)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .withReportingInstance(reportingInstance)
        .withCount(1)
        .withFirstTimestamp(timestamp)
        .withLastTimestamp(timestamp)
        .withEventTime(new MicroTime(MICRO_TIME.format(now)))
        .build();
  }

  private void write(Event event) {
    try {
      client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
    } catch (RuntimeException e) {
      LOG.warn("could not create event reason={} object={}/{}: {}", event.getReason(),
          event.getInvolvedObject().getNamespace(), event.getInvolvedObject().getName(), e.getMessage());
    }
  }

  /** Waits up to {@code timeout} for the events queued so far to be written; true when they were. */
  public boolean flush(Duration timeout) {
    try {
      return writer.submit(() -> {}).get(timeout.toNanos(), TimeUnit.NANOSECONDS) == null;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return false;
    }
  }

  /** Writes what is queued (up to 10 s), then stops the background thread. */
  @Override
  public void close() {
    writer.shutdown();
    try {
      if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
        writer.shutdownNow();
      }
    } catch (InterruptedException e) {
      writer.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
