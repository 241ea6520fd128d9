package sh.karpenter.providers.aws.amifamily;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Block-style YAML as upstream writes nodeadm's NodeConfig ({@code sigs.k8s.io/yaml}: JSON, then
 * go-yaml v2): map keys sorted at every level, sequences not indented under their key, empty maps
 * {@code {}}, strings plain unless they would read back as another type (then double-quoted) or
 * cannot be plain (then single-quoted). Values are maps, lists, strings, numbers, booleans and null.
 */
final class Yaml {
  private Yaml() {}

  private static final Pattern NUMBER =
      Pattern.compile("[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|0o?[0-7_]+|0b[01_]+|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?");
  private static final java.util.Set<String> RESERVED = java.util.Set.of(
      "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
      "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", "");

  static String write(Map<String, ?> document) {
    StringBuilder out = new StringBuilder();
    writeMap(out, document, 0);
    return out.toString();
  }

  private static void writeMap(StringBuilder out, Map<String, ?> map, int indent) {
    for (Map.Entry<String, ?> e : new TreeMap<>(map).entrySet()) {
      out.append(" ".repeat(indent)).append(scalar(e.getKey())).append(':');
      writeValue(out, e.getValue(), indent);
    }
  }

  /** Writes what follows {@code key:} (or {@code -}) at {@code indent}. */
  @SuppressWarnings("unchecked")
  private static void writeValue(StringBuilder out, Object value, int indent) {
    if (value instanceof Map<?, ?> map) {
      if (map.isEmpty()) {
        out.append(" {}\n");
      } else {
        out.append('\n');
        writeMap(out, (Map<String, ?>) map, indent + 2);
      }
    } else if (value instanceof List<?> list) {
      if (list.isEmpty()) {
        out.append(" []\n");
      } else {
        out.append('\n');
        writeList(out, list, indent);
      }
    } else {
      out.append(' ').append(scalar(value)).append('\n');
    }
  }

  @SuppressWarnings("unchecked")
  private static void writeList(StringBuilder out, List<?> list, int indent) {
    for (Object item : list) {
      out.append(" ".repeat(indent)).append('-');
      if (item instanceof Map<?, ?> map && !map.isEmpty()) {
        boolean first = true;
        for (Map.Entry<String, ?> e : new TreeMap<>((Map<String, ?>) map).entrySet()) {
          out.append(first ? " " : " ".repeat(indent + 2)).append(scalar(e.getKey())).append(':');
          writeValue(out, e.getValue(), indent + 2);
          first = false;
        }
      } else if (item instanceof List<?> inner && !inner.isEmpty()) {
        out.append('\n');
        writeList(out, inner, indent + 2);
      } else {
        writeValue(out, item, indent);
      }
    }
  }

  static String scalar(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    String s = value.toString();
    if (RESERVED.contains(s) || NUMBER.matcher(s).matches()) {
      return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
    if (s.contains("\n")) {
      return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }
    if (!plainAllowed(s)) {
      return "'" + s.replace("'", "''") + "'";
    }
    return s;
  }

  private static boolean plainAllowed(String s) {
    char first = s.charAt(0);
    if ("?:,[]{}#&*!|>'\"%@`".indexOf(first) >= 0) {
      return !(first == '?' || first == ':') ? false : s.length() > 1 && s.charAt(1) != ' ';
    }
    if (first == '-' && (s.length() == 1 || s.charAt(1) == ' ')) {
      return false;
    }
    if (Character.isWhitespace(first) || Character.isWhitespace(s.charAt(s.length() - 1))) {
      return false;
    }
    return !(s.contains(": ") || s.contains(" #") || s.endsWith(":") || s.chars().anyMatch(c -> c < 0x20 || c == 0x7f));
  }
}
