package sh.karpenter.api.validation;

import java.util.Objects;

/**
 * One rule a manifest breaks, in the API server's terms.
 *
 * @param document which manifest: the caller's name for it, e.g. {@code examples/pools.yaml, document 3}
 * @param fieldPath where, e.g. {@code spec.template.spec.requirements[0].operator}; empty for the document itself
 * @param message the rule broken, e.g. {@code Unsupported value: "Foo": supported values: "In", ...}
 */
public record ValidationError(String document, String fieldPath, String message) {

  public ValidationError {
    Objects.requireNonNull(document, "document");
    Objects.requireNonNull(fieldPath, "fieldPath");
    Objects.requireNonNull(message, "message");
  }

  /** {@code document: fieldPath: message} ({@code document: message} for the whole document), the form the CLI prints. */
  @Override
  public String toString() {
    return fieldPath.isEmpty() ? document + ": " + message : document + ": " + fieldPath + ": " + message;
  }
}
