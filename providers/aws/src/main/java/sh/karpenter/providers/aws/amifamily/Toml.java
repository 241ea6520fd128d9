package sh.karpenter.providers.aws.amifamily;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * TOML for Bottlerocket user data: read with Jackson's TOML parser into plain maps (tables keep
 * their order), written as upstream's go-toml v2 writes it: a table's key/values before its
 * sub-tables, each sub-table under a {@code [dotted.header]}, arrays of tables as {@code [[...]]},
 * bare keys where TOML allows them and single-quoted (literal) strings and keys otherwise. Map
 * order is kept, so callers sort what Go would sort (map keys) and leave struct order alone.
 */
final class Toml {
  private Toml() {}

  private static final TomlMapper MAPPER = new TomlMapper();
  private static final Pattern BARE_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  /**
   * The document as nested {@code LinkedHashMap}s, lists, strings, longs, doubles and booleans.
   *
   * @throws IllegalArgumentException with the parser's message when the text is not TOML
   */
  static Map<String, Object> read(String text) {
    try {
      JsonNode root = MAPPER.readTree(text);
      if (root == null || root.isMissingNode()) {
        return new LinkedHashMap<>();
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) plain(root);
      return map;
    } catch (JacksonException e) {
      throw new IllegalArgumentException(e.getOriginalMessage(), e);
    }
  }

  private static Object plain(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        map.put(e.getKey(), plain(e.getValue()));
      }
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(item -> list.add(plain(item)));
      return list;
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToLong() ? node.longValue() : node.bigIntegerValue();
    }
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isNull()) {
      return null;
    }
    return node.asText();
  }

  /** The document in go-toml v2's layout. Null values are left out. */
  static String write(Map<String, ?> document) {
    StringBuilder out = new StringBuilder();
    writeTable(out, "", document);
    return out.toString();
  }

  private static void writeTable(StringBuilder out, String path, Map<String, ?> table) {
    if (!path.isEmpty()) {
      if (out.length() > 0 && !endsWithHeader(out)) {
        out.append('\n');
      }
      out.append('[').append(path).append("]\n");
    }
    for (Map.Entry<String, ?> e : table.entrySet()) {
      Object value = e.getValue();
      if (value != null && !isTable(value) && !isArrayOfTables(value)) {
        out.append(key(e.getKey())).append(" = ");
        writeValue(out, value);
        out.append('\n');
      }
    }
    for (Map.Entry<String, ?> e : table.entrySet()) {
      Object value = e.getValue();
      String child = path.isEmpty() ? key(e.getKey()) : path + "." + key(e.getKey());
      if (isTable(value)) {
        @SuppressWarnings("unchecked")
        Map<String, ?> sub = (Map<String, ?>) value;
        writeTable(out, child, sub);
      } else if (isArrayOfTables(value)) {
        for (Object item : (List<?>) value) {
          if (out.length() > 0) {
            out.append('\n');
          }
          out.append("[[").append(child).append("]]\n");
          @SuppressWarnings("unchecked")
          Map<String, ?> sub = (Map<String, ?>) item;
          for (Map.Entry<String, ?> kv : sub.entrySet()) {
            if (kv.getValue() != null) {
              out.append(key(kv.getKey())).append(" = ");
              writeValue(out, kv.getValue());
              out.append('\n');
            }
          }
        }
      }
    }
  }

  private static boolean endsWithHeader(StringBuilder out) {
    int end = out.length() - 1;
    int start = out.lastIndexOf("\n", end - 1) + 1;
    return out.charAt(start) == '[' && out.charAt(end - 1) == ']';
  }

  private static boolean isTable(Object value) {
    return value instanceof Map<?, ?>;
  }

  private static boolean isArrayOfTables(Object value) {
    return value instanceof List<?> list && !list.isEmpty() && list.stream().allMatch(item -> item instanceof Map<?, ?>);
  }

  private static void writeValue(StringBuilder out, Object value) {
    if (value instanceof String s) {
      out.append(string(s));
    } else if (value instanceof Double d) {
      out.append(d.isNaN() ? "nan" : d.isInfinite() ? (d > 0 ? "inf" : "-inf") : floatText(d));
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else if (value instanceof List<?> list) {
      out.append('[');
      boolean first = true;
      for (Object item : list) {
        out.append(first ? "" : ", ");
        writeValue(out, item);
        first = false;
      }
      out.append(']');
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (e.getValue() == null) {
          continue;
        }
        out.append(first ? "" : ", ").append(key(e.getKey().toString())).append(" = ");
        writeValue(out, e.getValue());
        first = false;
      }
      out.append('}');
    } else {
      out.append(string(String.valueOf(value)));
    }
  }

  private static String floatText(double d) {
    String text = new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
    return text.contains(".") ? text : text + ".0";
  }

  static String key(String key) {
    return BARE_KEY.matcher(key).matches() ? key : string(key);
  }

  static String string(String s) {
    boolean literal = s.indexOf('\'') < 0 && s.chars().noneMatch(c -> (c < 0x20 && c != '\t') || c == 0x7f);
    if (literal) {
      return "'" + s + "'";
    }
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\u%04X", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** A copy of {@code map} with its keys sorted, as Go writes a map. */
  static <V> Map<String, V> sorted(Map<String, V> map) {
    return new LinkedHashMap<>(new TreeMap<>(map));
  }
}
