package sh.karpenter.controller.state;

import sh.karpenter.controller.objects.Pods;

/**
 * A pod by namespace, name and UID: the UID tells a pod from a later one of the same name, so a
 * binding recorded for one is never applied to the other.
 */
public record PodRef(String namespace, String name, String uid) {
  /** {@code namespace/name} ({@link Pods#key}). */
  public String key() {
    return Pods.key(namespace, name);
  }
}
