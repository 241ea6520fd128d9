package sh.karpenter.benchmarks.workload;

import java.util.List;
import java.util.Map;
import java.util.Random;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;

/**
 * The seeded randomness and pod naming shared by the benchmark mixes: every pod gets a unique name
 * ({@code kind-index}) and UID in namespace {@code default}, and one container with the given
 * requests. The same seed always yields the same pods, so benchmark runs are comparable.
 */
final class PodFactory {

  private final Random random;
  private int created;

  PodFactory(long seed) {
    random = new Random(seed);
  }

  /** A pending pod of one container; callers add constraints before {@code build()}. */
  Pod.Builder pod(String kind, Map<String, String> labels, Resources requests) {
    String name = kind + "-" + created++;
    return Pod.builder().namespace("default").name(name).uid("uid-" + name).labels(labels).container(requests);
  }

  /** A uniformly chosen element. */
  <T> T pick(List<T> choices) {
    return choices.get(random.nextInt(choices.size()));
  }

  /** A uniform int in [0, bound). */
  int nextInt(int bound) {
    return random.nextInt(bound);
  }

  /** A uniform double in [0, 1). */
  double nextDouble() {
    return random.nextDouble();
  }
}
