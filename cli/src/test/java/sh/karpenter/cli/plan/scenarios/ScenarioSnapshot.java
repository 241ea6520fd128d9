package sh.karpenter.cli.plan.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 *
 * <p>Pod specs are taken as kube-apiserver's RuntimeClass admission leaves them (the class's overhead
 * when the pod has none, its node selector and tolerations added), and each DaemonSet's pod on a new
 * node is its newest pod (by owner UID, else the template), as the Kubernetes and Karpenter
 * documentation describe them.
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
  /** Per DaemonSet, the spec of the pod it runs on a new node (newest pod, else its template). */
  final List<JsonNode> daemonSetPodSpecs = new ArrayList<>();
  final Map<String, JsonNode> runtimeClasses = new HashMap<>();
  /** Pods a DaemonSet controls, with their metadata. */
  private final List<JsonNode> daemonSetOwnedPods = new ArrayList<>();
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
    snapshot.admit();
    return snapshot;
  }

  /** Applies RuntimeClass admission to every pod and picks each DaemonSet's pod. */
  private void admit() {
    pendingPods.replaceAll((key, pod) -> withSpec(pod, admitted(pod.spec())));
    boundPods.replaceAll(pod -> withSpec(pod, admitted(pod.spec())));
    for (JsonNode daemonSet : daemonSets) {
      String uid = daemonSet.at("/metadata/uid").asText("");
      String name = daemonSet.at("/metadata/name").asText();
      String namespace = daemonSet.at("/metadata/namespace").asText("default");
      JsonNode newest = null;
      for (JsonNode pod : daemonSetOwnedPods) {
        JsonNode owner = controllerOf(pod);
        boolean owned = pod.at("/metadata/namespace").asText("default").equals(namespace)
            && (uid.isEmpty() ? owner.path("name").asText().equals(name) : owner.path("uid").asText().equals(uid));
        if (owned && (newest == null || pod.at("/metadata/creationTimestamp").asText("").compareTo(newest.at("/metadata/creationTimestamp").asText("")) > 0)) {
          newest = pod;
        }
      }
      JsonNode template = daemonSet.at("/spec/template/spec");
      if (newest == null) {
        daemonSetPodSpecs.add(admitted(template));
        continue;
      }
      ObjectNode spec = newest.path("spec").deepCopy();
      JsonNode required = template.at("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution");
      if (!required.isMissingNode()) {
        spec.with("affinity").with("nodeAffinity").set("requiredDuringSchedulingIgnoredDuringExecution", required);
      } else if (spec.at("/affinity/nodeAffinity") instanceof ObjectNode nodeAffinity) {
        nodeAffinity.remove("requiredDuringSchedulingIgnoredDuringExecution"); // the controller's pin to the pod's own node
      }
      daemonSetPodSpecs.add(admitted(spec));
    }
  }

  /** A pod spec as the RuntimeClass admission plugin leaves it (unchanged without a known class). */
  private JsonNode admitted(JsonNode spec) {
    JsonNode runtimeClass = runtimeClasses.get(spec.path("runtimeClassName").asText(""));
    if (runtimeClass == null) {
      return spec;
    }
    ObjectNode admitted = spec.deepCopy();
    JsonNode overhead = runtimeClass.at("/overhead/podFixed");
    if (!overhead.isMissingNode() && admitted.path("overhead").isEmpty()) {
      admitted.set("overhead", overhead);
    }
    JsonNode scheduling = runtimeClass.path("scheduling");
    scheduling.path("nodeSelector").fields().forEachRemaining(e -> admitted.with("nodeSelector").set(e.getKey(), e.getValue()));
    ArrayNode tolerations = admitted.withArray("tolerations");
    scheduling.path("tolerations").forEach(tolerations::add);
    return admitted;
  }

  private static JsonNode controllerOf(JsonNode pod) {
    for (JsonNode owner : pod.at("/metadata/ownerReferences")) {
      if (owner.path("controller").asBoolean(false)) {
        return owner;
      }
    }
    return MissingNode.getInstance();
  }

  private static ScenarioPod withSpec(ScenarioPod pod, JsonNode spec) {
    return new ScenarioPod(pod.key(), pod.namespace(), pod.labels(), spec, pod.nodeName(), pod.claimTemplates(), pod.ordinal(), pod.workload());
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
      case "RuntimeClass" -> runtimeClasses.put(name, object);
      case "Pod" -> {
        String nodeName = spec.path("nodeName").asText(null);
        if (controllerOf(object).path("kind").asText().equals("DaemonSet")) {
          daemonSetOwnedPods.add(object);
          if (nodeName == null) {
            return; // the DaemonSet controller's pod: not a pod for the plan to place
          }
        }
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
