package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.core.resources.Quantity;

/**
 * The shape of the kubelet's {@code KubeletConfiguration} (kubelet.config.k8s.io/v1beta1, the
 * k8s.io/kubelet v0.36 types), and a check of JSON against it the way Go's decoder reads JSON into
 * those types: a value of the wrong JSON type, an integer out of range, a malformed duration, quantity
 * or time is a type error; with {@code strict}, a field the type does not declare is an unknown field
 * (sigs.k8s.io/json's strict mode, case-sensitive). JSON {@code null} is accepted anywhere, as Go
 * accepts it. Upstream validates {@code spec.kubelet} by decoding it into those Go types; this table
 * stands in for them.
 */
final class KubeletSchema {
  private KubeletSchema() {}

  sealed interface Type permits Scalar, MapOf, ListOf, Struct {
    String goName();
  }

  enum Scalar implements Type {
    STRING("string"),
    BOOL("bool"),
    INT32("int32"),
    INT64("int64"),
    UINT32("uint32"),
    FLOAT64("float64"),
    /** metav1.Duration: a Go duration string. */
    DURATION("v1.Duration"),
    /** logs TimeOrMetaDuration: a Go duration string, or an integer of nanoseconds. */
    DURATION_OR_NANOS("v1.TimeOrMetaDuration"),
    /** resource.Quantity: a quantity string or a JSON number. */
    QUANTITY("resource.Quantity"),
    /** metav1.Time: an RFC 3339 string. */
    TIME("v1.Time"),
    /** intstr.IntOrString: an int32 or a string. */
    INT_OR_STRING("intstr.IntOrString");

    private final String goName;

    Scalar(String goName) {
      this.goName = goName;
    }

    @Override
    public String goName() {
      return goName;
    }
  }

  record MapOf(Type values) implements Type {
    @Override
    public String goName() {
      return "map[string]" + values.goName();
    }
  }

  record ListOf(Type items) implements Type {
    @Override
    public String goName() {
      return "[]" + items.goName();
    }
  }

  record Struct(String goName, Map<String, Type> fields) implements Type {}

  private static final Scalar STRING = Scalar.STRING;
  private static final Scalar BOOL = Scalar.BOOL;
  private static final Scalar INT32 = Scalar.INT32;
  private static final Scalar INT64 = Scalar.INT64;
  private static final Scalar DURATION = Scalar.DURATION;

  private static MapOf map(Type values) {
    return new MapOf(values);
  }

  private static ListOf list(Type items) {
    return new ListOf(items);
  }

  private static Map.Entry<String, Type> field(String name, Type type) {
    return Map.entry(name, type);
  }

  @SafeVarargs
  private static Struct struct(String goName, Map.Entry<String, Type>... fields) {
    return new Struct(goName, Map.ofEntries(fields));
  }

  private static final Struct OUTPUT_ROUTING_OPTIONS =
      struct("JSONOptions", field("splitStream", BOOL), field("infoBufferSize", Scalar.QUANTITY));
  private static final Struct LOGGING =
      struct(
          "LoggingConfiguration",
          field("format", STRING),
          field("flushFrequency", Scalar.DURATION_OR_NANOS),
          field("verbosity", Scalar.UINT32),
          field("vmodule", list(struct("VModuleItem", field("filePattern", STRING), field("verbosity", Scalar.UINT32)))),
          field("options", struct("FormatOptions", field("text", OUTPUT_ROUTING_OPTIONS), field("json", OUTPUT_ROUTING_OPTIONS))));
  private static final Struct AUTHENTICATION =
      struct(
          "KubeletAuthentication",
          field("x509", struct("KubeletX509Authentication", field("clientCAFile", STRING))),
          field("webhook", struct("KubeletWebhookAuthentication", field("enabled", BOOL), field("cacheTTL", DURATION))),
          field("anonymous", struct("KubeletAnonymousAuthentication", field("enabled", BOOL))));
  private static final Struct AUTHORIZATION =
      struct(
          "KubeletAuthorization",
          field("mode", STRING),
          field("webhook", struct("KubeletWebhookAuthorization", field("cacheAuthorizedTTL", DURATION), field("cacheUnauthorizedTTL", DURATION))));
  private static final Struct TAINT =
      struct("Taint", field("key", STRING), field("value", STRING), field("effect", STRING), field("timeAdded", Scalar.TIME));

