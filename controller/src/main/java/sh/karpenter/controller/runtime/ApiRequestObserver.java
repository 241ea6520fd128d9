package sh.karpenter.controller.runtime;

/**
 * Hears about every request the controller's client sends to the API server (one per attempt, so a
 * retried request counts each time), so that its load can be exported as a metric outside the
 * runtime. Implementations must be fast and must not throw; {@link #NOOP} does nothing.
 */
@FunctionalInterface
public interface ApiRequestObserver {
  /** Does nothing. */
  ApiRequestObserver NOOP = (verb, resource) -> {};

  /**
   * One request was sent.
   *
   * @param verb the API server's verb: {@code get}, {@code list}, {@code watch}, {@code create},
   *     {@code update}, {@code patch}, {@code delete}, {@code deletecollection}, or the lower-case
   *     HTTP method of a request that is not to a resource (e.g. discovery)
   * @param resource the resource's plural name, with {@code /subresource} when there is one (e.g.
   *     {@code nodeclaims/status}, {@code pods/eviction}); {@code ""} for a request that is not to a
   *     resource
   */
  void requested(String verb, String resource);
}
