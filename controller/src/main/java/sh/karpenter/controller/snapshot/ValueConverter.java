package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;

/**
 * Conversions of the small Kubernetes value types that several objects' manifests share (resource
 * lists and their quantities, label selectors, node selector terms and requirements, taints and
 * tolerations), each reporting failures against the field path it was
 * given, so that a bad quantity deep in a pod template is reported as, for example, {@code
 * spec.template.spec.containers[1].resources.requests.memory}.
 */
final class ValueConverter {
  private ValueConverter() {}

  /**
   * A resource list ({@code requests}, {@code allocatable}, {@code limits}); null means empty. A
   * negative quantity is an error, as kube-apiserver's validation of pods and nodes makes it.
   * Magnitudes beyond a {@code long} of milli-units (9223372036854775807m) are taken as that much.
   */
  static Resources resources(Map<String, io.fabric8.kubernetes.api.model.Quantity> list, String origin, String field) {
    return resources(list, origin, field, warning -> {});
  }

  /**
   * {@link #resources(Map, String, String)}, reporting each quantity taken as less than it is to
   * {@code warnings}: kube-apiserver accepts such a value, but kube-scheduler's int64 arithmetic
   * cannot hold it either, and no node has that much.
   */
  static Resources resources(
      Map<String, io.fabric8.kubernetes.api.model.Quantity> list, String origin, String field, Consumer<String> warnings) {
    if (list == null || list.isEmpty()) {
      return Resources.EMPTY;
    }
    Resources.Builder builder = Resources.builder();
    list.forEach(
        (name, quantity) -> {
          String text = quantity == null ? null : quantity.toString();
          long milli;
          try {
            if (text == null || text.isBlank()) {
              throw new IllegalArgumentException("empty quantity");
            }
            milli = Quantity.parseMilli(text);
          } catch (IllegalArgumentException | ArithmeticException e) {
            throw new SnapshotInputException(origin, field + "." + name, "invalid quantity \"" + text + "\": " + e.getMessage());
          }
          if (milli < 0) {
            throw new SnapshotInputException(origin, field + "." + name, "Invalid value: \"" + text + "\": must be greater than or equal to 0");
          }
          if (milli == Long.MAX_VALUE) {
            warnings.accept(origin + ": " + field + "." + name + ": \"" + text + "\" is more than " + Long.MAX_VALUE
                + "m, the most a plan (and kube-scheduler) can count; taken as that, which no node holds");
          }
          try {
            builder.milli(name, milli);
          } catch (IllegalArgumentException e) {
            throw new SnapshotInputException(origin, field + "." + name, e.getMessage());
          }
        });
    return builder.build();
  }

  /** A Kubernetes label selector; {@code null} selects nothing, as in Kubernetes. */
  static LabelSelector labelSelector(io.fabric8.kubernetes.api.model.LabelSelector selector, String origin, String field) {
    if (selector == null) {
      return LabelSelector.NOTHING;
    }
    List<LabelSelector.Expression> expressions = new ArrayList<>();
    List<LabelSelectorRequirement> matchExpressions = nullToEmpty(selector.getMatchExpressions());
    for (int i = 0; i < matchExpressions.size(); i++) {
      LabelSelectorRequirement e = matchExpressions.get(i);
      String at = field + ".matchExpressions[" + i + "]";
      try {
        expressions.add(new LabelSelector.Expression(e.getKey(), operator(e.getOperator(), origin, at), e.getValues()));
      } catch (IllegalArgumentException | NullPointerException ex) {
        throw new SnapshotInputException(origin, at, ex.getMessage());
      }
    }
    return LabelSelector.of(selector.getMatchLabels(), expressions);
  }

  /**
   * The requirements of one node selector term (its matchExpressions, ANDed). {@code matchFields}
   * select node fields, not labels, and are not converted: {@link SnapshotBuilder} rejects pods that
   * use them, as upstream's provisioner does.
   */
  static Requirements nodeSelectorTerm(NodeSelectorTerm term, String origin, String field) {
    List<Requirement> requirements = new ArrayList<>();
    List<NodeSelectorRequirement> expressions = nullToEmpty(term.getMatchExpressions());
    for (int i = 0; i < expressions.size(); i++) {
      NodeSelectorRequirement e = expressions.get(i);
      requirements.add(requirement(e.getKey(), e.getOperator(), e.getValues(), null, origin, field + ".matchExpressions[" + i + "]"));
    }
    return Requirements.of(requirements);
  }

  /** One requirement ({@code key}, {@code operator}, {@code values}, optional {@code minValues}). */
  static Requirement requirement(String key, String operator, List<String> values, Integer minValues, String origin, String field) {
    if (key == null || key.isEmpty()) {
      throw new SnapshotInputException(origin, field + ".key", "required");
    }
    try {
      return Requirement.of(key, operator(operator, origin, field), nullToEmpty(values), minValues);
    } catch (IllegalArgumentException e) {
      throw new SnapshotInputException(origin, field, e.getMessage());
    }
  }

  /** Taints ({@code spec.taints} of a node, {@code taints}/{@code startupTaints} of a NodePool). */
  static List<Taint> taints(List<io.fabric8.kubernetes.api.model.Taint> taints, String origin, String field) {
    List<io.fabric8.kubernetes.api.model.Taint> list = nullToEmpty(taints);
    List<Taint> converted = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      io.fabric8.kubernetes.api.model.Taint t = list.get(i);
      String at = field + "[" + i + "]";
      if (t.getKey() == null || t.getKey().isEmpty()) {
        throw new SnapshotInputException(origin, at + ".key", "required");
      }
      converted.add(new Taint(t.getKey(), t.getValue(), parse(Taint.Effect::parse, t.getEffect(), origin, at + ".effect")));
    }
    return List.copyOf(converted);
  }

  /** A pod's tolerations. */
  static List<Toleration> tolerations(List<io.fabric8.kubernetes.api.model.Toleration> tolerations, String origin, String field) {
    List<io.fabric8.kubernetes.api.model.Toleration> list = nullToEmpty(tolerations);
    List<Toleration> converted = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      io.fabric8.kubernetes.api.model.Toleration t = list.get(i);
      String at = field + "[" + i + "]";
      Toleration.Operator operator = parse(Toleration.Operator::parse, t.getOperator(), origin, at + ".operator");
      Taint.Effect effect =
          t.getEffect() == null || t.getEffect().isEmpty() ? null : parse(Taint.Effect::parse, t.getEffect(), origin, at + ".effect");
      converted.add(new Toleration(t.getKey(), operator, t.getValue(), effect, t.getTolerationSeconds()));
    }
    return List.copyOf(converted);
  }

  private static <T> T parse(Function<String, T> parser, String text, String origin, String field) {
    try {
      return parser.apply(text);
    } catch (IllegalArgumentException e) {
      throw new SnapshotInputException(origin, field, e.getMessage());
    }
  }

  private static Operator operator(String text, String origin, String field) {
    return parse(Operator::parse, text, origin, field + ".operator");
  }

  static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  static Map<String, String> nullToEmpty(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }
}
