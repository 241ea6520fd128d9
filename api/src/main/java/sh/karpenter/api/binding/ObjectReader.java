package sh.karpenter.api.binding;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Reads a JSON object into a new {@code T} through the setters of the fields it names, without
 * Jackson's data binding: what a table of fields (name, how the value is read, setter) says, and
 * nothing else.
 *
 * <p>Jackson's binding of a class starts with introspecting it (properties, creators, annotations,
 * the binders of its property types) and calls setters reflectively; on a fresh JVM that is most of
 * what binding a few documents costs. A reader gives the object Jackson gives for the documents it
 * reads (its users' tests compare the two): each value is set with the setter Jackson calls, from the
 * one JSON type read here, into the same collection types ({@link ArrayList}, {@link LinkedHashMap}).
 * A field the table does not name, or a value of another JSON type (null, a number where a string
 * goes, ...), makes {@link #read} give the document up and return null; the caller then binds it with
 * Jackson, which accepts it (coercing, say, a number to a string) or rejects it and names the field.
 */
public final class ObjectReader<T> implements Function<JsonNode, T> {
  /** A document holds something a reader does not read; thrown without a stack trace. */
  private static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final Unsupported INSTANCE = new Unsupported();

    private Unsupported() {
      super(null, null, false, false);
    }
  }

  private final Supplier<T> factory;
  private final Map<String, BiConsumer<T, JsonNode>> fields = new HashMap<>();

  /**
   * A reader without fields yet; {@link #field} adds them. Readers are built once, in static
   * initialisers, and only read afterwards.
   *
   * @param factory makes the object, as the constructor Jackson calls does
   */
  public ObjectReader(Supplier<T> factory) {
    this.factory = factory;
  }

  /** Reads field {@code name} with {@code value} and sets it with {@code setter}. */
  public <V> ObjectReader<T> field(String name, Function<JsonNode, V> value, BiConsumer<T, V> setter) {
    fields.put(name, (target, node) -> setter.accept(target, value.apply(node)));
    return this;
  }

  /** The object of {@code node}; throws an internal exception that {@link #read} turns into null. */
  @Override
  public T apply(JsonNode node) {
    if (!node.isObject()) {
      throw Unsupported.INSTANCE;
    }
    T target = factory.get();
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      BiConsumer<T, JsonNode> reader = fields.get(field.getKey());
      if (reader == null) {
        throw Unsupported.INSTANCE;
      }
      reader.accept(target, field.getValue());
    }
    return target;
  }

  /** What {@code reader} makes of {@code tree}, or null when the tree holds something it does not read. */
  public static <T> T read(Function<JsonNode, ? extends T> reader, JsonNode tree) {
    try {
      return reader.apply(tree);
    } catch (Unsupported e) {
      return null;
    }
  }

  // Values, each from the one JSON type read here.

  /** {@code value} of a node {@code accepts} takes; any other node gives the document up. */
  private static <V> Function<JsonNode, V> scalar(Predicate<JsonNode> accepts, Function<JsonNode, V> value) {
    return node -> {
      if (!accepts.test(node)) {
        throw Unsupported.INSTANCE;
      }
      return value.apply(node);
    };
  }

  public static final Function<JsonNode, String> TEXT = scalar(JsonNode::isTextual, JsonNode::textValue);
  public static final Function<JsonNode, Integer> INTEGER = scalar(JsonNode::isInt, JsonNode::intValue);
  public static final Function<JsonNode, Long> LONG = scalar(node -> node.isInt() || node.isLong(), JsonNode::longValue);
  public static final Function<JsonNode, Boolean> BOOL = scalar(JsonNode::isBoolean, JsonNode::booleanValue);

  /** An int-or-string from an int or a string, as its Jackson creator takes either. */
  public static final Function<JsonNode, IntOrString> INT_OR_STRING =
      scalar(node -> node.isInt() || node.isTextual(), node -> node.isInt() ? new IntOrString(node.intValue()) : new IntOrString(node.textValue()));

  /** A quantity from a string or an integer, made from the value's text as Quantity's Jackson binder makes it. */
  public static final Function<JsonNode, Quantity> QUANTITY =
      scalar(node -> node.isTextual() || node.isInt() || node.isLong(), node -> new Quantity(node.asText()));

  /** A value Jackson makes with a creator from a string ({@code parse}); one the creator rejects is given up. */
  public static <V> Function<JsonNode, V> fromText(Function<String, V> parse) {
    return node -> {
      try {
        return parse.apply(TEXT.apply(node));
      } catch (IllegalArgumentException e) {
        throw Unsupported.INSTANCE;
      }
    };
  }

  public static <V> Function<JsonNode, Map<String, V>> mapOf(Function<JsonNode, V> value) {
    return node -> {
      if (!node.isObject()) {
        throw Unsupported.INSTANCE;
      }
      Map<String, V> map = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        map.put(entry.getKey(), value.apply(entry.getValue()));
      }
      return map;
    };
  }

  public static <V> Function<JsonNode, List<V>> listOf(Function<JsonNode, V> item) {
    return node -> {
      if (!node.isArray()) {
        throw Unsupported.INSTANCE;
      }
      List<V> list = new ArrayList<>(node.size());
      for (JsonNode element : node) {
        list.add(item.apply(element));
      }
      return list;
    };
  }

  public static final Function<JsonNode, Map<String, String>> STRINGS = mapOf(TEXT);
  public static final Function<JsonNode, List<String>> STRING_LIST = listOf(TEXT);
  public static final Function<JsonNode, Map<String, Quantity>> QUANTITIES = mapOf(QUANTITY);
}
