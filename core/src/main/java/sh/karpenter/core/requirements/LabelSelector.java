package sh.karpenter.core.requirements;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A Kubernetes label selector: matchLabels plus matchExpressions (In, NotIn, Exists, DoesNotExist),
 * all of which must match. The empty selector matches everything; an absent selector, which
 * Kubernetes reads as matching nothing, is {@link #NOTHING}. Immutable; equal selectors are equal
 * objects, so they can key topology groups.
 */
public final class LabelSelector {
  /** The empty selector: matches every label set. */
  public static final LabelSelector EVERYTHING = new LabelSelector(Map.of(), List.of(), false);

  /** Matches no label set (a null selector in Kubernetes). */
  public static final LabelSelector NOTHING = new LabelSelector(Map.of(), List.of(), true);

  private final Map<String, String> matchLabels;
  private final List<Expression> expressions;
  private final boolean nothing;
  /** matchLabels as parallel arrays and expressions as an array, so matching does not allocate. */
  private final String[] labelKeys;
  private final String[] labelValues;
  private final Expression[] expressionArray;

  private LabelSelector(Map<String, String> matchLabels, List<Expression> expressions, boolean nothing) {
    this.matchLabels = matchLabels;
    this.expressions = expressions;
    this.nothing = nothing;
    this.labelKeys = matchLabels.keySet().toArray(String[]::new);
    this.labelValues = new String[labelKeys.length];
    for (int i = 0; i < labelKeys.length; i++) {
      labelValues[i] = matchLabels.get(labelKeys[i]);
    }
    this.expressionArray = expressions.toArray(Expression[]::new);
  }

  /**
   * A selector from matchLabels and matchExpressions (either may be null for none).
   *
   * @throws IllegalArgumentException when an expression is invalid (see {@link Expression})
   */
  public static LabelSelector of(Map<String, String> matchLabels, List<Expression> expressions) {
    Map<String, String> labels = matchLabels == null ? Map.of() : Map.copyOf(matchLabels);
    List<Expression> exprs = expressions == null ? List.of() : List.copyOf(expressions);
    if (labels.isEmpty() && exprs.isEmpty()) {
      return EVERYTHING;
    }
    return new LabelSelector(labels, exprs, false);
  }

  /** A selector from matchLabels only. */
  public static LabelSelector of(Map<String, String> matchLabels) {
    return of(matchLabels, null);
  }

  public Map<String, String> matchLabels() {
    return matchLabels;
  }

  public List<Expression> expressions() {
    return expressions;
  }

  /** True for the empty selector (matches everything). */
  public boolean isEmpty() {
    return !nothing && matchLabels.isEmpty() && expressions.isEmpty();
  }

  /** True when the labels satisfy every matchLabel and every expression. */
  public boolean matches(Map<String, String> labels) {
    if (nothing) {
      return false;
    }
    for (int i = 0; i < labelKeys.length; i++) {
      if (!labelValues[i].equals(labels.get(labelKeys[i]))) {
        return false;
      }
    }
    for (Expression expression : expressionArray) {
      if (!expression.matches(labels)) {
        return false;
      }
    }
    return true;
  }

  /** The same selector with {@code key In [value]} added (used for matchLabelKeys). */
  public LabelSelector withLabel(String key, String value) {
    if (nothing) {
      return this;
    }
    List<Expression> exprs = new ArrayList<>(expressions);
    exprs.add(new Expression(key, Operator.In, List.of(value)));
    return of(matchLabels, exprs);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LabelSelector s
        && nothing == s.nothing
        && matchLabels.equals(s.matchLabels)
        && expressions.equals(s.expressions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(matchLabels, expressions, nothing);
  }

  @Override
  public String toString() {
    if (nothing) {
      return "<nothing>";
    }
    if (isEmpty()) {
      return "<everything>";
    }
    List<String> parts = new ArrayList<>();
    matchLabels.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> parts.add(e.getKey() + "=" + e.getValue()));
    expressions.forEach(e -> parts.add(e.toString()));
    return String.join(",", parts);
  }

  /**
   * One matchExpression. In and NotIn need values; Exists and DoesNotExist take none.
   *
   * @param values kept as a set for matching; order is irrelevant
   */
  public record Expression(String key, Operator operator, Set<String> values) {
    public Expression {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(operator, "operator");
      if (!operator.isSetOperator()) {
        throw new IllegalArgumentException("label selector operator " + operator + " is not one of In, NotIn, Exists, DoesNotExist");
      }
      values = values == null ? Set.of() : Set.copyOf(values);
      if ((operator == Operator.In || operator == Operator.NotIn) && values.isEmpty()) {
        throw new IllegalArgumentException("label selector " + key + " " + operator + " needs values");
      }
      if ((operator == Operator.Exists || operator == Operator.DoesNotExist) && !values.isEmpty()) {
        throw new IllegalArgumentException("label selector " + key + " " + operator + " takes no values");
      }
    }

    public Expression(String key, Operator operator, List<String> values) {
      this(key, operator, values == null ? Set.<String>of() : Set.copyOf(values));
    }

    public boolean matches(Map<String, String> labels) {
      String value = labels.get(key);
      return switch (operator) {
        case In -> value != null && values.contains(value);
        case NotIn -> value == null || !values.contains(value);
        case Exists -> value != null;
        case DoesNotExist -> value == null;
        default -> throw new IllegalStateException(operator.toString());
      };
    }

    @Override
    public String toString() {
      return switch (operator) {
        case Exists -> key;
        case DoesNotExist -> "!" + key;
        default -> key + (operator == Operator.In ? " in " : " notin ") + new java.util.TreeSet<>(values);
      };
    }
  }
}
