package sh.karpenter.providers.aws.amifamily;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.api.aws.v1.ParsedKubeletConfig;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.core.taints.Taint;

/**
 * What a node's user data is built from (upstream's {@code bootstrap.Options}).
 *
 * @param clusterCidr the cluster's service CIDR, or null when unknown (AL2023 then cannot bootstrap)
 * @param caBundle the cluster CA bundle, base64, or null
 * @param kubelet the parsed kubelet configuration with {@code maxPods} and {@code clusterDNS} resolved
 * @param kubeletFields the raw kubelet configuration with the same values written in (AL2023 passes it
 *     through whole)
 * @param taints taints and startup taints, with {@code karpenter.sh/unregistered:NoExecute}
 * @param labels the node's labels, without those the kubelet may not set (sorted)
 * @param customUserData the EC2NodeClass's {@code spec.userData}, or null
 * @param instanceStorePolicy {@code RAID0} or null
 * @param defaultMountPaths Bottlerocket only: the AMI binds ephemeral storage to its default paths
 *     itself (Bottlerocket ≥ 1.46)
 */
public record BootstrapOptions(
    String clusterName,
    String clusterEndpoint,
    String clusterCidr,
    String caBundle,
    ParsedKubeletConfig kubelet,
    Map<String, JsonNode> kubeletFields,
    List<Taint> taints,
    Map<String, String> labels,
    String customUserData,
    String instanceStorePolicy,
    boolean defaultMountPaths) {

  public static final String RAID0 = "RAID0";

  public BootstrapOptions {
    kubeletFields = Collections.unmodifiableMap(new LinkedHashMap<>(kubeletFields));
    taints = List.copyOf(taints);
    labels = Collections.unmodifiableMap(new TreeMap<>(labels));
  }

  boolean raid0() {
    return RAID0.equals(instanceStorePolicy);
  }

  /** {@code --node-labels="k=v,..."} sorted by key, or "" without labels (upstream's {@code nodeLabelArg}). */
  String nodeLabelArg() {
    if (labels.isEmpty()) {
      return "";
    }
    List<String> pairs = new ArrayList<>();
    labels.forEach((k, v) -> pairs.add(k + "=" + v));
    return "--node-labels=" + goQuote(String.join(",", pairs));
  }

  /** {@code --register-with-taints="k=v:Effect,..."} (upstream's {@code nodeTaintArg}; always present). */
  String nodeTaintArg() {
    List<String> parts = new ArrayList<>();
    for (Taint t : taints) {
      parts.add(t.toString());
    }
    return "--register-with-taints=" + goQuote(String.join(",", parts));
  }

  /** The kubelet flags AL2's bootstrap.sh passes on (upstream's {@code kubeletExtraArgs}). */
  List<String> kubeletExtraArgs() {
    List<String> args = new ArrayList<>();
    args.add(nodeLabelArg());
    args.add(nodeTaintArg());
    if (kubelet != null) {
      kubelet.maxPodsValue().ifPresent(maxPods -> args.add("--max-pods=" + maxPods));
      if (kubelet.podsPerCore() != null) {
        args.add("--pods-per-core=" + kubelet.podsPerCore());
      }
      args.add(joinParameterArgs("--system-reserved", kubelet.systemReserved(), "="));
      args.add(joinParameterArgs("--kube-reserved", kubelet.kubeReserved(), "="));
      args.add(joinParameterArgs("--eviction-hard", kubelet.evictionHard(), "<"));
      args.add(joinParameterArgs("--eviction-soft", kubelet.evictionSoft(), "<"));
      Map<String, String> gracePeriods = new LinkedHashMap<>();
      if (kubelet.evictionSoftGracePeriod() != null) {
        kubelet.evictionSoftGracePeriod().forEach((k, v) -> gracePeriods.put(k, goDuration(v)));
      }
      args.add(joinParameterArgs("--eviction-soft-grace-period", gracePeriods, "="));
      if (kubelet.evictionMaxPodGracePeriod() != null) {
        args.add("--eviction-max-pod-grace-period=" + kubelet.evictionMaxPodGracePeriod());
      }
      if (kubelet.imageGCHighThresholdPercent() != null) {
        args.add("--image-gc-high-threshold=" + kubelet.imageGCHighThresholdPercent());
      }
      if (kubelet.imageGCLowThresholdPercent() != null) {
        args.add("--image-gc-low-threshold=" + kubelet.imageGCLowThresholdPercent());
      }
      if (kubelet.cpuCFSQuota() != null) {
        args.add("--cpu-cfs-quota=" + kubelet.cpuCFSQuota());
      }
    }
    args.removeIf(String::isEmpty);
    return args;
  }

  static String goDuration(GoDuration d) {
    return GoDuration.of(d.duration()).toString();
  }

  /** {@code name="k1<sep>v1,k2<sep>v2"} (keys sorted for a stable result), or "" for no entries. */
  private static String joinParameterArgs(String name, Map<String, String> values, String separator) {
    if (values == null || values.isEmpty()) {
      return "";
    }
    List<String> args = new ArrayList<>();
    new TreeMap<>(values).forEach((k, v) -> args.add(k + separator + v));
    return name + "=" + goQuote(String.join(",", args));
  }

  /** Go's {@code %q}: a double-quoted string with {@code "} and {@code \} escaped. */
  static String goQuote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        default -> out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
