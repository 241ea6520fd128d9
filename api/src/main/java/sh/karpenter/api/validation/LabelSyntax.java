package sh.karpenter.api.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Kubernetes' syntax rules for label keys (qualified names) and label values, as apimachinery's
 * {@code IsQualifiedName} and {@code IsValidLabelValue} apply them. Each method returns the reasons a
 * text is invalid, empty when it is valid.
 */
public final class LabelSyntax {
  private static final int NAME_MAX_LENGTH = 63;
  private static final int PREFIX_MAX_LENGTH = 253;
  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  private LabelSyntax() {}

  /** Reasons {@code key} is not a qualified name: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
  public static List<String> qualifiedNameErrors(String key) {
    List<String> errors = new ArrayList<>();
    String[] parts = key.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      name = parts[1];
      if (prefix.isEmpty()) {
        errors.add("prefix part must be non-empty");
      } else if (prefix.length() > PREFIX_MAX_LENGTH) {
        errors.add("prefix part must be no more than " + PREFIX_MAX_LENGTH + " characters");
      } else if (!DNS_SUBDOMAIN.matcher(prefix).matches()) {
        errors.add(
            "prefix part must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, '-' or '.',"
                + " starting and ending with an alphanumeric character");
      }
    } else {
      return List.of(
          "a qualified name is a name of alphanumeric characters, '-', '_' or '.' with an optional DNS subdomain"
              + " prefix and '/' (e.g. 'example.com/MyName')");
    }
    if (name.isEmpty()) {
      errors.add("name part must be non-empty");
    } else if (name.length() > NAME_MAX_LENGTH) {
      errors.add("name part must be no more than " + NAME_MAX_LENGTH + " characters");
    } else if (!NAME.matcher(name).matches()) {
      errors.add(
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
              + " alphanumeric character");
    }
    return errors;
  }

  /** Reasons {@code value} is not a label value: at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends, or empty. */
  public static List<String> labelValueErrors(String value) {
    List<String> errors = new ArrayList<>();
    if (value.length() > NAME_MAX_LENGTH) {
      errors.add("must be no more than " + NAME_MAX_LENGTH + " characters");
    }
    if (!LABEL_VALUE.matcher(value).matches()) {
      errors.add(
          "a valid label value must be an empty string or consist of alphanumeric characters, '-', '_' or '.',"
              + " and must start and end with an alphanumeric character");
    }
    return errors;
  }
}
