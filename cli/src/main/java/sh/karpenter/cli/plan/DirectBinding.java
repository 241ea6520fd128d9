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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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

  /** The object of {@code tree} as a {@code type}, or null when Jackson must bind it. */
  static HasMetadata bind(JsonNode tree, Class<? extends HasMetadata> type) {
    try {
      if (type == Pod.class) {
        return pod(tree);
      } else if (type == Deployment.class) {
        return deployment(tree);
      } else if (type == StatefulSet.class) {
        return statefulSet(tree);
      } else if (type == ReplicaSet.class) {
        return replicaSet(tree);
      } else if (type == DaemonSet.class) {
        return daemonSet(tree);
      } else if (type == Job.class) {
        return job(tree);
      } else if (type == Node.class) {
        return node(tree);
      } else if (type == Namespace.class) {
        return namespace(tree);
      } else if (type == PodDisruptionBudget.class) {
        return podDisruptionBudget(tree);
      } else if (type == StorageClass.class) {
        return storageClass(tree);
      }
      return null;
    } catch (Unsupported e) {
      return null;
    }
  }

  // Kinds. apiVersion and kind are set as Jackson sets them, over the constructor's defaults.

  private static Pod pod(JsonNode tree) {
    Pod pod = new Pod();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> pod.setApiVersion(text(value));
        case "kind" -> pod.setKind(text(value));
        case "metadata" -> pod.setMetadata(metadata(value));
        case "spec" -> pod.setSpec(podSpec(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return pod;
  }

  private static Deployment deployment(JsonNode tree) {
    Deployment deployment = new Deployment();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> deployment.setApiVersion(text(value));
        case "kind" -> deployment.setKind(text(value));
        case "metadata" -> deployment.setMetadata(metadata(value));
        case "spec" -> {
          DeploymentSpec spec = new DeploymentSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "replicas" -> spec.setReplicas(integer(v));
              case "selector" -> spec.setSelector(labelSelector(v));
              case "template" -> spec.setTemplate(podTemplate(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          deployment.setSpec(spec);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return deployment;
  }

  private static StatefulSet statefulSet(JsonNode tree) {
    StatefulSet statefulSet = new StatefulSet();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> statefulSet.setApiVersion(text(value));
        case "kind" -> statefulSet.setKind(text(value));
        case "metadata" -> statefulSet.setMetadata(metadata(value));
        case "spec" -> {
          StatefulSetSpec spec = new StatefulSetSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "replicas" -> spec.setReplicas(integer(v));
              case "selector" -> spec.setSelector(labelSelector(v));
              case "template" -> spec.setTemplate(podTemplate(v));
              case "serviceName" -> spec.setServiceName(text(v));
              case "podManagementPolicy" -> spec.setPodManagementPolicy(text(v));
              case "volumeClaimTemplates" -> spec.setVolumeClaimTemplates(list(v, DirectBinding::claimTemplate));
              default -> throw Unsupported.INSTANCE;
            }
          }
          statefulSet.setSpec(spec);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return statefulSet;
  }

  private static ReplicaSet replicaSet(JsonNode tree) {
    ReplicaSet replicaSet = new ReplicaSet();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> replicaSet.setApiVersion(text(value));
        case "kind" -> replicaSet.setKind(text(value));
        case "metadata" -> replicaSet.setMetadata(metadata(value));
        case "spec" -> {
          ReplicaSetSpec spec = new ReplicaSetSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "replicas" -> spec.setReplicas(integer(v));
              case "selector" -> spec.setSelector(labelSelector(v));
              case "template" -> spec.setTemplate(podTemplate(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          replicaSet.setSpec(spec);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return replicaSet;
  }

  private static DaemonSet daemonSet(JsonNode tree) {
    DaemonSet daemonSet = new DaemonSet();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> daemonSet.setApiVersion(text(value));
        case "kind" -> daemonSet.setKind(text(value));
        case "metadata" -> daemonSet.setMetadata(metadata(value));
        case "spec" -> {
          DaemonSetSpec spec = new DaemonSetSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "selector" -> spec.setSelector(labelSelector(v));
              case "template" -> spec.setTemplate(podTemplate(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          daemonSet.setSpec(spec);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return daemonSet;
  }

  private static Job job(JsonNode tree) {
    Job job = new Job();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> job.setApiVersion(text(value));
        case "kind" -> job.setKind(text(value));
        case "metadata" -> job.setMetadata(metadata(value));
        case "spec" -> {
          JobSpec spec = new JobSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "parallelism" -> spec.setParallelism(integer(v));
              case "completions" -> spec.setCompletions(integer(v));
              case "backoffLimit" -> spec.setBackoffLimit(integer(v));
              case "template" -> spec.setTemplate(podTemplate(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          job.setSpec(spec);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return job;
  }

  private static Node node(JsonNode tree) {
    Node node = new Node();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> node.setApiVersion(text(value));
        case "kind" -> node.setKind(text(value));
        case "metadata" -> node.setMetadata(metadata(value));
        case "spec" -> {
          NodeSpec spec = new NodeSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "providerID" -> spec.setProviderID(text(v));
              case "taints" -> spec.setTaints(list(v, DirectBinding::taint));
              case "unschedulable" -> spec.setUnschedulable(bool(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          node.setSpec(spec);
        }
        case "status" -> {
          NodeStatus status = new NodeStatus();
          for (Map.Entry<String, JsonNode> statusField : fields(value)) {
            JsonNode v = statusField.getValue();
            switch (statusField.getKey()) {
              case "capacity" -> status.setCapacity(quantities(v));
              case "allocatable" -> status.setAllocatable(quantities(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          node.setStatus(status);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return node;
  }

  private static Namespace namespace(JsonNode tree) {
    Namespace namespace = new Namespace();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> namespace.setApiVersion(text(value));
        case "kind" -> namespace.setKind(text(value));
        case "metadata" -> namespace.setMetadata(metadata(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return namespace;
  }

  private static PodDisruptionBudget podDisruptionBudget(JsonNode tree) {
    PodDisruptionBudget budget = new PodDisruptionBudget();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> budget.setApiVersion(text(value));
        case "kind" -> budget.setKind(text(value));
        case "metadata" -> budget.setMetadata(metadata(value));
        case "spec" -> {
          PodDisruptionBudgetSpec spec = new PodDisruptionBudgetSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "minAvailable" -> spec.setMinAvailable(intOrString(v));
              case "maxUnavailable" -> spec.setMaxUnavailable(intOrString(v));
              case "selector" -> spec.setSelector(labelSelector(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          budget.setSpec(spec);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return budget;
  }

  private static StorageClass storageClass(JsonNode tree) {
    StorageClass storageClass = new StorageClass();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> storageClass.setApiVersion(text(value));
        case "kind" -> storageClass.setKind(text(value));
        case "metadata" -> storageClass.setMetadata(metadata(value));
        case "provisioner" -> storageClass.setProvisioner(text(value));
        case "parameters" -> storageClass.setParameters(strings(value));
        case "reclaimPolicy" -> storageClass.setReclaimPolicy(text(value));
        case "volumeBindingMode" -> storageClass.setVolumeBindingMode(text(value));
        case "allowVolumeExpansion" -> storageClass.setAllowVolumeExpansion(bool(value));
        case "allowedTopologies" -> storageClass.setAllowedTopologies(list(value, DirectBinding::topologySelectorTerm));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return storageClass;
  }

  // Parts.

  private static ObjectMeta metadata(JsonNode tree) {
    ObjectMeta metadata = new ObjectMeta();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "name" -> metadata.setName(text(value));
        case "generateName" -> metadata.setGenerateName(text(value));
        case "namespace" -> metadata.setNamespace(text(value));
        case "uid" -> metadata.setUid(text(value));
        case "labels" -> metadata.setLabels(strings(value));
        case "annotations" -> metadata.setAnnotations(strings(value));
        case "ownerReferences" -> metadata.setOwnerReferences(list(value, DirectBinding::ownerReference));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return metadata;
  }

  private static OwnerReference ownerReference(JsonNode tree) {
    OwnerReference reference = new OwnerReference();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> reference.setApiVersion(text(value));
        case "kind" -> reference.setKind(text(value));
        case "name" -> reference.setName(text(value));
        case "uid" -> reference.setUid(text(value));
        case "controller" -> reference.setController(bool(value));
        case "blockOwnerDeletion" -> reference.setBlockOwnerDeletion(bool(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return reference;
  }

  private static PodTemplateSpec podTemplate(JsonNode tree) {
    PodTemplateSpec template = new PodTemplateSpec();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "metadata" -> template.setMetadata(metadata(value));
        case "spec" -> template.setSpec(podSpec(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return template;
  }

  private static PodSpec podSpec(JsonNode tree) {
    PodSpec spec = new PodSpec();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "containers" -> spec.setContainers(list(value, DirectBinding::container));
        case "initContainers" -> spec.setInitContainers(list(value, DirectBinding::container));
        case "nodeSelector" -> spec.setNodeSelector(strings(value));
        case "nodeName" -> spec.setNodeName(text(value));
        case "affinity" -> spec.setAffinity(affinity(value));
        case "tolerations" -> spec.setTolerations(list(value, DirectBinding::toleration));
        case "topologySpreadConstraints" -> spec.setTopologySpreadConstraints(list(value, DirectBinding::spreadConstraint));
        case "volumes" -> spec.setVolumes(list(value, DirectBinding::volume));
        case "restartPolicy" -> spec.setRestartPolicy(text(value));
        case "priorityClassName" -> spec.setPriorityClassName(text(value));
        case "priority" -> spec.setPriority(integer(value));
        case "schedulerName" -> spec.setSchedulerName(text(value));
        case "serviceAccountName" -> spec.setServiceAccountName(text(value));
        case "terminationGracePeriodSeconds" -> spec.setTerminationGracePeriodSeconds(longValue(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return spec;
  }

  private static Container container(JsonNode tree) {
    Container container = new Container();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "name" -> container.setName(text(value));
        case "image" -> container.setImage(text(value));
        case "imagePullPolicy" -> container.setImagePullPolicy(text(value));
        case "command" -> container.setCommand(stringList(value));
        case "args" -> container.setArgs(stringList(value));
        case "restartPolicy" -> container.setRestartPolicy(text(value));
        case "resources" -> {
          ResourceRequirements resources = new ResourceRequirements();
          for (Map.Entry<String, JsonNode> resourceField : fields(value)) {
            JsonNode v = resourceField.getValue();
            switch (resourceField.getKey()) {
              case "requests" -> resources.setRequests(quantities(v));
              case "limits" -> resources.setLimits(quantities(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          container.setResources(resources);
        }
        case "ports" -> container.setPorts(list(value, DirectBinding::containerPort));
        case "volumeMounts" -> container.setVolumeMounts(list(value, DirectBinding::volumeMount));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return container;
  }

  private static ContainerPort containerPort(JsonNode tree) {
    ContainerPort port = new ContainerPort();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "containerPort" -> port.setContainerPort(integer(value));
        case "hostPort" -> port.setHostPort(integer(value));
        case "name" -> port.setName(text(value));
        case "protocol" -> port.setProtocol(text(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return port;
  }

  private static VolumeMount volumeMount(JsonNode tree) {
    VolumeMount mount = new VolumeMount();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "name" -> mount.setName(text(value));
        case "mountPath" -> mount.setMountPath(text(value));
        case "readOnly" -> mount.setReadOnly(bool(value));
        case "subPath" -> mount.setSubPath(text(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return mount;
  }

  /** A volume that names a claim; other volume sources are left to Jackson. */
  private static Volume volume(JsonNode tree) {
    Volume volume = new Volume();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "name" -> volume.setName(text(value));
        case "persistentVolumeClaim" -> {
          PersistentVolumeClaimVolumeSource source = new PersistentVolumeClaimVolumeSource();
          for (Map.Entry<String, JsonNode> sourceField : fields(value)) {
            JsonNode v = sourceField.getValue();
            switch (sourceField.getKey()) {
              case "claimName" -> source.setClaimName(text(v));
              case "readOnly" -> source.setReadOnly(bool(v));
              default -> throw Unsupported.INSTANCE;
            }
          }
          volume.setPersistentVolumeClaim(source);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return volume;
  }

  private static PersistentVolumeClaim claimTemplate(JsonNode tree) {
    PersistentVolumeClaim claim = new PersistentVolumeClaim();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "apiVersion" -> claim.setApiVersion(text(value));
        case "kind" -> claim.setKind(text(value));
        case "metadata" -> claim.setMetadata(metadata(value));
        case "spec" -> {
          PersistentVolumeClaimSpec spec = new PersistentVolumeClaimSpec();
          for (Map.Entry<String, JsonNode> specField : fields(value)) {
            JsonNode v = specField.getValue();
            switch (specField.getKey()) {
              case "accessModes" -> spec.setAccessModes(stringList(v));
              case "storageClassName" -> spec.setStorageClassName(text(v));
              case "volumeMode" -> spec.setVolumeMode(text(v));
              case "resources" -> {
                VolumeResourceRequirements resources = new VolumeResourceRequirements();
                for (Map.Entry<String, JsonNode> resourceField : fields(v)) {
                  JsonNode r = resourceField.getValue();
                  switch (resourceField.getKey()) {
                    case "requests" -> resources.setRequests(quantities(r));
                    case "limits" -> resources.setLimits(quantities(r));
                    default -> throw Unsupported.INSTANCE;
                  }
                }
                spec.setResources(resources);
              }
              default -> throw Unsupported.INSTANCE;
            }
          }
          claim.setSpec(spec);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return claim;
  }

  private static Affinity affinity(JsonNode tree) {
    Affinity affinity = new Affinity();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "nodeAffinity" -> affinity.setNodeAffinity(nodeAffinity(value));
        case "podAffinity" -> {
          PodAffinity podAffinity = new PodAffinity();
          for (Map.Entry<String, JsonNode> termField : fields(value)) {
            JsonNode v = termField.getValue();
            switch (termField.getKey()) {
              case "requiredDuringSchedulingIgnoredDuringExecution" ->
                  podAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(list(v, DirectBinding::podAffinityTerm));
              case "preferredDuringSchedulingIgnoredDuringExecution" ->
                  podAffinity.setPreferredDuringSchedulingIgnoredDuringExecution(list(v, DirectBinding::weightedPodAffinityTerm));
              default -> throw Unsupported.INSTANCE;
            }
          }
          affinity.setPodAffinity(podAffinity);
        }
        case "podAntiAffinity" -> {
          PodAntiAffinity podAntiAffinity = new PodAntiAffinity();
          for (Map.Entry<String, JsonNode> termField : fields(value)) {
            JsonNode v = termField.getValue();
            switch (termField.getKey()) {
              case "requiredDuringSchedulingIgnoredDuringExecution" ->
                  podAntiAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(list(v, DirectBinding::podAffinityTerm));
              case "preferredDuringSchedulingIgnoredDuringExecution" ->
                  podAntiAffinity.setPreferredDuringSchedulingIgnoredDuringExecution(list(v, DirectBinding::weightedPodAffinityTerm));
              default -> throw Unsupported.INSTANCE;
            }
          }
          affinity.setPodAntiAffinity(podAntiAffinity);
        }
        default -> throw Unsupported.INSTANCE;
      }
    }
    return affinity;
  }

  private static NodeAffinity nodeAffinity(JsonNode tree) {
    NodeAffinity nodeAffinity = new NodeAffinity();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "requiredDuringSchedulingIgnoredDuringExecution" -> {
          NodeSelector selector = new NodeSelector();
          for (Map.Entry<String, JsonNode> selectorField : fields(value)) {
            if (!selectorField.getKey().equals("nodeSelectorTerms")) {
              throw Unsupported.INSTANCE;
            }
            selector.setNodeSelectorTerms(list(selectorField.getValue(), DirectBinding::nodeSelectorTerm));
          }
          nodeAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(selector);
        }
        case "preferredDuringSchedulingIgnoredDuringExecution" ->
            nodeAffinity.setPreferredDuringSchedulingIgnoredDuringExecution(list(value, DirectBinding::preferredSchedulingTerm));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return nodeAffinity;
  }

  private static PreferredSchedulingTerm preferredSchedulingTerm(JsonNode tree) {
    PreferredSchedulingTerm term = new PreferredSchedulingTerm();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "weight" -> term.setWeight(integer(value));
        case "preference" -> term.setPreference(nodeSelectorTerm(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return term;
  }

  private static NodeSelectorTerm nodeSelectorTerm(JsonNode tree) {
    NodeSelectorTerm term = new NodeSelectorTerm();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "matchExpressions" -> term.setMatchExpressions(list(value, DirectBinding::nodeSelectorRequirement));
        case "matchFields" -> term.setMatchFields(list(value, DirectBinding::nodeSelectorRequirement));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return term;
  }

  private static NodeSelectorRequirement nodeSelectorRequirement(JsonNode tree) {
    NodeSelectorRequirement requirement = new NodeSelectorRequirement();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "key" -> requirement.setKey(text(value));
        case "operator" -> requirement.setOperator(text(value));
        case "values" -> requirement.setValues(stringList(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return requirement;
  }

  private static PodAffinityTerm podAffinityTerm(JsonNode tree) {
    PodAffinityTerm term = new PodAffinityTerm();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "labelSelector" -> term.setLabelSelector(labelSelector(value));
        case "namespaceSelector" -> term.setNamespaceSelector(labelSelector(value));
        case "namespaces" -> term.setNamespaces(stringList(value));
        case "topologyKey" -> term.setTopologyKey(text(value));
        case "matchLabelKeys" -> term.setMatchLabelKeys(stringList(value));
        case "mismatchLabelKeys" -> term.setMismatchLabelKeys(stringList(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return term;
  }

  private static WeightedPodAffinityTerm weightedPodAffinityTerm(JsonNode tree) {
    WeightedPodAffinityTerm term = new WeightedPodAffinityTerm();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "weight" -> term.setWeight(integer(value));
        case "podAffinityTerm" -> term.setPodAffinityTerm(podAffinityTerm(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return term;
  }

  private static LabelSelector labelSelector(JsonNode tree) {
    LabelSelector selector = new LabelSelector();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "matchLabels" -> selector.setMatchLabels(strings(value));
        case "matchExpressions" -> selector.setMatchExpressions(list(value, DirectBinding::labelSelectorRequirement));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return selector;
  }

  private static LabelSelectorRequirement labelSelectorRequirement(JsonNode tree) {
    LabelSelectorRequirement requirement = new LabelSelectorRequirement();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "key" -> requirement.setKey(text(value));
        case "operator" -> requirement.setOperator(text(value));
        case "values" -> requirement.setValues(stringList(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return requirement;
  }

  private static Toleration toleration(JsonNode tree) {
    Toleration toleration = new Toleration();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "key" -> toleration.setKey(text(value));
        case "operator" -> toleration.setOperator(text(value));
        case "value" -> toleration.setValue(text(value));
        case "effect" -> toleration.setEffect(text(value));
        case "tolerationSeconds" -> toleration.setTolerationSeconds(longValue(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return toleration;
  }

  private static Taint taint(JsonNode tree) {
    Taint taint = new Taint();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "key" -> taint.setKey(text(value));
        case "value" -> taint.setValue(text(value));
        case "effect" -> taint.setEffect(text(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return taint;
  }

  private static TopologySpreadConstraint spreadConstraint(JsonNode tree) {
    TopologySpreadConstraint constraint = new TopologySpreadConstraint();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      JsonNode value = field.getValue();
      switch (field.getKey()) {
        case "maxSkew" -> constraint.setMaxSkew(integer(value));
        case "topologyKey" -> constraint.setTopologyKey(text(value));
        case "whenUnsatisfiable" -> constraint.setWhenUnsatisfiable(text(value));
        case "labelSelector" -> constraint.setLabelSelector(labelSelector(value));
        case "minDomains" -> constraint.setMinDomains(integer(value));
        case "nodeAffinityPolicy" -> constraint.setNodeAffinityPolicy(text(value));
        case "nodeTaintsPolicy" -> constraint.setNodeTaintsPolicy(text(value));
        case "matchLabelKeys" -> constraint.setMatchLabelKeys(stringList(value));
        default -> throw Unsupported.INSTANCE;
      }
    }
    return constraint;
  }

  private static TopologySelectorTerm topologySelectorTerm(JsonNode tree) {
    TopologySelectorTerm term = new TopologySelectorTerm();
    for (Map.Entry<String, JsonNode> field : fields(tree)) {
      if (!field.getKey().equals("matchLabelExpressions")) {
        throw Unsupported.INSTANCE;
      }
      term.setMatchLabelExpressions(
          list(
              field.getValue(),
              item -> {
                TopologySelectorLabelRequirement requirement = new TopologySelectorLabelRequirement();
                for (Map.Entry<String, JsonNode> requirementField : fields(item)) {
                  JsonNode v = requirementField.getValue();
                  switch (requirementField.getKey()) {
                    case "key" -> requirement.setKey(text(v));
                    case "values" -> requirement.setValues(stringList(v));
                    default -> throw Unsupported.INSTANCE;
                  }
                }
                return requirement;
              }));
    }
    return term;
  }

  // Values, each from the one JSON type read here (Jackson would coerce some others, or reject them).

  private static Iterable<Map.Entry<String, JsonNode>> fields(JsonNode node) {
    if (!node.isObject()) {
      throw Unsupported.INSTANCE;
    }
    return node.properties();
  }

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
    if (node.isInt()) {
      return new IntOrString(node.intValue());
    }
    return new IntOrString(text(node));
  }

  private static Map<String, String> strings(JsonNode node) {
    Map<String, String> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : fields(node)) {
      map.put(entry.getKey(), text(entry.getValue()));
    }
    return map;
  }

  /** Quantities from strings and integers, made from the value's text as Quantity's Jackson binder makes them. */
  private static Map<String, Quantity> quantities(JsonNode node) {
    Map<String, Quantity> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : fields(node)) {
      JsonNode value = entry.getValue();
      if (!value.isTextual() && !value.isInt() && !value.isLong()) {
        throw Unsupported.INSTANCE;
      }
      map.put(entry.getKey(), new Quantity(value.asText()));
    }
    return map;
  }

  private static List<String> stringList(JsonNode node) {
    return list(node, DirectBinding::text);
  }

  private static <T> List<T> list(JsonNode node, Function<JsonNode, T> item) {
    if (!node.isArray()) {
      throw Unsupported.INSTANCE;
    }
    List<T> list = new ArrayList<>(node.size());
    for (JsonNode element : node) {
      list.add(item.apply(element));
    }
    return list;
  }
}