  /** kubelet.config.k8s.io/v1beta1 KubeletConfiguration, with its TypeMeta. */
  static final Struct KUBELET_CONFIGURATION =
      struct(
          "KubeletConfiguration",
          field("apiVersion", STRING),
          field("kind", STRING),
          field("enableServer", BOOL),
          field("staticPodPath", STRING),
          field("podLogsDir", STRING),
          field("syncFrequency", DURATION),
          field("fileCheckFrequency", DURATION),
          field("httpCheckFrequency", DURATION),
          field("staticPodURL", STRING),
          field("staticPodURLHeader", map(list(STRING))),
          field("address", STRING),
          field("port", INT32),
          field("readOnlyPort", INT32),
          field("tlsCertFile", STRING),
          field("tlsPrivateKeyFile", STRING),
          field("tlsCipherSuites", list(STRING)),
          field("tlsCurvePreferences", list(INT32)),
          field("tlsMinVersion", STRING),
          field("rotateCertificates", BOOL),
          field("serverTLSBootstrap", BOOL),
          field("authentication", AUTHENTICATION),
          field("authorization", AUTHORIZATION),
          field("registryPullQPS", INT32),
          field("registryBurst", INT32),
          field("imagePullCredentialsVerificationPolicy", STRING),
          field("preloadedImagesVerificationAllowlist", list(STRING)),
          field("eventRecordQPS", INT32),
          field("eventBurst", INT32),
          field("enableDebuggingHandlers", BOOL),
          field("enableContentionProfiling", BOOL),
          field("healthzPort", INT32),
          field("healthzBindAddress", STRING),
          field("oomScoreAdj", INT32),
          field("clusterDomain", STRING),
          field("clusterDNS", list(STRING)),
          field("streamingConnectionIdleTimeout", DURATION),
          field("nodeStatusUpdateFrequency", DURATION),
          field("nodeStatusReportFrequency", DURATION),
          field("nodeLeaseDurationSeconds", INT32),
          field("imageMinimumGCAge", DURATION),
          field("imageMaximumGCAge", DURATION),
          field("imageGCHighThresholdPercent", INT32),
          field("imageGCLowThresholdPercent", INT32),
          field("volumeStatsAggPeriod", DURATION),
          field("kubeletCgroups", STRING),
          field("systemCgroups", STRING),
          field("cgroupRoot", STRING),
          field("cgroupsPerQOS", BOOL),
          field("cgroupDriver", STRING),
          field("cpuManagerPolicy", STRING),
          field("singleProcessOOMKill", BOOL),
          field("cpuManagerPolicyOptions", map(STRING)),
          field("cpuManagerReconcilePeriod", DURATION),
          field("memoryManagerPolicy", STRING),
          field("topologyManagerPolicy", STRING),
          field("topologyManagerScope", STRING),
          field("topologyManagerPolicyOptions", map(STRING)),
          field("qosReserved", map(STRING)),
          field("runtimeRequestTimeout", DURATION),
          field("hairpinMode", STRING),
          field("maxPods", INT32),
          field("podCIDR", STRING),
          field("podPidsLimit", INT64),
          field("resolvConf", STRING),
          field("runOnce", BOOL),
          field("cpuCFSQuota", BOOL),
          field("cpuCFSQuotaPeriod", DURATION),
          field("nodeStatusMaxImages", INT32),
          field("maxOpenFiles", INT64),
          field("contentType", STRING),
          field("kubeAPIQPS", INT32),
          field("kubeAPIBurst", INT32),
          field("serializeImagePulls", BOOL),
          field("maxParallelImagePulls", INT32),
          field("evictionHard", map(STRING)),
          field("evictionSoft", map(STRING)),
          field("evictionSoftGracePeriod", map(STRING)),
          field("evictionPressureTransitionPeriod", DURATION),
          field("evictionMaxPodGracePeriod", INT32),
          field("evictionMinimumReclaim", map(STRING)),
          field("mergeDefaultEvictionSettings", BOOL),
          field("podsPerCore", INT32),
          field("enableControllerAttachDetach", BOOL),
          field("protectKernelDefaults", BOOL),
          field("makeIPTablesUtilChains", BOOL),
          field("iptablesMasqueradeBit", INT32),
          field("iptablesDropBit", INT32),
          field("featureGates", map(BOOL)),
          field("failSwapOn", BOOL),
          field("memorySwap", struct("MemorySwapConfiguration", field("swapBehavior", STRING))),
          field("containerLogMaxSize", STRING),
          field("containerLogMaxFiles", INT32),
          field("containerLogMaxWorkers", INT32),
          field("containerLogMonitorInterval", DURATION),
          field("configMapAndSecretChangeDetectionStrategy", STRING),
          field("systemReserved", map(STRING)),
          field("kubeReserved", map(STRING)),
          field("reservedSystemCPUs", STRING),
          field("showHiddenMetricsForVersion", STRING),
          field("systemReservedCgroup", STRING),
          field("kubeReservedCgroup", STRING),
          field("enforceNodeAllocatable", list(STRING)),
          field("allowedUnsafeSysctls", list(STRING)),
          field("volumePluginDir", STRING),
          field("providerID", STRING),
          field("kernelMemcgNotification", BOOL),
          field("logging", LOGGING),
          field("enableSystemLogHandler", BOOL),
          field("enableSystemLogQuery", BOOL),
          field("shutdownGracePeriod", DURATION),
          field("shutdownGracePeriodCriticalPods", DURATION),
          field("shutdownGracePeriodByPodPriority",
              list(struct("ShutdownGracePeriodByPodPriority", field("priority", INT32), field("shutdownGracePeriodSeconds", INT64)))),
          field("crashLoopBackOff", struct("CrashLoopBackOffConfig", field("maxContainerRestartPeriod", DURATION))),
          field("reservedMemory", list(struct("MemoryReservation", field("numaNode", INT32), field("limits", map(Scalar.QUANTITY))))),
          field("enableProfilingHandler", BOOL),
          field("enableDebugFlagsHandler", BOOL),
          field("seccompDefault", BOOL),
          field("memoryThrottlingFactor", Scalar.FLOAT64),
          field("memoryReservationPolicy", STRING),
          field("registerWithTaints", list(TAINT)),
          field("registerNode", BOOL),
          field("tracing", struct("TracingConfiguration", field("endpoint", STRING), field("samplingRatePerMillion", INT32))),
          field("localStorageCapacityIsolation", BOOL),
          field("containerRuntimeEndpoint", STRING),
          field("imageServiceEndpoint", STRING),
          field("failCgroupV1", BOOL),
          field("userNamespaces", struct("UserNamespaces", field("idsPerPod", INT64))));

