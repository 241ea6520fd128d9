package sh.karpenter.api.binding;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Random changes of a JSON tree, for the seeded sweeps of the direct readers' tests: a value replaced
 * (by one of another JSON type, null, or text the model parses), an unknown or known field added, a
 * field removed.
 */
public final class JsonChanges {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private JsonChanges() {}

  /** Changes one random place of {@code tree}; new values come from {@code values}. */
  public static void change(JsonNode tree, Random random, Function<Random, JsonNode> values) {
    List<Consumer<JsonNode>> setters = new ArrayList<>();
    List<ObjectNode> objects = new ArrayList<>();
    collect(tree, setters, objects);
    int what = random.nextInt(4);
    if (what == 0 && !objects.isEmpty()) {
      objects.get(random.nextInt(objects.size())).set(random.nextBoolean() ? "unknownField" : "name", values.apply(random));
    } else if (what == 1 && !objects.isEmpty()) {
      ObjectNode object = objects.get(random.nextInt(objects.size()));
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      if (!names.isEmpty()) {
        object.remove(names.get(random.nextInt(names.size())));
      }
    } else if (!setters.isEmpty()) {
      setters.get(random.nextInt(setters.size())).accept(values.apply(random));
    }
  }

  /** A value of some JSON type: null, numbers, a boolean, text, an array, objects. */
  public static JsonNode anyValue(Random random) {
    return switch (random.nextInt(9)) {
      case 0 -> NODES.nullNode();
      case 1 -> NODES.numberNode(random.nextInt(5));
      case 2 -> NODES.numberNode(1L << 40);
      case 3 -> NODES.numberNode(0.5);
      case 4 -> NODES.booleanNode(random.nextBoolean());
      case 5 -> NODES.textNode(random.nextBoolean() ? "3" : "x");
      case 6 -> NODES.arrayNode().add("a");
      case 7 -> NODES.objectNode().put("key", "a");
      default -> NODES.objectNode();
    };
  }

  /** Every place a value sits (as a setter of a new value) and every object, below {@code node}. */
  private static void collect(JsonNode node, List<Consumer<JsonNode>> setters, List<ObjectNode> objects) {
    if (node instanceof ObjectNode object) {
      objects.add(object);
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        setters.add(value -> object.set(name, value));
        collect(object.get(name), setters, objects);
      }
    } else if (node instanceof ArrayNode array) {
      IntStream.range(0, array.size()).forEach(i -> setters.add(value -> array.set(i, value)));
      for (JsonNode element : array) {
        collect(element, setters, objects);
      }
    }
  }
}
