package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.LabelSelector.Expression;
import sh.karpenter.core.requirements.Operator;

/**
 * Derives the label selector of a pod's default topology spread constraints the way kube-scheduler
 * does ({@code helper.DefaultSelector}), from the Services and controllers recorded here.
 *
 * <p>The selector is the union of the selectors of every Service in the pod's namespace that
 * selects the pod, as matchLabels, plus the selector of the pod's controller (the owner reference
 * marked {@code controller}) when it is a ReplicationController, ReplicaSet or StatefulSet. A
 * ReplicationController's selector is merged into the matchLabels (its value wins on a shared key);
 * a ReplicaSet's or StatefulSet's is ANDed on as expressions, so that a contradiction with a Service
 * selects nothing, as upstream does. A Deployment counts as a controller too: in a live cluster its
 * pods are owned by its ReplicaSets, but the pods {@link WorkloadPods} expands for a plan are owned by
 * the Deployment itself, whose selector is its ReplicaSets' without {@code pod-template-hash}. Other
 * controllers (Jobs, DaemonSets, custom resources) contribute nothing; their pods get defaults only
 * through a Service.
 *
 * <p>Mutable: a collector filled while a snapshot is built, then queried.
 */
public final class DefaultSpreadSelectors {
  private final Map<String, List<Map<String, String>>> serviceSelectorsByNamespace = new HashMap<>();
  private final Map<String, ControllerSelector> controllerSelectors = new HashMap<>();

  /**
   * What a controller adds to a pod's selector.
   *
   * @param labels merged into the matchLabels (a ReplicationController's selector)
   * @param expressions ANDed on (a ReplicaSet's, StatefulSet's or Deployment's selector)
   */
  private record ControllerSelector(Map<String, String> labels, List<Expression> expressions) {}

  /** Records a Service's selector; one without a selector selects no pod and is skipped. */
  public void addService(Service service) {
    Map<String, String> selector = service.getSpec() == null ? Map.of() : nullToEmpty(service.getSpec().getSelector());
    if (!selector.isEmpty()) {
      serviceSelectorsByNamespace.computeIfAbsent(namespaceOf(service.getMetadata()), n -> new ArrayList<>()).add(Map.copyOf(selector));
    }
  }

  /**
   * Records the selector of a controller of pods. Kinds kube-scheduler does not derive selectors from
   * are ignored.
   *
   * @throws SnapshotInputException when the controller's {@code spec.selector} is malformed
   */
  public void addController(HasMetadata controller, String origin) {
    ControllerSelector selector =
        switch (controller) {
          case ReplicationController rc when rc.getSpec() != null -> new ControllerSelector(Map.copyOf(nullToEmpty(rc.getSpec().getSelector())), List.of());
          case ReplicaSet rs when rs.getSpec() != null -> asExpressions(rs.getSpec().getSelector(), origin);
          case StatefulSet ss when ss.getSpec() != null -> asExpressions(ss.getSpec().getSelector(), origin);
          case Deployment d when d.getSpec() != null -> asExpressions(d.getSpec().getSelector(), origin);
          default -> null;
        };
    if (selector != null && !(selector.labels().isEmpty() && selector.expressions().isEmpty())) {
      ObjectMeta meta = controller.getMetadata();
      controllerSelectors.put(key(namespaceOf(meta), controller.getKind(), meta.getName()), selector);
    }
  }

  /**
   * The selector kube-scheduler would give the pod's default constraints, or null when none can be
   * derived (no Service selects the pod and its controller contributes nothing), in which case the
   * pod gets no defaults.
   */
  public LabelSelector selectorFor(Pod pod) {
    ObjectMeta meta = pod.getMetadata();
    String namespace = namespaceOf(meta);
    Map<String, String> labels = nullToEmpty(meta.getLabels());
    Map<String, String> matchLabels = new TreeMap<>();
    for (Map<String, String> selector : serviceSelectorsByNamespace.getOrDefault(namespace, List.of())) {
      if (selects(selector, labels)) {
        matchLabels.putAll(selector);
      }
    }
    List<Expression> expressions = List.of();
    OwnerReference controller = controllerOf(meta);
    ControllerSelector controllerSelector = controller == null ? null : controllerSelectors.get(key(namespace, controller.getKind(), controller.getName()));
    if (controllerSelector != null) {
      matchLabels.putAll(controllerSelector.labels());
      expressions = controllerSelector.expressions();
    }
    if (matchLabels.isEmpty() && expressions.isEmpty()) {
      return null;
    }
    return LabelSelector.of(matchLabels, expressions);
  }

  /** A label selector as requirements: each matchLabel as {@code key In [value]}, then the expressions. */
  private static ControllerSelector asExpressions(io.fabric8.kubernetes.api.model.LabelSelector selector, String origin) {
    if (selector == null) {
      return null;
    }
    LabelSelector converted = ValueConverter.labelSelector(selector, origin, "spec.selector");
    List<Expression> expressions = new ArrayList<>();
    new TreeMap<>(converted.matchLabels()).forEach((key, value) -> expressions.add(new Expression(key, Operator.In, List.of(value))));
    expressions.addAll(converted.expressions());
    return new ControllerSelector(Map.of(), List.copyOf(expressions));
  }

  private static boolean selects(Map<String, String> selector, Map<String, String> labels) {
    for (Map.Entry<String, String> entry : selector.entrySet()) {
      if (!entry.getValue().equals(labels.get(entry.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** The owner reference marked as the controller, or null (other owners do not count). */
  private static OwnerReference controllerOf(ObjectMeta meta) {
    for (OwnerReference owner : nullToEmpty(meta.getOwnerReferences())) {
      if (Boolean.TRUE.equals(owner.getController())) {
        return owner;
      }
    }
    return null;
  }

  private static String key(String namespace, String kind, String name) {
    return namespace + "/" + kind + "/" + name;
  }

  private static String namespaceOf(ObjectMeta meta) {
    return meta.getNamespace() == null || meta.getNamespace().isEmpty() ? "default" : meta.getNamespace();
  }
}
