package sh.karpenter.controller.state;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which node or NodeClaim the provisioner expects each pod to land on, for a limited time
 * (upstream's StateNode nomination, {@code max(2 × BatchMaxDuration, 10s)}). A nominated node is
 * about to receive pods, so disruption leaves it alone until the nomination lapses.
 *
 * <p>Each pod's latest nomination is also kept past the window, until the pod is nominated elsewhere,
 * fails to schedule or is deleted (upstream's pod-to-NodeClaim mapping): a NodeClaim that fails to
 * launch tells {@link #podsNominatedTo its pods} why.
 */
final class Nominations {
  private record Nomination(String node, Instant until) {}

  private final Clock clock;
  private final Duration window;
  private final Map<String, Nomination> byPod = new ConcurrentHashMap<>();
  private final Map<String, Instant> byNode = new ConcurrentHashMap<>();

  Nominations(Clock clock, Duration window) {
    this.clock = clock;
    this.window = window;
  }

  void nominate(String podKey, String node) {
    Instant until = clock.instant().plus(window);
    byPod.put(podKey, new Nomination(node, until));
    byNode.merge(node, until, (a, b) -> a.isAfter(b) ? a : b);
  }

  Optional<String> forPod(String podKey) {
    Nomination nomination = byPod.get(podKey);
    if (nomination == null || !clock.instant().isBefore(nomination.until())) {
      return Optional.empty();
    }
    return Optional.of(nomination.node());
  }

  /** The pods whose latest nomination is to this node or NodeClaim, whether or not its window has passed. */
  List<String> podsNominatedTo(String node) {
    List<String> pods = new ArrayList<>();
    byPod.forEach((pod, nomination) -> {
      if (nomination.node().equals(node)) {
        pods.add(pod);
      }
    });
    pods.sort(null);
    return pods;
  }

  boolean isNominated(String node) {
    Instant until = byNode.get(node);
    if (until == null) {
      return false;
    }
    if (!clock.instant().isBefore(until)) {
      byNode.remove(node, until);
      return false;
    }
    return true;
  }

  void forgetPod(String podKey) {
    byPod.remove(podKey);
  }

  void forgetNode(String node) {
    byNode.remove(node);
  }
}
