package sh.karpenter.controller.snapshot;

/**
 * A Kubernetes object that cannot be turned into scheduling input: a malformed document, an unknown
 * or mistyped field, an unparsable quantity, an invalid NodePool. The message is {@code <origin>:
 * <field>: <problem>}, in the form of the API validation errors: where the object came from ({@link
 * #origin()}, e.g. {@code "web.yaml, document 2"}), the field path at fault ({@link #field()}, e.g.
 * {@code spec.template.spec.containers[0].resources.requests.cpu}) and what is wrong with it, so that
 * a person can fix the input without a stack trace.
 */
public final class SnapshotInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String origin;
  private final String field;
  private final String problem;

  /**
   * @param origin where the object came from (file and document, or kind and name)
   * @param field dotted field path inside the object, or {@code null} when the whole object is at fault
   * @param problem what is wrong, in a sentence fragment
   */
  public SnapshotInputException(String origin, String field, String problem) {
    super(origin + (field == null || field.isEmpty() ? "" : ": " + field) + ": " + problem);
    this.origin = origin;
    this.field = field;
    this.problem = problem;
  }

  public String origin() {
    return origin;
  }

  public String field() {
    return field;
  }

  public String problem() {
    return problem;
  }
}
