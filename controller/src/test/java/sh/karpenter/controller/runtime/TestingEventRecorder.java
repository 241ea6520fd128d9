package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An {@link EventRecorder} for tests: keeps published events in memory, in order, after the same
 * de-duplication as {@link KubernetesEventRecorder} (no rate limits), so tests can assert which
 * events a controller raised.
 */
public final class TestingEventRecorder implements EventRecorder {
  /** One published event, about the object {@code kind} {@code namespace}/{@code name} (namespace null when cluster-scoped). */
  public record RecordedEvent(String kind, String namespace, String name, String type, String reason, String message) {}

  private final EventDeduplicator deduplicator;
  private final List<RecordedEvent> events = new ArrayList<>();

  /** De-duplicates on the system clock. */
  public TestingEventRecorder() {
    this(Clock.systemUTC());
  }

  /** De-duplicates on {@code clock} (step a {@code TestingClock} past the window to see repeats). */
  public TestingEventRecorder(Clock clock) {
    this.deduplicator = new EventDeduplicator(clock);
  }

  @Override
  public void publish(HasMetadata involved, String type, String reason, String message, Duration dedupe) {
    if (!deduplicator.admit(involved, type, reason, message, dedupe)) {
      return;
    }
    RecordedEvent event = new RecordedEvent(EventDeduplicator.kind(involved), EventDeduplicator.namespace(involved),
        EventDeduplicator.name(involved), type, reason, message);
    synchronized (events) {
      events.add(event);
    }
  }

  /** Every event kept so far, oldest first. */
  public List<RecordedEvent> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** The reasons of every event kept so far, oldest first. */
  public List<String> reasons() {
    return events().stream().map(RecordedEvent::reason).toList();
  }

  /** The events about objects named {@code name}, oldest first. */
  public List<RecordedEvent> forObject(String name) {
    return events().stream().filter(e -> Objects.equals(e.name(), name)).toList();
  }

  /** Forgets the events and the de-duplication windows. */
  public void clear() {
    synchronized (events) {
      events.clear();
    }
    deduplicator.clear();
  }
}
