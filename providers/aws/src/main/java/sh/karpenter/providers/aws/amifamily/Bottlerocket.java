package sh.karpenter.providers.aws.amifamily;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.api.aws.v1.ParsedKubeletConfig;
import sh.karpenter.core.taints.Taint;

/**
 * Bottlerocket: TOML settings (upstream's {@code bootstrap.Bottlerocket}). The NodeClass's user data
 * is read as TOML; its {@code settings} are kept, except that {@code settings.kubernetes} keeps only
 * the keys upstream's typed settings know (in their order), and Karpenter then sets the cluster name,
 * API server, CA, node labels (merged over the user's), taints (replacing the user's), max pods and
 * the kubelet fields the NodeClass sets; RAID0 adds a bootstrap command binding the instance store.
 */
final class Bottlerocket implements AmiFamily {

  /** upstream's {@code BottlerocketKubernetes} fields, in declaration order. */
  static final List<String> KUBERNETES_KEYS = List.of(
      "api-server", "cloud-provider", "cluster-certificate", "cluster-name", "cluster-dns-ip", "credential-providers",
      "node-labels", "node-taints", "max-pods", "static-pods", "eviction-hard", "eviction-soft",
      "eviction-soft-grace-period", "eviction-max-pod-grace-period", "kube-reserved", "system-reserved",
      "allowed-unsafe-sysctls", "server-tls-bootstrap", "registry-qps", "registry-burst", "event-qps", "event-burst",
      "kube-api-qps", "kube-api-burst", "container-log-max-size", "container-log-max-files", "cpu-manager-policy",
      "cpu-manager-policy-options", "cpu-manager-reconcile-period", "memory-manager-policy",
      "memory-manager-reserved-memory", "topology-manager-scope", "topology-manager-policy",
      "topology-manager-policy-options", "image-gc-high-threshold-percent", "image-gc-low-threshold-percent",
      "ids-per-pod", "cpu-cfs-quota-enforced", "shutdown-grace-period", "shutdown-grace-period-for-critical-pods",
      "cluster-domain", "seccomp-default", "pod-pids-limit", "device-ownership-from-security-context",
      "single-process-oom-kill", "container-log-max-workers", "container-log-monitor-interval",
      "hostname-override-source", "log-level");

  /** Typed values inside {@code settings.kubernetes}: map of name → struct with these fields in order. */
  private static final Map<String, List<String>> STRUCT_MAPS = Map.of(
      "credential-providers", List.of("enabled", "cache-duration", "image-patterns", "environment"),
      "static-pods", List.of("enabled", "manifest"),
      "memory-manager-reserved-memory", List.of("enabled", "memory", "hugepages-2Mi", "hugepages-1Gi"));
  private static final List<String> TOPOLOGY_OPTIONS = List.of("prefer-closest-numa-nodes", "max-allowable-numa-nodes");
  private static final List<String> BOOTSTRAP_COMMAND = List.of("commands", "mode", "essential");

  @Override
  public String name() {
    return AMIFamily.BOTTLEROCKET;
  }

  @Override
  public String userData(BootstrapOptions options) {
    String toml = settings(options);
    return Base64.getEncoder().encodeToString(toml.getBytes(StandardCharsets.UTF_8));
  }

