package sh.karpenter.cli.plan.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The cluster snapshot a plan was made from, read straight from the YAML manifests as plain JSON
 * trees, independently of the plan implementation's reader: the checker's own idea of which pods are
 * pending, which run where, and what the NodePools, nodes, DaemonSets and volumes say.
 */
final class ScenarioSnapshot {
  private static final YAMLMapper YAML = new YAMLMapper();

  /**
   * A pod as the checker sees it.
   *
   * @param key {@code namespace/name}
   * @param spec the pod spec (of the template for workload replicas)
   * @param nodeName the node it runs on, or null when pending
   * @param claimTemplates the StatefulSet's volumeClaimTemplates (empty otherwise)
   * @param ordinal the replica index (StatefulSet PVC names); -1 for plain pods
   * @param workload the StatefulSet's name for StatefulSet replicas, else null
   */
  record ScenarioPod(
      String key,
      String namespace,
      Map<String, String> labels,
      JsonNode spec,
      String nodeName,
      JsonNode claimTemplates,
      int ordinal,
      String workload) {
    boolean pending() {
      return nodeName == null;
    }
  }

  final Map<String, JsonNode> nodePools = new LinkedHashMap<>();
  final Map<String, JsonNode> nodes = new LinkedHashMap<>();
  final List<JsonNode> daemonSets = new ArrayList<>();
  /** Pending pods first in manifest order, keyed by {@code namespace/name}. */
  final Map<String, ScenarioPod> pendingPods = new LinkedHashMap<>();
  final List<ScenarioPod> boundPods = new ArrayList<>();
  /** PersistentVolumeClaims by {@code namespace/name}. */
  final Map<String, JsonNode> claims = new HashMap<>();
  final Map<String, JsonNode> volumes = new HashMap<>();
  final Map<String, JsonNode> storageClasses = new HashMap<>();

  /** Reads every {@code *.yaml|*.yml} under the paths (files or directories). */
  static ScenarioSnapshot read(List<Path> paths) {
    ScenarioSnapshot snapshot = new ScenarioSnapshot();
    for (Path path : paths) {
      for (Path file : files(path)) {
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
          while (documents.hasNext()) {
            JsonNode document = documents.next();
            if (document != null && document.isObject()) {
              snapshot.add(document);
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return snapshot;
  }

  private static List<Path> files(Path path) {
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    try (Stream<Path> walk = Files.walk(path)) {
      return walk.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void add(JsonNode object) {
    String name = object.at("/metadata/name").asText();
    String namespace = object.at("/metadata/namespace").asText("default");
    JsonNode spec = object.path("spec");
    switch (object.path("kind").asText()) {
      case "NodePool" -> nodePools.put(name, object);
      case "Node" -> nodes.put(name, object);
      case "DaemonSet" -> daemonSets.add(object);
      case "PersistentVolumeClaim" -> claims.put(namespace + "/" + name, object);
      case "PersistentVolume" -> volumes.put(name, object);
      case "StorageClass" -> storageClasses.put(name, object);
      case "Pod" -> {
        String nodeName = spec.path("nodeName").asText(null);
        ScenarioPod pod =
            new ScenarioPod(
                namespace + "/" + name, namespace, strings(object.at("/metadata/labels")), spec, nodeName, MissingNode.getInstance(), -1, null);
        if (pod.pending()) {
          pendingPods.put(pod.key(), pod);
        } else {
          boundPods.add(pod);
        }
      }
      case "Deployment", "ReplicaSet" -> expand(name, namespace, spec, spec.path("replicas").asInt(1), false);
      case "StatefulSet" -> expand(name, namespace, spec, spec.path("replicas").asInt(1), true);
      case "Job" -> expand(name, namespace, spec, spec.path("parallelism").asInt(1), false);
      default -> {}
    }
  }

  /** The contract's expansion: {@code replicas} pending pods named {@code <name>-<index>}. */
  private void expand(String name, String namespace, JsonNode spec, int replicas, boolean statefulSet) {
    JsonNode template = spec.path("template");
    for (int i = 0; i < replicas; i++) {
      ScenarioPod pod =
          new ScenarioPod(
              namespace + "/" + name + "-" + i,
              namespace,
              strings(template.at("/metadata/labels")),
              template.path("spec"),
              null,
              statefulSet ? spec.path("volumeClaimTemplates") : MissingNode.getInstance(),
              i,
              statefulSet ? name : null);
      pendingPods.put(pod.key(), pod);
    }
  }

  /** The pods already running on a node. */
  List<ScenarioPod> boundTo(String node) {
    return boundPods.stream().filter(p -> node.equals(p.nodeName())).toList();
  }

  static Map<String, String> strings(JsonNode object) {
    Map<String, String> values = new LinkedHashMap<>();
    object.fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
    return values;
  }
}
