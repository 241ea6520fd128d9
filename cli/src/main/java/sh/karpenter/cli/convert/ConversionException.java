package sh.karpenter.cli.convert;

/**
 * A manifest {@code karpenter convert} cannot turn into {@code karpenter.sh/v1}: the message names the
 * document, the object ({@code Provisioner default}) and the field ({@code spec.ttlSecondsAfterEmpty}).
 */
public final class ConversionException extends RuntimeException {
  public ConversionException(String document, String object, String field, String problem) {
    super(document + ": " + object + (field == null || field.isEmpty() ? "" : ": " + field) + ": " + problem);
  }
}
