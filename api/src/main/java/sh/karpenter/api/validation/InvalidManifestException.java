package sh.karpenter.api.validation;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when a manifest cannot be used: unreadable YAML, or a Karpenter object that breaks its CRD's rules. */
public final class InvalidManifestException extends RuntimeException {
  private final List<ValidationError> errors;

  public InvalidManifestException(List<ValidationError> errors) {
    super(errors.stream().map(ValidationError::toString).collect(Collectors.joining("\n")));
    this.errors = List.copyOf(errors);
  }

  public List<ValidationError> errors() {
    return errors;
  }
}