  /** The fields Karpenter reads itself (upstream's {@code ParsedKubeletConfig}), typed as it reads them. */
  static final Struct PARSED =
      struct(
          "ParsedKubeletConfig",
          field("clusterDNS", list(STRING)),
          field("maxPods", Scalar.INT_OR_STRING),
          field("podsPerCore", INT32),
          field("systemReserved", map(STRING)),
          field("kubeReserved", map(STRING)),
          field("evictionHard", map(STRING)),
          field("evictionSoft", map(STRING)),
          field("evictionSoftGracePeriod", map(DURATION)),
          field("evictionMaxPodGracePeriod", INT32),
          field("imageGCHighThresholdPercent", INT32),
          field("imageGCLowThresholdPercent", INT32),
          field("cpuCFSQuota", BOOL));

  /**
   * The outcome of decoding: the first type error (Go stops at it) and, when strict, every unknown
   * field in decode order (keys sorted, as Go's encoder writes the map).
   */
  static final class Decoded {
    /** Path (dotted, {@code logging.format}) and message of the first type error, or null. */
    String typeErrorPath;
    String typeError;
    final List<String> unknownFields = new ArrayList<>();
  }

  /** Decodes the top-level fields of a configuration into {@code type}. */
  static Decoded decode(Map<String, JsonNode> fields, Struct type, boolean strict) {
    Decoded out = new Decoded();
    for (Map.Entry<String, JsonNode> entry : new TreeMap<>(fields).entrySet()) {
      Type fieldType = type.fields().get(entry.getKey());
      if (fieldType == null) {
        if (strict) {
          out.unknownFields.add(entry.getKey());
        }
        continue;
      }
      check(entry.getValue(), fieldType, entry.getKey(), strict, out);
    }
    return out;
  }

