package sh.karpenter.core.catalog;

import java.util.LinkedHashMap;
import java.util.Map;
import sh.karpenter.core.resources.Quantity;

/**
 * The EC2NodeClass settings that change an AWS instance type's capacity and overhead (upstream's
 * {@code NewInstanceType} arguments from {@code spec.kubelet} and {@code spec.blockDeviceMappings}),
 * already resolved to plain values. {@link #DEFAULT} is a node class with default kubelet settings
 * and the AL2023 20Gi root volume, the case the bundled catalogue models
 * (docs/behaviour/cloudprovider.md#aws-catalogue).
 *
 * @param maxPods {@code kubelet.maxPods} as a count, null when unset (then ENI-limited)
 * @param podsPerCore {@code kubelet.podsPerCore}, null or 0 when unset; caps pods at podsPerCore × vCPUs
 * @param kubeReservedMilli {@code kubelet.kubeReserved}, resource name to milli-units; replaces the
 *     computed kube-reserved of the resources it names
 * @param systemReservedMilli {@code kubelet.systemReserved}, resource name to milli-units
 * @param evictionHard {@code kubelet.evictionHard}: {@code memory.available} and {@code
 *     nodefs.available} (a quantity or a percentage of capacity) replace the default thresholds;
 *     other signals are ignored, as upstream does
 * @param ephemeralStorageBytes the node's ephemeral storage (the root or ephemeral block device's
 *     volume size), null for the AL2023 default of 20Gi
 */
public record AwsNodeClassSettings(
    Integer maxPods,
    Integer podsPerCore,
    Map<String, Long> kubeReservedMilli,
    Map<String, Long> systemReservedMilli,
    Map<String, String> evictionHard,
    Long ephemeralStorageBytes) {

  /** The kubelet's eviction signal for memory. */
  public static final String MEMORY_AVAILABLE = "memory.available";

  /** The kubelet's eviction signal for the node file system. */
  public static final String NODEFS_AVAILABLE = "nodefs.available";

  /** Default kubelet settings and the AL2023 default root volume. */
  public static final AwsNodeClassSettings DEFAULT =
      new AwsNodeClassSettings(null, null, Map.of(), Map.of(), Map.of(), null);

  public AwsNodeClassSettings {
    kubeReservedMilli = Map.copyOf(kubeReservedMilli);
    systemReservedMilli = Map.copyOf(systemReservedMilli);
    evictionHard = Map.copyOf(evictionHard);
    if (maxPods != null && maxPods < 0) {
      throw new IllegalArgumentException("maxPods must not be negative: " + maxPods);
    }
    if (podsPerCore != null && podsPerCore < 0) {
      throw new IllegalArgumentException("podsPerCore must not be negative: " + podsPerCore);
    }
    if (ephemeralStorageBytes != null && ephemeralStorageBytes < 0) {
      throw new IllegalArgumentException("ephemeralStorageBytes must not be negative: " + ephemeralStorageBytes);
    }
    for (String signal : evictionHard.keySet()) {
      if (signal.equals(MEMORY_AVAILABLE) || signal.equals(NODEFS_AVAILABLE)) {
        String value = evictionHard.get(signal);
        if (value.endsWith("%")) {
          percentage(signal, value);
        } else {
          Quantity.parseMilli(value);
        }
      }
    }
  }

  /**
   * Resource quantities ({@code "200m"}, {@code "1Gi"}) as milli-units.
   *
   * @throws IllegalArgumentException naming {@code field} and the key when a value is not a quantity
   */
  public static Map<String, Long> parseQuantities(String field, Map<String, String> values) {
    Map<String, Long> out = new LinkedHashMap<>();
    values.forEach((key, value) -> {
      try {
        out.put(key, Quantity.parseMilli(value));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(field + "[" + key + "]: not a quantity: " + value, e);
      }
    });
    return out;
  }

  /**
   * The threshold of an eviction signal for a capacity in whole units (bytes), upstream's {@code
   * computeEvictionSignal}: a percentage of the capacity rounded up (100% counts as 0), else the
   * quantity.
   */
  static long evictionSignal(String signal, String value, long capacity) {
    if (value.endsWith("%")) {
      return (long) Math.ceil((double) capacity / 100 * percentage(signal, value));
    }
    return Math.ceilDiv(Quantity.parseMilli(value), 1000);
  }

  private static double percentage(String signal, String value) {
    double p;
    try {
      p = Double.parseDouble(value.substring(0, value.length() - 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("evictionHard[" + signal + "]: not a percentage: " + value, e);
    }
    return p == 100 ? 0 : p;
  }
}
