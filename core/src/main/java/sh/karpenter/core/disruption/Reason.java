package sh.karpenter.core.disruption;

/**
 * Why a node is voluntarily disrupted: the values of a budget's {@code reasons}
 * (docs/behaviour/disruption.md#budgets). {@link #UNHEALTHY} is node repair's reason (upstream v1.15,
 * {@link Method#REPAIR}).
 */
public enum Reason {
  EMPTY("Empty"),
  DRIFTED("Drifted"),
  UNDERUTILIZED("Underutilized"),
  UNHEALTHY("Unhealthy");

  private final String apiName;

  Reason(String apiName) {
    this.apiName = apiName;
  }

  /** The name in the API ({@code Empty}, {@code Drifted}, {@code Underutilized}, {@code Unhealthy}). */
  public String apiName() {
    return apiName;
  }

  /** The metric label value: the API name in lower case. */
  public String metricLabel() {
    return apiName.toLowerCase(java.util.Locale.ROOT);
  }

  /** The reason with this API name. */
  public static Reason ofApiName(String name) {
    for (Reason r : values()) {
      if (r.apiName.equals(name)) {
        return r;
      }
    }
    throw new IllegalArgumentException(
        "unknown disruption reason " + name + " (want Empty, Drifted, Underutilized or Unhealthy)");
  }
}
