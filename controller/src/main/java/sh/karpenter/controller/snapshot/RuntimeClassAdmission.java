package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What kube-apiserver's RuntimeClass admission plugin does to a pod it creates that names a
 * RuntimeClass ({@code spec.runtimeClassName}), applied to the pods and pod templates of a snapshot so
 * that a pod is planned as it runs: a pod without {@code spec.overhead} gets the class's {@code
 * overhead.podFixed}; the class's {@code scheduling.nodeSelector} is merged into the pod's node
 * selector (a key with a different value is a conflict, and the plugin refuses the pod); its {@code
 * scheduling.tolerations} are added to the pod's. Pods created by kube-apiserver already carry all of
 * this, so applying it again changes nothing for them; workload and DaemonSet templates never carry
 * it.
 *
 * <p>A pod naming a RuntimeClass that does not exist is refused by the plugin. When the classes given
 * are all the cluster has ({@code allKnown}, the controller's informer), such a pod is {@linkplain
 * Admitted#rejection() rejected}: it could not have been created through the API, and a node could not
 * run it. Otherwise (manifests for {@code karpenter plan}, which may simply leave the class out) the
 * pod is taken as it is, with a {@linkplain Admitted#warning() warning}.
 */
final class RuntimeClassAdmission {
  /**
   * The pod spec as admitted.
   *
   * @param spec the spec with the class's overhead and scheduling applied (the spec given when there
   *     is nothing to apply or the pod is refused)
   * @param rejection why kube-apiserver would refuse to create the pod, or null
   * @param warning what a plan should tell about the class (not among the manifests), or null
   */
  record Admitted(PodSpec spec, String rejection, String warning) {}

  private final Map<String, RuntimeClass> classes;
  private final boolean allKnown;

  /**
   * @param classes every RuntimeClass known, by name
   * @param allKnown true when {@code classes} are all the cluster has
   */
  RuntimeClassAdmission(Map<String, RuntimeClass> classes, boolean allKnown) {
    this.classes = Map.copyOf(classes);
    this.allKnown = allKnown;
  }

  /** Admits a pod spec (null is an empty spec). */
  Admitted admit(PodSpec spec) {
    PodSpec given = spec == null ? new PodSpec() : spec;
    String name = given.getRuntimeClassName();
    if (name == null || name.isEmpty()) {
      return new Admitted(given, null, null);
    }
    RuntimeClass runtimeClass = classes.get(name);
    if (runtimeClass == null) {
      return allKnown
          ? new Admitted(given, "RuntimeClass \"" + name + "\" not found: kube-apiserver refuses to create a pod naming it and no node can run it", null)
          : new Admitted(
              given,
              null,
              "RuntimeClass \"" + name + "\" is not among the manifests; its overhead, nodeSelector and tolerations are not applied");
    }
    PodSpecBuilder admitted = new PodSpecBuilder(given);
    boolean changed = false;
    var overhead = runtimeClass.getOverhead() == null ? null : runtimeClass.getOverhead().getPodFixed();
    if (overhead != null && !overhead.isEmpty() && (given.getOverhead() == null || given.getOverhead().isEmpty())) {
      admitted.withOverhead(new LinkedHashMap<>(overhead));
      changed = true;
    }
    var scheduling = runtimeClass.getScheduling();
    if (scheduling != null) {
      Map<String, String> nodeSelector = new HashMap<>(nullToEmpty(given.getNodeSelector()));
      for (Map.Entry<String, String> entry : nullToEmpty(scheduling.getNodeSelector()).entrySet()) {
        String podValue = nodeSelector.putIfAbsent(entry.getKey(), entry.getValue());
        if (podValue != null && !podValue.equals(entry.getValue())) {
          return new Admitted(
              given,
              "RuntimeClass \"" + name + "\" conflicts with the pod: runtimeClass.scheduling.nodeSelector[" + entry.getKey() + "] = "
                  + entry.getValue() + "; pod.spec.nodeSelector[" + entry.getKey() + "] = " + podValue,
              null);
        }
      }
      List<Toleration> tolerations = new ArrayList<>(nullToEmpty(given.getTolerations()));
      for (Toleration toleration : nullToEmpty(scheduling.getTolerations())) {
        if (!tolerations.contains(toleration)) {
          tolerations.add(toleration);
        }
      }
      admitted.withNodeSelector(nodeSelector.isEmpty() ? given.getNodeSelector() : nodeSelector).withTolerations(tolerations);
      changed = true;
    }
    return new Admitted(changed ? admitted.build() : given, null, null);
  }
}
