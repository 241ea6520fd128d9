package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;

/**
 * Publishes Kubernetes Events about objects, with upstream's de-duplication: an identical event
 * (object, type, reason, message) within {@code dedupe} is dropped. Implementations never throw and
 * never block the caller on the API server.
 */
public interface EventRecorder {
  /** Upstream's default de-duplication window. */
  Duration DEFAULT_DEDUPE = Duration.ofMinutes(2);

  String NORMAL = "Normal";
  String WARNING = "Warning";

  void publish(HasMetadata involved, String type, String reason, String message, Duration dedupe);

  default void normal(HasMetadata involved, String reason, String message) {
    publish(involved, NORMAL, reason, message, DEFAULT_DEDUPE);
  }

  default void warning(HasMetadata involved, String reason, String message) {
    publish(involved, WARNING, reason, message, DEFAULT_DEDUPE);
  }
}
