package sh.karpenter.cli.plan;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimVolumeSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodAffinity;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySelectorLabelRequirement;
import io.fabric8.kubernetes.api.model.TopologySelectorTerm;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeResourceRequirements;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentSpec;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetSpec;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetSpec;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetSpec;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Binds the fields of the core kinds that plans usually hold (a pod's requests, selectors,
 * affinity, tolerations, spread and claims; a workload's replicas and template; a node's labels,
 * taints and capacity; ...) straight into the fabric8 model, with the model's setters.
 *
 * <p>Jackson's binding of a fabric8 class starts with introspecting it (its properties, creators and
 * annotations, and the binders of its property types) and calls setters reflectively; on a fresh JVM
 * that is most of what binding a plan's few core documents costs. A document this binder reads gives
 * the same object Jackson gives (its tests compare the two): every value is set with the setter
 * Jackson calls, from the same JSON type, into the same collection types, and quantities and
 * int-or-strings are made as their Jackson binders make them. Any field it does not know, and any
 * value of another JSON type than the one it expects (null, a number where a string goes, ...),
 * makes it give the document up: {@link #bind} returns null and the caller binds the document with
 * Jackson, which accepts or rejects it and names the field, as without this class.
 */
final class DirectBinding {
  private DirectBinding() {}

  /** A document holds something this binder does not read; thrown without a stack trace. */
  private static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final Unsupported INSTANCE = new Unsupported();

    private Unsupported() {
      super(null, null, false, false);
    }
  }

  /** Reads a JSON object into a new {@code T} through the setters of the fields it knows. */
  private static final class ObjectReader<T> implements Function<JsonNode, T> {
    private final Supplier<T> factory;
    private final Map<String, BiConsumer<T, JsonNode>> fields = new HashMap<>();

    ObjectReader(Supplier<T> factory) {
      this.factory = factory;
    }

    /** Reads field {@code name} with {@code value} and sets it with {@code setter}. */
    <V> ObjectReader<T> field(String name, Function<JsonNode, V> value, BiConsumer<T, V> setter) {
      fields.put(name, (target, node) -> setter.accept(target, value.apply(node)));
      return this;
    }

    @Override
    public T apply(JsonNode node) {
      if (!node.isObject()) {
        throw Unsupported.INSTANCE;
      }
      T target = factory.get();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        BiConsumer<T, JsonNode> reader = fields.get(field.getKey());
        if (reader == null) {
          throw Unsupported.INSTANCE;
        }
        reader.accept(target, field.getValue());
      }
      return target;
    }
  }

  // Values, each from the one JSON type read here (Jackson would coerce some others, or reject them).

  private static String text(JsonNode node) {
    if (!node.isTextual()) {
      throw Unsupported.INSTANCE;
    }
    return node.textValue();
  }

  private static Integer integer(JsonNode node) {
    if (!node.isInt()) {
      throw Unsupported.INSTANCE;
    }
    return node.intValue();
  }

  private static Long longValue(JsonNode node) {
    if (!node.isInt() && !node.isLong()) {
      throw Unsupported.INSTANCE;
    }
    return node.longValue();
  }

  private static Boolean bool(JsonNode node) {
    if (!node.isBoolean()) {
      throw Unsupported.INSTANCE;
    }
    return node.booleanValue();
  }

  /** An int-or-string from an int or a string, as its Jackson creator takes either. */
  private static IntOrString intOrString(JsonNode node) {
    return node.isInt() ? new IntOrString(node.intValue()) : new IntOrString(text(node));
  }

  /** A quantity from a string or an integer, made from the value's text as Quantity's Jackson binder makes it. */
  private static Quantity quantity(JsonNode node) {
    if (!node.isTextual() && !node.isInt() && !node.isLong()) {
      throw Unsupported.INSTANCE;
    }
    return new Quantity(node.asText());
  }

  private static <V> Function<JsonNode, Map<String, V>> mapOf(Function<JsonNode, V> value) {
    return node -> {
      if (!node.isObject()) {
        throw Unsupported.INSTANCE;
      }
      Map<String, V> map = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        map.put(entry.getKey(), value.apply(entry.getValue()));
      }
      return map;
    };
  }

  private static <V> Function<JsonNode, List<V>> listOf(Function<JsonNode, V> item) {
    return node -> {
      if (!node.isArray()) {
        throw Unsupported.INSTANCE;
      }
      List<V> list = new ArrayList<>(node.size());
      for (JsonNode element : node) {
        list.add(item.apply(element));
      }
      return list;
    };
  }

  private static final Function<JsonNode, String> TEXT = DirectBinding::text;
  private static final Function<JsonNode, Integer> INTEGER = DirectBinding::integer;
  private static final Function<JsonNode, Boolean> BOOL = DirectBinding::bool;
  private static final Function<JsonNode, Map<String, String>> STRINGS = mapOf(TEXT);
  private static final Function<JsonNode, List<String>> STRING_LIST = listOf(TEXT);
  private static final Function<JsonNode, Map<String, Quantity>> QUANTITIES = mapOf(DirectBinding::quantity);

  // Parts, each read by the fields it knows.

  private static final ObjectReader<OwnerReference> OWNER_REFERENCE =
      new ObjectReader<>(OwnerReference::new)
          .field("apiVersion", TEXT, OwnerReference::setApiVersion)
          .field("kind", TEXT, OwnerReference::setKind)
          .field("name", TEXT, OwnerReference::setName)
          .field("uid", TEXT, OwnerReference::setUid)
          .field("controller", BOOL, OwnerReference::setController)
          .field("blockOwnerDeletion", BOOL, OwnerReference::setBlockOwnerDeletion);

  private static final ObjectReader<ObjectMeta> METADATA =
      new ObjectReader<>(ObjectMeta::new)
          .field("name", TEXT, ObjectMeta::setName)
          .field("generateName", TEXT, ObjectMeta::setGenerateName)
          .field("namespace", TEXT, ObjectMeta::setNamespace)
          .field("uid", TEXT, ObjectMeta::setUid)
          .field("labels", STRINGS, ObjectMeta::setLabels)
          .field("annotations", STRINGS, ObjectMeta::setAnnotations)
          .field("ownerReferences", listOf(OWNER_REFERENCE), ObjectMeta::setOwnerReferences);

  private static final ObjectReader<LabelSelectorRequirement> LABEL_SELECTOR_REQUIREMENT =
      new ObjectReader<>(LabelSelectorRequirement::new)
          .field("key", TEXT, LabelSelectorRequirement::setKey)
          .field("operator", TEXT, LabelSelectorRequirement::setOperator)
          .field("values", STRING_LIST, LabelSelectorRequirement::setValues);

  private static final ObjectReader<LabelSelector> LABEL_SELECTOR =
      new ObjectReader<>(LabelSelector::new)
          .field("matchLabels", STRINGS, LabelSelector::setMatchLabels)
          .field("matchExpressions", listOf(LABEL_SELECTOR_REQUIREMENT), LabelSelector::setMatchExpressions);

  private static final ObjectReader<NodeSelectorRequirement> NODE_SELECTOR_REQUIREMENT =
      new ObjectReader<>(NodeSelectorRequirement::new)
          .field("key", TEXT, NodeSelectorRequirement::setKey)
          .field("operator", TEXT, NodeSelectorRequirement::setOperator)
          .field("values", STRING_LIST, NodeSelectorRequirement::setValues);

  private static final ObjectReader<NodeSelectorTerm> NODE_SELECTOR_TERM =
      new ObjectReader<>(NodeSelectorTerm::new)
          .field("matchExpressions", listOf(NODE_SELECTOR_REQUIREMENT), NodeSelectorTerm::setMatchExpressions)
          .field("matchFields", listOf(NODE_SELECTOR_REQUIREMENT), NodeSelectorTerm::setMatchFields);

  private static final ObjectReader<PreferredSchedulingTerm> PREFERRED_SCHEDULING_TERM =
      new ObjectReader<>(PreferredSchedulingTerm::new)
          .field("weight", INTEGER, PreferredSchedulingTerm::setWeight)
          .field("preference", NODE_SELECTOR_TERM, PreferredSchedulingTerm::setPreference);

  private static final ObjectReader<NodeAffinity> NODE_AFFINITY =
      new ObjectReader<>(NodeAffinity::new)
          .field(
              "requiredDuringSchedulingIgnoredDuringExecution",
              new ObjectReader<>(NodeSelector::new).field("nodeSelectorTerms", listOf(NODE_SELECTOR_TERM), NodeSelector::setNodeSelectorTerms),
              NodeAffinity::setRequiredDuringSchedulingIgnoredDuringExecution)
          .field("preferredDuringSchedulingIgnoredDuringExecution", listOf(PREFERRED_SCHEDULING_TERM), NodeAffinity::setPreferredDuringSchedulingIgnoredDuringExecution);

  private static final ObjectReader<PodAffinityTerm> POD_AFFINITY_TERM =
      new ObjectReader<>(PodAffinityTerm::new)
          .field("labelSelector", LABEL_SELECTOR, PodAffinityTerm::setLabelSelector)
          .field("namespaceSelector", LABEL_SELECTOR, PodAffinityTerm::setNamespaceSelector)
          .field("namespaces", STRING_LIST, PodAffinityTerm::setNamespaces)
          .field("topologyKey", TEXT, PodAffinityTerm::setTopologyKey)
          .field("matchLabelKeys", STRING_LIST, PodAffinityTerm::setMatchLabelKeys)
          .field("mismatchLabelKeys", STRING_LIST, PodAffinityTerm::setMismatchLabelKeys);

  private static final ObjectReader<WeightedPodAffinityTerm> WEIGHTED_POD_AFFINITY_TERM =
      new ObjectReader<>(WeightedPodAffinityTerm::new)
          .field("weight", INTEGER, WeightedPodAffinityTerm::setWeight)
          .field("podAffinityTerm", POD_AFFINITY_TERM, WeightedPodAffinityTerm::setPodAffinityTerm);

  private static final ObjectReader<Affinity> AFFINITY =
      new ObjectReader<>(Affinity::new)
          .field("nodeAffinity", NODE_AFFINITY, Affinity::setNodeAffinity)
          .field(
              "podAffinity",
              new ObjectReader<>(PodAffinity::new)
                  .field("requiredDuringSchedulingIgnoredDuringExecution", listOf(POD_AFFINITY_TERM), PodAffinity::setRequiredDuringSchedulingIgnoredDuringExecution)
                  .field("preferredDuringSchedulingIgnoredDuringExecution", listOf(WEIGHTED_POD_AFFINITY_TERM), PodAffinity::setPreferredDuringSchedulingIgnoredDuringExecution),
              Affinity::setPodAffinity)
          .field(
              "podAntiAffinity",
              new ObjectReader<>(PodAntiAffinity::new)
                  .field("requiredDuringSchedulingIgnoredDuringExecution", listOf(POD_AFFINITY_TERM), PodAntiAffinity::setRequiredDuringSchedulingIgnoredDuringExecution)
                  .field("preferredDuringSchedulingIgnoredDuringExecution", listOf(WEIGHTED_POD_AFFINITY_TERM), PodAntiAffinity::setPreferredDuringSchedulingIgnoredDuringExecution),
              Affinity::setPodAntiAffinity);

  private static final ObjectReader<Toleration> TOLERATION =
      new ObjectReader<>(Toleration::new)
          .field("key", TEXT, Toleration::setKey)
          .field("operator", TEXT, Toleration::setOperator)
          .field("value", TEXT, Toleration::setValue)
          .field("effect", TEXT, Toleration::setEffect)
          .field("tolerationSeconds", DirectBinding::longValue, Toleration::setTolerationSeconds);

  private static final ObjectReader<TopologySpreadConstraint> SPREAD_CONSTRAINT =
      new ObjectReader<>(TopologySpreadConstraint::new)
          .field("maxSkew", INTEGER, TopologySpreadConstraint::setMaxSkew)
          .field("topologyKey", TEXT, TopologySpreadConstraint::setTopologyKey)
          .field("whenUnsatisfiable", TEXT, TopologySpreadConstraint::setWhenUnsatisfiable)
          .field("labelSelector", LABEL_SELECTOR, TopologySpreadConstraint::setLabelSelector)
          .field("minDomains", INTEGER, TopologySpreadConstraint::setMinDomains)
          .field("nodeAffinityPolicy", TEXT, TopologySpreadConstraint::setNodeAffinityPolicy)
          .field("nodeTaintsPolicy", TEXT, TopologySpreadConstraint::setNodeTaintsPolicy)
          .field("matchLabelKeys", STRING_LIST, TopologySpreadConstraint::setMatchLabelKeys);

  private static final ObjectReader<Container> CONTAINER =
      new ObjectReader<>(Container::new)
          .field("name", TEXT, Container::setName)
          .field("image", TEXT, Container::setImage)
          .field("imagePullPolicy", TEXT, Container::setImagePullPolicy)
          .field("command", STRING_LIST, Container::setCommand)
          .field("args", STRING_LIST, Container::setArgs)
          .field("restartPolicy", TEXT, Container::setRestartPolicy)
          .field(
              "resources",
              new ObjectReader<>(ResourceRequirements::new)
                  .field("requests", QUANTITIES, ResourceRequirements::setRequests)
                  .field("limits", QUANTITIES, ResourceRequirements::setLimits),
              Container::setResources)
          .field(
              "ports",
              listOf(
                  new ObjectReader<>(ContainerPort::new)
                      .field("containerPort", INTEGER, ContainerPort::setContainerPort)
                      .field("hostPort", INTEGER, ContainerPort::setHostPort)
                      .field("name", TEXT, ContainerPort::setName)
                      .field("protocol", TEXT, ContainerPort::setProtocol)),
              Container::setPorts)
          .field(
              "volumeMounts",
              listOf(
                  new ObjectReader<>(VolumeMount::new)
                      .field("name", TEXT, VolumeMount::setName)
                      .field("mountPath", TEXT, VolumeMount::setMountPath)
                      .field("readOnly", BOOL, VolumeMount::setReadOnly)
                      .field("subPath", TEXT, VolumeMount::setSubPath)),
              Container::setVolumeMounts);

  /** A volume that names a claim; other volume sources are left to Jackson. */
  private static final ObjectReader<Volume> VOLUME =
      new ObjectReader<>(Volume::new)
          .field("name", TEXT, Volume::setName)
          .field(
              "persistentVolumeClaim",
              new ObjectReader<>(PersistentVolumeClaimVolumeSource::new)
                  .field("claimName", TEXT, PersistentVolumeClaimVolumeSource::setClaimName)
                  .field("readOnly", BOOL, PersistentVolumeClaimVolumeSource::setReadOnly),
              Volume::setPersistentVolumeClaim);

  private static final ObjectReader<PodSpec> POD_SPEC =
      new ObjectReader<>(PodSpec::new)
          .field("containers", listOf(CONTAINER), PodSpec::setContainers)
          .field("initContainers", listOf(CONTAINER), PodSpec::setInitContainers)
          .field("nodeSelector", STRINGS, PodSpec::setNodeSelector)
          .field("nodeName", TEXT, PodSpec::setNodeName)
          .field("affinity", AFFINITY, PodSpec::setAffinity)
          .field("tolerations", listOf(TOLERATION), PodSpec::setTolerations)
          .field("topologySpreadConstraints", listOf(SPREAD_CONSTRAINT), PodSpec::setTopologySpreadConstraints)
          .field("volumes", listOf(VOLUME), PodSpec::setVolumes)
          .field("restartPolicy", TEXT, PodSpec::setRestartPolicy)
          .field("priorityClassName", TEXT, PodSpec::setPriorityClassName)
          .field("priority", INTEGER, PodSpec::setPriority)
          .field("schedulerName", TEXT, PodSpec::setSchedulerName)
          .field("serviceAccountName", TEXT, PodSpec::setServiceAccountName)
          .field("terminationGracePeriodSeconds", DirectBinding::longValue, PodSpec::setTerminationGracePeriodSeconds);

  private static final ObjectReader<PodTemplateSpec> POD_TEMPLATE =
      new ObjectReader<>(PodTemplateSpec::new)
          .field("metadata", METADATA, PodTemplateSpec::setMetadata)
          .field("spec", POD_SPEC, PodTemplateSpec::setSpec);

  private static final ObjectReader<PersistentVolumeClaim> CLAIM_TEMPLATE =
      kind(PersistentVolumeClaim::new, PersistentVolumeClaim::setKind)
          .field(
              "spec",
              new ObjectReader<>(PersistentVolumeClaimSpec::new)
                  .field("accessModes", STRING_LIST, PersistentVolumeClaimSpec::setAccessModes)
                  .field("storageClassName", TEXT, PersistentVolumeClaimSpec::setStorageClassName)
                  .field("volumeMode", TEXT, PersistentVolumeClaimSpec::setVolumeMode)
                  .field(
                      "resources",
                      new ObjectReader<>(VolumeResourceRequirements::new)
                          .field("requests", QUANTITIES, VolumeResourceRequirements::setRequests)
                          .field("limits", QUANTITIES, VolumeResourceRequirements::setLimits),
                      PersistentVolumeClaimSpec::setResources),
              PersistentVolumeClaim::setSpec);

  // Kinds. apiVersion and kind are set as Jackson sets them, over the constructor's defaults.

  private static <T extends HasMetadata> ObjectReader<T> kind(Supplier<T> factory, BiConsumer<T, String> setKind) {
    return new ObjectReader<>(factory)
        .field("apiVersion", TEXT, HasMetadata::setApiVersion)
        .field("kind", TEXT, setKind)
        .field("metadata", METADATA, HasMetadata::setMetadata);
  }

  private static final Map<Class<? extends HasMetadata>, ObjectReader<? extends HasMetadata>> KINDS =
      Map.of(
          Pod.class,
          kind(Pod::new, Pod::setKind).field("spec", POD_SPEC, Pod::setSpec),
          Deployment.class,
          kind(Deployment::new, Deployment::setKind)
              .field(
                  "spec",
                  new ObjectReader<>(DeploymentSpec::new)
                      .field("replicas", INTEGER, DeploymentSpec::setReplicas)
                      .field("selector", LABEL_SELECTOR, DeploymentSpec::setSelector)
                      .field("template", POD_TEMPLATE, DeploymentSpec::setTemplate),
                  Deployment::setSpec),
          StatefulSet.class,
          kind(StatefulSet::new, StatefulSet::setKind)
              .field(
                  "spec",
                  new ObjectReader<>(StatefulSetSpec::new)
                      .field("replicas", INTEGER, StatefulSetSpec::setReplicas)
                      .field("selector", LABEL_SELECTOR, StatefulSetSpec::setSelector)
                      .field("template", POD_TEMPLATE, StatefulSetSpec::setTemplate)
                      .field("serviceName", TEXT, StatefulSetSpec::setServiceName)
                      .field("podManagementPolicy", TEXT, StatefulSetSpec::setPodManagementPolicy)
                      .field("volumeClaimTemplates", listOf(CLAIM_TEMPLATE), StatefulSetSpec::setVolumeClaimTemplates),
                  StatefulSet::setSpec),
          ReplicaSet.class,
          kind(ReplicaSet::new, ReplicaSet::setKind)
              .field(
                  "spec",
                  new ObjectReader<>(ReplicaSetSpec::new)
                      .field("replicas", INTEGER, ReplicaSetSpec::setReplicas)
                      .field("selector", LABEL_SELECTOR, ReplicaSetSpec::setSelector)
                      .field("template", POD_TEMPLATE, ReplicaSetSpec::setTemplate),
                  ReplicaSet::setSpec),
          DaemonSet.class,
          kind(DaemonSet::new, DaemonSet::setKind)
              .field(
                  "spec",
                  new ObjectReader<>(DaemonSetSpec::new)
                      .field("selector", LABEL_SELECTOR, DaemonSetSpec::setSelector)
                      .field("template", POD_TEMPLATE, DaemonSetSpec::setTemplate),
                  DaemonSet::setSpec),
          Job.class,
          kind(Job::new, Job::setKind)
              .field(
                  "spec",
                  new ObjectReader<>(JobSpec::new)
                      .field("parallelism", INTEGER, JobSpec::setParallelism)
                      .field("completions", INTEGER, JobSpec::setCompletions)
                      .field("backoffLimit", INTEGER, JobSpec::setBackoffLimit)
                      .field("template", POD_TEMPLATE, JobSpec::setTemplate),
                  Job::setSpec),
          Node.class,
          kind(Node::new, Node::setKind)
              .field(
                  "spec",
                  new ObjectReader<>(NodeSpec::new)
                      .field("providerID", TEXT, NodeSpec::setProviderID)
                      .field(
                          "taints",
                          listOf(
                              new ObjectReader<>(Taint::new)
                                  .field("key", TEXT, Taint::setKey)
                                  .field("value", TEXT, Taint::setValue)
                                  .field("effect", TEXT, Taint::setEffect)),
                          NodeSpec::setTaints)
                      .field("unschedulable", BOOL, NodeSpec::setUnschedulable),
                  Node::setSpec)
              .field(
                  "status",
                  new ObjectReader<>(NodeStatus::new)
                      .field("capacity", QUANTITIES, NodeStatus::setCapacity)
                      .field("allocatable", QUANTITIES, NodeStatus::setAllocatable),
                  Node::setStatus),
          Namespace.class,
          kind(Namespace::new, Namespace::setKind),
          PodDisruptionBudget.class,
          kind(PodDisruptionBudget::new, PodDisruptionBudget::setKind)
              .field(
                  "spec",
                  new ObjectReader<>(PodDisruptionBudgetSpec::new)
                      .field("minAvailable", DirectBinding::intOrString, PodDisruptionBudgetSpec::setMinAvailable)
                      .field("maxUnavailable", DirectBinding::intOrString, PodDisruptionBudgetSpec::setMaxUnavailable)
                      .field("selector", LABEL_SELECTOR, PodDisruptionBudgetSpec::setSelector),
                  PodDisruptionBudget::setSpec),
          StorageClass.class,
          kind(StorageClass::new, StorageClass::setKind)
              .field("provisioner", TEXT, StorageClass::setProvisioner)
              .field("parameters", STRINGS, StorageClass::setParameters)
              .field("reclaimPolicy", TEXT, StorageClass::setReclaimPolicy)
              .field("volumeBindingMode", TEXT, StorageClass::setVolumeBindingMode)
              .field("allowVolumeExpansion", BOOL, StorageClass::setAllowVolumeExpansion)
              .field(
                  "allowedTopologies",
                  listOf(
                      new ObjectReader<>(TopologySelectorTerm::new)
                          .field(
                              "matchLabelExpressions",
                              listOf(
                                  new ObjectReader<>(TopologySelectorLabelRequirement::new)
                                      .field("key", TEXT, TopologySelectorLabelRequirement::setKey)
                                      .field("values", STRING_LIST, TopologySelectorLabelRequirement::setValues)),
                              TopologySelectorTerm::setMatchLabelExpressions)),
                  StorageClass::setAllowedTopologies));

  /** The object of {@code tree} as a {@code type}, or null when Jackson must bind it. */
  static HasMetadata bind(JsonNode tree, Class<? extends HasMetadata> type) {
    ObjectReader<? extends HasMetadata> reader = KINDS.get(type);
    if (reader == null) {
      return null;
    }
    try {
      return reader.apply(tree);
    } catch (Unsupported e) {
      return null;
    }
  }
}
