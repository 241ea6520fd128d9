package sh.karpenter.api.validation;

import java.util.ArrayList;
import java.util.List;

/** Collects the errors of one document, in the order they are found. */
final class ErrorCollector {
  private final String document;
  private final List<ValidationError> errors = new ArrayList<>();

  ErrorCollector(String document) {
    this.document = document;
  }

  void add(String fieldPath, String message) {
    errors.add(new ValidationError(document, fieldPath, message));
  }

  /**
   * Adds an error unless one is already reported at the same path, so a runtime check that repeats a
   * schema or CEL rule does not report the same mistake twice.
   */
  void addUnlessReported(String fieldPath, String message) {
    if (errors.stream().noneMatch(e -> e.fieldPath().equals(fieldPath))) {
      add(fieldPath, message);
    }
  }

  List<ValidationError> errors() {
    return List.copyOf(errors);
  }

  /** The path of a field or map entry, joined with a dot as the API server writes it ({@code spec.limits.cpu}). */
  static String field(String parent, String name) {
    return parent.isEmpty() ? name : parent + "." + name;
  }

  static String index(String parent, int index) {
    return parent + "[" + index + "]";
  }
}
