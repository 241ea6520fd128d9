package sh.karpenter.api.validation;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of validating one manifest: the object with CRD defaults applied when it is valid, or the
 * errors that make it invalid (then {@code object} is null).
 *
 * @param document the caller's name for the manifest
 * @param object the defaulted object, or null when there are errors
 * @param errors every rule broken, in document order; empty when valid
 */
public record Validated<T>(String document, T object, List<ValidationError> errors) {

  public Validated {
    Objects.requireNonNull(document, "document");
    errors = List.copyOf(errors);
    if ((object == null) == errors.isEmpty()) {
      throw new IllegalArgumentException("exactly one of object and errors must be present");
    }
  }

  public boolean isValid() {
    return errors.isEmpty();
  }

  /** The object; throws {@link InvalidManifestException} listing the errors when invalid. */
  public T orElseThrow() {
    if (!isValid()) {
      throw new InvalidManifestException(errors);
    }
    return object;
  }
}
