package sh.karpenter.testkit.lifecycle;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import sh.karpenter.controller.runtime.EventRecorder;

/** Remembers every event published, for assertions (no de-duplication). */
final class TestingEvents implements EventRecorder {

  /** One published event. */
  record Event(String kind, String name, String type, String reason, String message) {}

  private final List<Event> events = new CopyOnWriteArrayList<>();

  @Override
  public void publish(HasMetadata involved, String type, String reason, String message, Duration dedupe) {
    events.add(new Event(involved.getKind(), involved.getMetadata().getName(), type, reason, message));
  }

  List<Event> all() {
    return List.copyOf(events);
  }
}
