package sh.karpenter.controller.snapshot;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import sh.karpenter.api.validation.LabelSyntax;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.NodeInclusionPolicy;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.topology.DefaultConstraints;

/**
 * The part of the cluster's kube-scheduler configuration that Karpenter mirrors in its scheduling
 * simulation, read from the file given with {@code --scheduler-config}: the PodTopologySpread
 * plugin's {@code defaultConstraints}, and nothing else.
 *
 * <p>The file is one YAML or JSON document of either form:
 *
 * <ul>
 *   <li>upstream Karpenter's own, {@code podTopologySpread: {defaultConstraints: [...]}}, read
 *       strictly (an unknown field is an error);
 *   <li>a kube-scheduler {@code KubeSchedulerConfiguration} ({@code kubescheduler.config.k8s.io}),
 *       of which only the {@code args} of the {@code PodTopologySpread} entry in the {@code
 *       pluginConfig} of the {@code default-scheduler} profile are read; the rest of the file is
 *       kube-scheduler's business.
 * </ul>
 *
 * <p>Constraints are validated as upstream validates them (kube-scheduler's rules for default
 * constraints): {@code maxSkew} above 0, a qualified {@code topologyKey}, {@code whenUnsatisfiable}
 * DoNotSchedule or ScheduleAnyway, no {@code labelSelector} (one is derived for each pod), no
 * {@code matchLabelKeys} (inert on defaults), and no two constraints with the same key and
 * whenUnsatisfiable. {@code defaultingType: System}, kube-scheduler's built-in defaults, is accepted
 * but contributes nothing, as in upstream Karpenter. Every problem is a {@link
 * SnapshotInputException} naming the file and the field, e.g. {@code scheduler.yaml:
 * profiles[0].pluginConfig[0].args.defaultConstraints[1].maxSkew: must be greater than 0}.
 */
public final class SchedulerConfig {
  /** No configuration: no defaults. */
  public static final SchedulerConfig NONE = new SchedulerConfig(DefaultConstraints.NONE);

  private static final String KUBE_SCHEDULER_GROUP = "kubescheduler.config.k8s.io/";
  private static final String KUBE_SCHEDULER_KIND = "KubeSchedulerConfiguration";
  private static final String DEFAULT_SCHEDULER = "default-scheduler";
  private static final String POD_TOPOLOGY_SPREAD = "PodTopologySpread";
  private static final Set<String> KARPENTER_FIELDS = Set.of("podTopologySpread");
  private static final Set<String> KARPENTER_SPREAD_FIELDS = Set.of("defaultConstraints");
  private static final Set<String> PLUGIN_ARGS_FIELDS = Set.of("apiVersion", "kind", "defaultConstraints", "defaultingType");
  private static final Set<String> CONSTRAINT_FIELDS =
      Set.of("maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys");

  /** The YAML reader, made on first use: {@code plan} without {@code --scheduler-config} never needs it. */
  private static final class Yaml {
    static final ObjectReader READER =
        YAMLMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build().readerFor(JsonNode.class);
  }

  private final DefaultConstraints defaultConstraints;

  private SchedulerConfig(DefaultConstraints defaultConstraints) {
    this.defaultConstraints = defaultConstraints;
  }

  /** The default topology spread constraints pods without constraints of their own receive. */
  public DefaultConstraints defaultConstraints() {
    return defaultConstraints;
  }

