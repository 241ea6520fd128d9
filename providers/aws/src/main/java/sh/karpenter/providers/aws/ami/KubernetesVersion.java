package sh.karpenter.providers.aws.ami;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;

/**
 * The cluster's Kubernetes version as AMI aliases use it, {@code major.minor} (upstream's version
 * provider {@code getK8sVersion}): from the API server's {@code /version}, the {@code +} EKS appends
 * to the minor dropped. Upstream refuses versions outside {@link #MIN}..{@link #MAX}.
 */
public final class KubernetesVersion {
  public static final String MIN = "1.26";
  public static final String MAX = "1.37";

  private KubernetesVersion() {}

  /**
   * Asks the API server.
   *
   * @throws IllegalStateException when it does not answer, or answers a version Karpenter does not support
   */
  public static String of(KubernetesClient client) {
    VersionInfo info;
    try {
      info = client.getKubernetesVersion();
    } catch (RuntimeException e) {
      throw new IllegalStateException("getting kubernetes version from the kubernetes API: " + e.getMessage(), e);
    }
    if (info == null) {
      throw new IllegalStateException("getting kubernetes version from the kubernetes API: no answer");
    }
    return validated(format(info.getMajor(), info.getMinor()));
  }

  /** {@code 1} and {@code 31+} give {@code 1.31}. */
  public static String format(String major, String minor) {
    return major + "." + (minor != null && minor.endsWith("+") ? minor.substring(0, minor.length() - 1) : minor);
  }

  /** {@code version} when within {@link #MIN}..{@link #MAX}, else the upstream error. */
  public static String validated(String version) {
    if (compare(version, MIN) < 0 || compare(MAX, version) < 0) {
      throw new IllegalStateException("validating kubernetes version, karpenter is not compatible with kubernetes version (version=" + version + ")");
    }
    return version;
  }

  private static int compare(String a, String b) {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < Math.max(x.length, y.length); i++) {
      int xi = i < x.length ? number(x[i], a) : 0;
      int yi = i < y.length ? number(y[i], b) : 0;
      if (xi != yi) {
        return Integer.compare(xi, yi);
      }
    }
    return 0;
  }

  private static int number(String part, String version) {
    try {
      return Integer.parseInt(part);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("validating kubernetes version, cannot read version \"" + version + "\"", e);
    }
  }
}
