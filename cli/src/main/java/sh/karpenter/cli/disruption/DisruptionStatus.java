package sh.karpenter.cli.disruption;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.wellknown.Labels;

/**
 * What {@code karpenter disruption status} prints (docs/behaviour/disruption.md#why-not): one row per
 * NodeClaim with its Node, NodePool, instance type, capacity type, hourly price when the catalogue
 * knows the offering, age, and why disruption leaves it alone, read from its {@code WhyNotDisrupted}
 * condition. A NodeClaim a command is disrupting shows {@code Disrupting} with its {@code
 * DisruptionReason}; one being deleted otherwise {@code Deleting}; one not initialized {@code
 * NotInitialized}; one the disruption loop has not judged yet (no controller, or not yet a pass)
 * {@code Unknown}.
 */
public final class DisruptionStatus {
  /** Shown for a NodeClaim a disruption command holds. */
  public static final String DISRUPTING = "Disrupting";
  /** Shown for a NodeClaim being deleted without a disruption command (expiration, a user, garbage collection). */
  public static final String DELETING = "Deleting";
  /** Shown for a NodeClaim that is not initialized (the loop does not write this reason: the Initialized condition says it). */
  public static final String NOT_INITIALIZED = "NotInitialized";
  /** Shown for a NodeClaim without a recorded reason. */
  public static final String UNKNOWN = "Unknown";

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private DisruptionStatus() {}

  /**
   * One NodeClaim.
   *
   * @param node the Node's name, or null before it registers
   * @param price hourly, or null when the catalogue has no offering for its type, zone and capacity type
   * @param age since the NodeClaim's creation, or null without a creation time
   */
  public record Row(
      String node, String nodeClaim, String nodePool, String instanceType, String capacityType, String zone, Double price,
      Duration age, String reason, String message) {}

  /**
   * The rows, sorted by NodePool then node (NodeClaim before registration).
   *
   * @param catalogue instance types to price offerings from, by name
   */
  public static List<Row> rows(List<NodeClaim> nodeClaims, List<Node> nodes, Map<String, InstanceType> catalogue, Instant now) {
    Map<String, Node> byName = new HashMap<>();
    nodes.forEach(n -> byName.put(n.getMetadata().getName(), n));
    List<Row> rows = new ArrayList<>();
    for (NodeClaim claim : nodeClaims) {
      String nodeName = claim.getStatus() == null ? null : claim.getStatus().getNodeName();
      Node node = nodeName == null ? null : byName.get(nodeName);
      Map<String, String> labels = new HashMap<>();
      if (claim.getMetadata().getLabels() != null) {
        labels.putAll(claim.getMetadata().getLabels());
      }
      if (node != null && node.getMetadata().getLabels() != null) {
        labels.putAll(node.getMetadata().getLabels());
      }
      InstanceType type = catalogue.get(labels.get(Labels.INSTANCE_TYPE));
      Offering offering = type == null || labels.get(Labels.ZONE) == null ? null : type.nodeOffering(labels);
      String created = claim.getMetadata().getCreationTimestamp();
      Duration age = created == null ? null : Duration.between(Instant.parse(created), now);
      String[] why = why(claim);
      rows.add(new Row(nodeName, claim.getMetadata().getName(), labels.get(Labels.NODE_POOL), labels.get(Labels.INSTANCE_TYPE),
          labels.get(Labels.CAPACITY_TYPE), labels.get(Labels.ZONE), offering == null ? null : offering.price(), age, why[0], why[1]));
    }
    rows.sort(Comparator.comparing((Row r) -> r.nodePool() == null ? "" : r.nodePool())
        .thenComparing(r -> r.node() == null ? "~" + r.nodeClaim() : r.node()));
    return rows;
  }

  /** The reason and message to show for a NodeClaim. */
  private static String[] why(NodeClaim claim) {
    List<Condition> conditions = claim.getStatus() == null ? null : claim.getStatus().getConditions();
    Optional<Condition> disrupting = Conditions.get(conditions, ConditionTypes.DISRUPTION_REASON);
    if (disrupting.isPresent()) {
      return new String[] {DISRUPTING, "being disrupted: " + disrupting.get().getReason()};
    }
    Optional<Condition> whyNot = Conditions.get(conditions, ConditionTypes.WHY_NOT_DISRUPTED);
    if (whyNot.isPresent()) {
      return new String[] {whyNot.get().getReason(), whyNot.get().getMessage() == null ? "" : whyNot.get().getMessage()};
    }
    if (claim.getMetadata().getDeletionTimestamp() != null) {
      return new String[] {DELETING, "nodeclaim is being deleted"};
    }
    if (!Conditions.isTrue(conditions, ConditionTypes.INITIALIZED)) {
      return new String[] {NOT_INITIALIZED, "nodeclaim is not initialized"};
    }
    return new String[] {UNKNOWN, "no disruption decision recorded yet (is the controller running?)"};
  }

  /** A table, one row per NodeClaim, {@code -} for what is unknown. */
  public static String text(List<Row> rows) {
    List<String[]> cells = new ArrayList<>();
    cells.add(new String[] {"NODE", "NODEPOOL", "INSTANCE-TYPE", "CAPACITY", "PRICE/H", "AGE", "REASON", "MESSAGE"});
    for (Row r : rows) {
      cells.add(new String[] {
        r.node() == null ? "(" + r.nodeClaim() + ")" : r.node(), dash(r.nodePool()), dash(r.instanceType()), dash(r.capacityType()),
        r.price() == null ? "-" : String.format(Locale.ROOT, "%.4f", r.price()), r.age() == null ? "-" : age(r.age()), r.reason(), r.message()});
    }
    int[] widths = new int[cells.getFirst().length];
    for (String[] row : cells) {
      for (int i = 0; i < row.length - 1; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : cells) {
      for (int i = 0; i < row.length; i++) {
        out.append(i == row.length - 1 ? row[i] : String.format(Locale.ROOT, "%-" + widths[i] + "s   ", row[i]));
      }
      out.append('\n');
    }
    return out.toString();
  }

  /** {@code {"nodes": [...]}}, every field present (null when unknown), age in seconds. */
  public static String json(List<Row> rows) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode nodes = root.putArray("nodes");
    for (Row r : rows) {
      ObjectNode node = nodes.addObject();
      node.put("node", r.node());
      node.put("nodeClaim", r.nodeClaim());
      node.put("nodePool", r.nodePool());
      node.put("instanceType", r.instanceType());
      node.put("capacityType", r.capacityType());
      node.put("zone", r.zone());
      if (r.price() == null) {
        node.putNull("price");
      } else {
        node.put("price", r.price());
      }
      if (r.age() == null) {
        node.putNull("ageSeconds");
      } else {
        node.put("ageSeconds", r.age().toSeconds());
      }
      node.put("reason", r.reason());
      node.put("message", r.message());
    }
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** As kubectl: {@code 45s}, {@code 12m}, {@code 3h}, {@code 5d}. */
  static String age(Duration age) {
    long s = Math.max(0, age.toSeconds());
    if (s < 120) {
      return s + "s";
    }
    if (s < 7200) {
      return s / 60 + "m";
    }
    if (s < 2 * 86400) {
      return s / 3600 + "h";
    }
    return s / 86400 + "d";
  }

  private static String dash(String value) {
    return value == null || value.isEmpty() ? "-" : value;
  }
}
