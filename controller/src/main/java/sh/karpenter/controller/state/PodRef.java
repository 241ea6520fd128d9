package sh.karpenter.controller.state;

/**
 * A pod by namespace, name and UID: the UID tells a pod from a later one of the same name, so a
 * binding recorded for one is never applied to the other.
 */
public record PodRef(String namespace, String name, String uid) {
  /** {@code namespace/name}. */
  public String key() {
    return namespace + "/" + name;
  }
}