  private static void check(JsonNode value, Type type, String path, boolean strict, Decoded out) {
    if (value == null || value.isNull()) {
      return;
    }
    switch (type) {
      case Scalar scalar -> scalar(value, scalar, path, out);
      case MapOf map -> {
        if (!value.isObject()) {
          typeError(out, path, value, type);
          return;
        }
        for (Map.Entry<String, JsonNode> entry : sorted(value)) {
          check(entry.getValue(), map.values(), path + "[" + entry.getKey() + "]", strict, out);
        }
      }
      case ListOf list -> {
        if (!value.isArray()) {
          typeError(out, path, value, type);
          return;
        }
        for (int i = 0; i < value.size(); i++) {
          check(value.get(i), list.items(), path + "[" + i + "]", strict, out);
        }
      }
      case Struct struct -> {
        if (!value.isObject()) {
          typeError(out, path, value, type);
          return;
        }
        for (Map.Entry<String, JsonNode> entry : sorted(value)) {
          Type fieldType = struct.fields().get(entry.getKey());
          if (fieldType == null) {
            if (strict) {
              out.unknownFields.add(path + "." + entry.getKey());
            }
          } else {
            check(entry.getValue(), fieldType, path + "." + entry.getKey(), strict, out);
          }
        }
      }
    }
  }

  private static void scalar(JsonNode value, Scalar type, String path, Decoded out) {
    boolean ok =
        switch (type) {
          case STRING -> value.isTextual();
          case BOOL -> value.isBoolean();
          case INT32 -> integerIn(value, Integer.MIN_VALUE, Integer.MAX_VALUE);
          case INT64 -> integerIn(value, Long.MIN_VALUE, Long.MAX_VALUE);
          case UINT32 -> integerIn(value, 0, 0xFFFF_FFFFL);
          case FLOAT64 -> value.isNumber();
          case INT_OR_STRING -> value.isTextual() || integerIn(value, Integer.MIN_VALUE, Integer.MAX_VALUE);
          case DURATION, DURATION_OR_NANOS, QUANTITY, TIME -> true;
        };
    if (!ok) {
      typeError(out, path, value, type);
      return;
    }
    String problem =
        switch (type) {
          case DURATION -> value.isTextual() ? durationProblem(value.asText()) : "cannot unmarshal " + jsonKind(value) + " into a duration";
          case DURATION_OR_NANOS -> value.isTextual()
              ? durationProblem(value.asText())
              : integerIn(value, Long.MIN_VALUE, Long.MAX_VALUE) ? null : "invalid duration " + value;
          case QUANTITY -> value.isTextual() || value.isNumber() ? quantityProblem(value.isTextual() ? value.asText() : value.toString())
              : "cannot unmarshal " + jsonKind(value) + " into a quantity";
          case TIME -> value.isTextual() ? timeProblem(value.asText()) : "cannot unmarshal " + jsonKind(value) + " into a time";
          default -> null;
        };
    if (problem != null && out.typeError == null) {
      out.typeErrorPath = path;
      out.typeError = problem;
    }
  }

  private static boolean integerIn(JsonNode value, long min, long max) {
    if (!value.isIntegralNumber()) {
      return false;
    }
    BigInteger number = value.bigIntegerValue();
    return number.compareTo(BigInteger.valueOf(min)) >= 0 && number.compareTo(BigInteger.valueOf(max)) <= 0;
  }

  private static void typeError(Decoded out, String path, JsonNode value, Type type) {
    if (out.typeError == null) {
      out.typeErrorPath = path;
      out.typeError = "cannot unmarshal " + jsonKind(value) + " into a field of type " + type.goName();
    }
  }

  /** Go's name for a JSON value in decode errors: {@code string}, {@code number 3000000000}, {@code bool}, ... */
  private static String jsonKind(JsonNode value) {
    if (value.isTextual()) {
      return "string";
    }
    if (value.isNumber()) {
      return "number " + value;
    }
    if (value.isBoolean()) {
      return "bool";
    }
    return value.isArray() ? "array" : "object";
  }

  private static String durationProblem(String text) {
    try {
      GoDuration.parse(text);
      return null;
    } catch (IllegalArgumentException | ArithmeticException e) {
      return "time: invalid duration \"" + text + "\"";
    }
  }

  private static String quantityProblem(String text) {
    try {
      Quantity.parseMilli(text);
      return null;
    } catch (IllegalArgumentException e) {
      return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    }
  }

  private static String timeProblem(String text) {
    try {
      OffsetDateTime.parse(text);
      return null;
    } catch (DateTimeParseException e) {
      return "parsing time \"" + text + "\" as RFC 3339";
    }
  }

  private static List<Map.Entry<String, JsonNode>> sorted(JsonNode object) {
    return List.copyOf(new TreeMap<>(object.properties().stream()
        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue))).entrySet());
  }
}
