package sh.karpenter.cli.plan;

import static sh.karpenter.api.binding.ModelReaders.METADATA;
import static sh.karpenter.api.binding.ModelReaders.TAINT;
import static sh.karpenter.api.binding.ModelReaders.kind;
import static sh.karpenter.api.binding.ObjectReader.BOOL;
import static sh.karpenter.api.binding.ObjectReader.INTEGER;
import static sh.karpenter.api.binding.ObjectReader.INT_OR_STRING;
import static sh.karpenter.api.binding.ObjectReader.LONG;
import static sh.karpenter.api.binding.ObjectReader.QUANTITIES;
import static sh.karpenter.api.binding.ObjectReader.STRINGS;
import static sh.karpenter.api.binding.ObjectReader.STRING_LIST;
import static sh.karpenter.api.binding.ObjectReader.TEXT;
import static sh.karpenter.api.binding.ObjectReader.listOf;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
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
import io.fabric8.kubernetes.api.model.ResourceRequirements;
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
import java.util.Map;
import sh.karpenter.api.binding.ObjectReader;

/**
 * Binds the fields of the core kinds that plans usually hold (a pod's requests, selectors,
 * affinity, tolerations, spread and claims; a workload's replicas and template; a node's labels,
 * taints and capacity; ...) straight into the fabric8 model with {@link ObjectReader}s: the object
 * Jackson would make, without Jackson's first-use cost on a fresh JVM. A document with anything else
 * (another field, null, a value of another JSON type) is given up, and the caller binds it with
 * Jackson, which accepts or rejects it and names the field, as without this class.
 */
final class DirectBinding {
  private DirectBinding() {}

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
          .field("tolerationSeconds", LONG, Toleration::setTolerationSeconds);

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
          .field("terminationGracePeriodSeconds", LONG, PodSpec::setTerminationGracePeriodSeconds);

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

  // Kinds.

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
                      .field("taints", listOf(TAINT), NodeSpec::setTaints)
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
                      .field("minAvailable", INT_OR_STRING, PodDisruptionBudgetSpec::setMinAvailable)
                      .field("maxUnavailable", INT_OR_STRING, PodDisruptionBudgetSpec::setMaxUnavailable)
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
    return reader == null ? null : ObjectReader.read(reader, tree);
  }
}
