package sh.karpenter.core.requirements;

/**
 * Node selector operators: the four Kubernetes set operators, the integer comparisons {@code Gt} and
 * {@code Lt}, and Karpenter's inclusive bounds {@code Gte} and {@code Lte}.
 */
public enum Operator {
  In,
  NotIn,
  Exists,
  DoesNotExist,
  Gt,
  Lt,
  Gte,
  Lte;

  /**
   * The operator spelled exactly as in a Kubernetes manifest ("In", "NotIn", ...).
   *
   * @throws IllegalArgumentException naming the text when it is not an operator
   */
  public static Operator parse(String text) {
    if (text != null) {
      for (Operator operator : values()) {
        if (operator.name().equals(text)) {
          return operator;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown operator \"" + text + "\", expected one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte");
  }

  /** True for the operators a label selector accepts (In, NotIn, Exists, DoesNotExist). */
  public boolean isSetOperator() {
    return this == In || this == NotIn || this == Exists || this == DoesNotExist;
  }
}