  /** The TOML document (before base64). */
  @SuppressWarnings("unchecked")
  static String settings(BootstrapOptions options) {
    Map<String, Object> userSettings = new LinkedHashMap<>();
    if (options.customUserData() != null) {
      Map<String, Object> document;
      try {
        document = Toml.read(options.customUserData());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("invalid UserData: not TOML: " + e.getMessage(), e);
      }
      Object settings = document.get("settings");
      if (settings != null && !(settings instanceof Map)) {
        throw new IllegalArgumentException("invalid UserData: settings must be a table");
      }
      if (settings != null) {
        userSettings.putAll((Map<String, Object>) settings);
      }
    }
    Object userKubernetes = userSettings.get("kubernetes");
    if (userKubernetes != null && !(userKubernetes instanceof Map)) {
      throw new IllegalArgumentException("invalid UserData: settings.kubernetes must be a table");
    }
    Map<String, Object> kubernetes = kubernetes(userKubernetes == null ? Map.of() : (Map<String, Object>) userKubernetes, options);
    Map<String, Object> bootstrapCommands = bootstrapCommands(userSettings.get("bootstrap-commands"), options);

    // settings is a Go map: keys sorted
    Map<String, Object> settings = new TreeMap<>();
    userSettings.forEach((k, v) -> settings.put(k, sortedMaps(v)));
    settings.put("kubernetes", kubernetes);
    if (bootstrapCommands != null) {
      settings.put("bootstrap-commands", bootstrapCommands);
    } else {
      settings.remove("bootstrap-commands");
    }
    return Toml.write(Map.of("settings", new LinkedHashMap<>(settings)));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> kubernetes(Map<String, Object> user, BootstrapOptions options) {
    Map<String, Object> typed = new LinkedHashMap<>();
    for (String key : KUBERNETES_KEYS) {
      if (user.containsKey(key)) {
        typed.put(key, typedValue(key, user.get(key)));
      }
    }
    typed.put("cluster-name", options.clusterName());
    typed.put("api-server", options.clusterEndpoint());
    typed.put("cluster-certificate", options.caBundle());
    Map<String, Object> labels = new TreeMap<>();
    if (user.get("node-labels") instanceof Map<?, ?> userLabels) {
      ((Map<String, Object>) userLabels).forEach(labels::put);
    }
    labels.putAll(options.labels());
    typed.put("node-labels", labels);
    ParsedKubeletConfig kubelet = options.kubelet();
    if (kubelet != null) {
      kubelet.maxPodsValue().ifPresent(maxPods -> typed.put("max-pods", (long) maxPods));
      if (kubelet.clusterDNS() != null && !kubelet.clusterDNS().isEmpty()) {
        typed.put("cluster-dns-ip", kubelet.clusterDNS().get(0));
      }
      putMap(typed, "system-reserved", kubelet.systemReserved());
      putMap(typed, "kube-reserved", kubelet.kubeReserved());
      putMap(typed, "eviction-hard", kubelet.evictionHard());
      putMap(typed, "eviction-soft", kubelet.evictionSoft());
      if (kubelet.evictionSoftGracePeriod() != null && !kubelet.evictionSoftGracePeriod().isEmpty()) {
        Map<String, Object> periods = new TreeMap<>();
        kubelet.evictionSoftGracePeriod().forEach((k, v) -> periods.put(k, BootstrapOptions.goDuration(v)));
        typed.put("eviction-soft-grace-period", periods);
      }
      if (kubelet.evictionMaxPodGracePeriod() != null) {
        typed.put("eviction-max-pod-grace-period", (long) kubelet.evictionMaxPodGracePeriod());
      }
      if (kubelet.imageGCHighThresholdPercent() != null) {
        typed.put("image-gc-high-threshold-percent", kubelet.imageGCHighThresholdPercent().toString());
      }
      if (kubelet.imageGCLowThresholdPercent() != null) {
        typed.put("image-gc-low-threshold-percent", kubelet.imageGCLowThresholdPercent().toString());
      }
      if (kubelet.cpuCFSQuota() != null) {
        typed.put("cpu-cfs-quota-enforced", kubelet.cpuCFSQuota());
      }
    }
    Map<String, Object> taints = new TreeMap<>();
    for (Taint t : options.taints()) {
      ((List<Object>) taints.computeIfAbsent(t.key(), k -> new ArrayList<>())).add(t.value() + ":" + t.effect().name());
    }
    typed.put("node-taints", taints);
    // back into struct order, dropping what Go's omitempty drops (nil pointers, empty maps)
    Map<String, Object> ordered = new LinkedHashMap<>();
    for (String key : KUBERNETES_KEYS) {
      Object value = typed.get(key);
      if (value == null || (value instanceof Map<?, ?> m && m.isEmpty()) || (value instanceof List<?> l && l.isEmpty())) {
        continue;
      }
      ordered.put(key, value);
    }
    return ordered;
  }

  private static void putMap(Map<String, Object> typed, String key, Map<String, String> values) {
    if (values != null && !values.isEmpty()) {
      typed.put(key, new TreeMap<String, Object>(values));
    }
  }

  /** A user's value as upstream's typed struct re-writes it: struct fields in order, maps sorted. */
  @SuppressWarnings("unchecked")
  private static Object typedValue(String key, Object value) {
    if (STRUCT_MAPS.containsKey(key) && value instanceof Map<?, ?> map) {
      Map<String, Object> out = new TreeMap<>();
      ((Map<String, Object>) map).forEach((name, struct) -> out.put(name, struct instanceof Map<?, ?> s ? struct((Map<String, Object>) s, STRUCT_MAPS.get(key)) : struct));
      return out;
    }
    if (key.equals("topology-manager-policy-options") && value instanceof Map<?, ?> map) {
      return struct((Map<String, Object>) map, TOPOLOGY_OPTIONS);
    }
    return sortedMaps(value);
  }

  private static Map<String, Object> struct(Map<String, Object> value, List<String> fields) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String field : fields) {
      if (value.get(field) != null) {
        out.put(field, sortedMaps(value.get(field)));
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> bootstrapCommands(Object user, BootstrapOptions options) {
    Map<String, Object> commands = null;
    if (user instanceof Map<?, ?> map) {
      commands = new TreeMap<>();
      for (Map.Entry<String, Object> e : ((Map<String, Object>) map).entrySet()) {
        commands.put(e.getKey(), e.getValue() instanceof Map<?, ?> s ? struct((Map<String, Object>) s, BOOTSTRAP_COMMAND) : e.getValue());
      }
    }
    if (options.raid0()) {
      if (commands == null) {
        commands = new TreeMap<>();
      }
      List<String> bind = options.defaultMountPaths()
          ? List.of("apiclient", "ephemeral-storage", "bind")
          : List.of("apiclient", "ephemeral-storage", "bind", "--dirs", "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods");
      Map<String, Object> command = new LinkedHashMap<>();
      command.put("commands", List.of(List.of("apiclient", "ephemeral-storage", "init"), bind));
      command.put("mode", "always");
      command.put("essential", true);
      commands.put("000-mount-instance-storage", command);
    }
    return commands == null ? null : new LinkedHashMap<>(commands);
  }

  /** Go writes map keys sorted; TOML tables read from the user are maps. */
  @SuppressWarnings("unchecked")
  private static Object sortedMaps(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> sorted = new TreeMap<>();
      ((Map<String, Object>) map).forEach((k, v) -> sorted.put(k, sortedMaps(v)));
      return new LinkedHashMap<>(sorted);
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(item -> out.add(sortedMaps(item)));
      return out;
    }
    return value;
  }

  @Override
  public List<BlockDeviceMapping> defaultBlockDeviceMappings() {
    // the root volume must be at least as large as the AMI's root snapshot
    return List.of(AmiFamily.ebs("/dev/xvda", "6Gi"), AmiFamily.ebs(ephemeralBlockDevice(), "20Gi"));
  }

  @Override
  public String ephemeralBlockDevice() {
    return "/dev/xvdb";
  }

  /** upstream's {@code version.SupportsDefaultBind}: {@code latest}, or v1.46.0 and later. */
  static boolean supportsDefaultBind(String amiVersion) {
    if (amiVersion == null || amiVersion.isEmpty()) {
      return false;
    }
    if (amiVersion.equals("latest")) {
      return true;
    }
    String[] parts = amiVersion.replaceFirst("^v+", "").split("\\.");
    if (parts.length < 3) {
      return false;
    }
    try {
      int major = Integer.parseInt(parts[0]);
      int minor = Integer.parseInt(parts[1]);
      return major > 1 || (major == 1 && minor >= 46);
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