  /** Reads and validates the configuration file; errors name the file. */
  public static SchedulerConfig read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new SnapshotInputException(file.toString(), null, "cannot read: " + e.getMessage());
    }
    return parse(text, file.toString());
  }

  /**
   * Parses and validates a configuration document; {@code source} (a file name) starts every error
   * message. An empty document is no configuration.
   */
  public static SchedulerConfig parse(String text, String source) {
    JsonNode document = document(text, source);
    if (document == null) {
      return NONE;
    }
    DocumentReader reader = new DocumentReader(source);
    reader.requireObject(document, "");
    List<TopologySpreadConstraint> constraints =
        document.has("kind") || document.has("apiVersion") ? reader.kubeSchedulerConfiguration(document) : reader.karpenterConfiguration(document);
    return constraints.isEmpty() ? NONE : new SchedulerConfig(DefaultConstraints.of(constraints));
  }

  /** The only document of the text, or null when there is none. */
  private static JsonNode document(String text, String source) {
    // reading from a parser of our own keeps a top-level list whole instead of iterating its items
    try (JsonParser parser = Yaml.READER.createParser(text); MappingIterator<JsonNode> documents = Yaml.READER.readValues(parser)) {
      JsonNode first = null;
      while (documents.hasNextValue()) {
        JsonNode next = documents.nextValue();
        if (next == null || next.isNull() || next.isMissingNode()) {
          continue;
        }
        if (first != null) {
          throw new SnapshotInputException(source, null, "expected one document, found several");
        }
        first = next;
      }
      return first;
    } catch (JsonProcessingException e) {
      throw new SnapshotInputException(source, null, "invalid YAML or JSON: " + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new SnapshotInputException(source, null, "cannot read: " + e.getMessage());
    }
  }

  private static String firstLine(String message) {
    int newline = message == null ? -1 : message.indexOf('\n');
    return newline < 0 ? String.valueOf(message) : message.substring(0, newline);
  }

  /** Walks one document, naming fields by their path for errors. */
  private record DocumentReader(String source) {
    List<TopologySpreadConstraint> karpenterConfiguration(JsonNode document) {
      requireKnownFields(document, "", KARPENTER_FIELDS);
      JsonNode spread = document.path("podTopologySpread");
      if (isAbsent(spread)) {
        return List.of();
      }
      requireObject(spread, "podTopologySpread");
      requireKnownFields(spread, "podTopologySpread", KARPENTER_SPREAD_FIELDS);
      return constraints(spread.path("defaultConstraints"), "podTopologySpread.defaultConstraints");
    }

    /** The defaults of the default-scheduler profile's PodTopologySpread plugin configuration. */
    List<TopologySpreadConstraint> kubeSchedulerConfiguration(JsonNode document) {
      String apiVersion = document.path("apiVersion").asText("");
      if (!apiVersion.startsWith(KUBE_SCHEDULER_GROUP)) {
        throw error("apiVersion", "expected " + KUBE_SCHEDULER_GROUP + "v1, found \"" + apiVersion + "\"");
      }
      if (!KUBE_SCHEDULER_KIND.equals(document.path("kind").asText(""))) {
        throw error("kind", "expected " + KUBE_SCHEDULER_KIND + ", found \"" + document.path("kind").asText("") + "\"");
      }
      JsonNode profiles = list(document.path("profiles"), "profiles");
      for (int p = 0; p < profiles.size(); p++) {
        JsonNode profile = profiles.get(p);
        String at = "profiles[" + p + "]";
        requireObject(profile, at);
        if (!profile.path("schedulerName").asText(DEFAULT_SCHEDULER).equals(DEFAULT_SCHEDULER)) {
          continue;
        }
        JsonNode pluginConfigs = list(profile.path("pluginConfig"), at + ".pluginConfig");
        for (int c = 0; c < pluginConfigs.size(); c++) {
          JsonNode pluginConfig = pluginConfigs.get(c);
          requireObject(pluginConfig, at + ".pluginConfig[" + c + "]");
          if (POD_TOPOLOGY_SPREAD.equals(pluginConfig.path("name").asText())) {
            return pluginArgs(pluginConfig.path("args"), at + ".pluginConfig[" + c + "].args");
          }
        }
        return List.of();
      }
      return List.of();
    }

    private List<TopologySpreadConstraint> pluginArgs(JsonNode args, String at) {
      if (isAbsent(args)) {
        return List.of();
      }
      requireObject(args, at);
      requireKnownFields(args, at, PLUGIN_ARGS_FIELDS);
      List<TopologySpreadConstraint> constraints = constraints(args.path("defaultConstraints"), at + ".defaultConstraints");
      String defaultingType = optionalText(args.path("defaultingType"), at + ".defaultingType");
      if (defaultingType != null && !defaultingType.equals("List") && !defaultingType.equals("System")) {
        throw error(at + ".defaultingType", "unknown value \"" + defaultingType + "\", must be List or System");
      }
      if ("System".equals(defaultingType) && !constraints.isEmpty()) {
        throw error(at + ".defaultConstraints", "must be empty when defaultingType is System");
      }
      return constraints;
    }

    private List<TopologySpreadConstraint> constraints(JsonNode node, String at) {
      JsonNode items = list(node, at);
      List<TopologySpreadConstraint> constraints = new ArrayList<>(items.size());
      for (int i = 0; i < items.size(); i++) {
        TopologySpreadConstraint constraint = constraint(items.get(i), at + "[" + i + "]");
        for (int j = 0; j < i; j++) {
          TopologySpreadConstraint other = constraints.get(j);
          if (other.topologyKey().equals(constraint.topologyKey()) && other.whenUnsatisfiable() == constraint.whenUnsatisfiable()) {
            throw error(
                at + "[" + i + "]",
                "duplicate of " + at + "[" + j + "]: {" + constraint.topologyKey() + ", " + constraint.whenUnsatisfiable() + "}");
          }
        }
        constraints.add(constraint);
      }
      return constraints;
    }

    private TopologySpreadConstraint constraint(JsonNode node, String at) {
      requireObject(node, at);
      requireKnownFields(node, at, CONSTRAINT_FIELDS);
      if (!isAbsent(node.path("labelSelector"))) {
        throw error(at + ".labelSelector", "must not be set: a selector is derived for each pod from the Services and controller that select it");
      }
      if (!isAbsent(node.path("matchLabelKeys")) && !node.path("matchLabelKeys").isEmpty()) {
        throw error(at + ".matchLabelKeys", "must not be set: it has no effect on default constraints");
      }
      Integer maxSkew = optionalInteger(node.path("maxSkew"), at + ".maxSkew");
      if (maxSkew == null) {
        throw error(at + ".maxSkew", "required");
      }
      if (maxSkew <= 0) {
        throw error(at + ".maxSkew", "must be greater than 0");
      }
      String topologyKey = optionalText(node.path("topologyKey"), at + ".topologyKey");
      if (topologyKey == null || topologyKey.isEmpty()) {
        throw error(at + ".topologyKey", "required");
      }
      List<String> keyErrors = LabelSyntax.qualifiedNameErrors(topologyKey);
      if (!keyErrors.isEmpty()) {
        throw error(at + ".topologyKey", "\"" + topologyKey + "\" is not a valid label key: " + String.join("; ", keyErrors));
      }
      WhenUnsatisfiable whenUnsatisfiable = enumValue(WhenUnsatisfiable.class, node.path("whenUnsatisfiable"), at + ".whenUnsatisfiable");
      if (whenUnsatisfiable == null) {
        throw error(at + ".whenUnsatisfiable", "required, DoNotSchedule or ScheduleAnyway");
      }
      Integer minDomains = optionalInteger(node.path("minDomains"), at + ".minDomains");
      if (minDomains != null && minDomains <= 0) {
        throw error(at + ".minDomains", "must be greater than 0");
      }
      return new TopologySpreadConstraint(
          maxSkew,
          topologyKey,
          whenUnsatisfiable,
          null,
          minDomains,
          enumValue(NodeInclusionPolicy.class, node.path("nodeAffinityPolicy"), at + ".nodeAffinityPolicy"),
          enumValue(NodeInclusionPolicy.class, node.path("nodeTaintsPolicy"), at + ".nodeTaintsPolicy"),
          List.of());
    }

    void requireObject(JsonNode node, String at) {
      if (!node.isObject()) {
        throw error(at, "expected an object, found " + node.getNodeType().name().toLowerCase());
      }
    }

    private void requireKnownFields(JsonNode node, String at, Set<String> known) {
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!known.contains(name)) {
          throw error(at.isEmpty() ? name : at + "." + name, "unknown field");
        }
      }
    }

    /** A list node; an absent or null one has no elements. */
    private JsonNode list(JsonNode node, String at) {
      if (!isAbsent(node) && !node.isArray()) {
        throw error(at, "expected a list, found " + node.getNodeType().name().toLowerCase());
      }
      return node;
    }

    private String optionalText(JsonNode node, String at) {
      if (isAbsent(node)) {
        return null;
      }
      if (!node.isTextual()) {
        throw error(at, "expected a string, found " + node.getNodeType().name().toLowerCase());
      }
      return node.asText();
    }

    private Integer optionalInteger(JsonNode node, String at) {
      if (isAbsent(node)) {
        return null;
      }
      if (!node.isIntegralNumber() || !node.canConvertToInt()) {
        throw error(at, "expected an integer, found " + node);
      }
      return node.intValue();
    }

    private <E extends Enum<E>> E enumValue(Class<E> type, JsonNode node, String at) {
      String text = optionalText(node, at);
      if (text == null || text.isEmpty()) {
        return null;
      }
      for (E constant : type.getEnumConstants()) {
        if (constant.name().equals(text)) {
          return constant;
        }
      }
      throw error(at, "unknown value \"" + text + "\"");
    }

    private static boolean isAbsent(JsonNode node) {
      return node.isMissingNode() || node.isNull();
    }

    private SnapshotInputException error(String field, String problem) {
      return new SnapshotInputException(source, field, problem);
    }
  }
}
