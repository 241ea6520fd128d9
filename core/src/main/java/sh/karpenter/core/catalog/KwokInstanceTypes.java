package sh.karpenter.core.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * The KWOK provider's catalogue (docs/behaviour/cloudprovider.md#kwok-provider): the 144 generated
 * types of upstream's {@code kwok/tools/gen_instance_types.go}, and loading a catalogue in the KWOK
 * JSON format (the file {@code INSTANCE_TYPES_FILE_PATH} points at upstream).
 *
 * <p>Every type gets kube-reserved 100m CPU / 10Mi memory, 110 pods unless it says otherwise, and the
 * labels {@code karpenter.kwok.sh/instance-size} (the part after {@code .} of an AWS-style name, else
 * the CPU quantity), {@code instance-family} (the name up to the first {@code .} or {@code -}),
 * {@code instance-cpu} and {@code instance-memory} (the quantities as written).
 */
public final class KwokInstanceTypes {
  private KwokInstanceTypes() {}

  public static final List<String> ZONES = List.of("test-zone-a", "test-zone-b", "test-zone-c", "test-zone-d");

  /** Labels the KWOK provider adds to the well-known set. */
  public static final Set<String> WELL_KNOWN_LABELS =
      Set.of(
          Labels.KWOK_INSTANCE_SIZE,
          Labels.KWOK_INSTANCE_FAMILY,
          Labels.KWOK_INSTANCE_CPU,
          Labels.KWOK_INSTANCE_MEMORY);

  private static final long DEFAULT_PODS = 110;
  private static final double SPOT_FACTOR = 0.7;
  private static final Pattern AWS_STYLE_NAME = Pattern.compile("^[a-z]+[0-9]+[a-z]*\\.([a-z0-9]+)$");

  private static final Overhead OVERHEAD =
      new Overhead(
          Resources.builder().cpu("100m").memory("10Mi").build(), Resources.EMPTY, Resources.EMPTY);

  /** The raw description of one KWOK type, before defaults and labels. */
  private record Options(
      String name, String arch, List<String> operatingSystems, Map<String, String> resources, List<Offering> offerings) {}

  /**
   * The 144 generated types: cpu {1 .. 256} x memory factor {2 (family c), 4 (s), 8 (m)} GiB per CPU
   * x {linux, windows} x {amd64, arm64}, named {@code {family}-{cpu}x-{arch}-{os}}, with pods =
   * min(16 cpu, 1024), 20Gi ephemeral storage, on-demand price 0.025 per CPU + 0.001 per 10^9 memory
   * bytes, spot at 70% of it, in zones test-zone-a..d.
   */
  public static List<InstanceType> generated() {
    List<InstanceType> types = new ArrayList<>(144);
    for (int cpu : new int[] {1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256}) {
      for (int memoryFactor : new int[] {2, 4, 8}) {
        String family = memoryFactor == 2 ? "c" : memoryFactor == 4 ? "s" : "m";
        for (String os : List.of("linux", "windows")) {
          for (String arch : List.of("amd64", "arm64")) {
            long memoryGi = (long) cpu * memoryFactor;
            double price = 0.025 * cpu + 0.001 * (memoryGi * (1L << 30)) / 1e9;
            List<Offering> offerings = new ArrayList<>(ZONES.size() * 2);
            for (String zone : ZONES) {
              offerings.add(offering(Labels.CAPACITY_TYPE_SPOT, zone, price * SPOT_FACTOR));
              offerings.add(offering(Labels.CAPACITY_TYPE_ON_DEMAND, zone, price));
            }
            Map<String, String> resources = new LinkedHashMap<>();
            resources.put(ResourceNames.CPU, Integer.toString(cpu));
            resources.put(ResourceNames.EPHEMERAL_STORAGE, "20Gi");
            resources.put(ResourceNames.MEMORY, memoryGi + "Gi");
            resources.put(ResourceNames.PODS, Integer.toString(Math.min(16 * cpu, 1024)));
            types.add(
                instanceType(
                    new Options(
                        family + "-" + cpu + "x-" + arch + "-" + os, arch, List.of(os), resources, offerings)));
          }
        }
      }
    }
    return types;
  }

  /**
   * Types from a KWOK-format document: an array of {@code {name, architecture, operatingSystems,
   * resources, offerings}}, each offering either {@code {Price, Available, Requirements: [{key,
   * operator, values}]}} or the older {@code {CapacityType, Zone, Price, Available}}. As upstream,
   * every offering is made available.
   *
   * @throws IllegalArgumentException naming the entry and field that is malformed
   */
  public static List<InstanceType> fromJson(JsonNode document) {
    if (!document.isArray()) {
      throw new IllegalArgumentException("a KWOK instance-type file holds a JSON array of instance types");
    }
    List<InstanceType> types = new ArrayList<>(document.size());
    for (int i = 0; i < document.size(); i++) {
      JsonNode entry = document.get(i);
      String name = entry.path("name").asText("");
      String where = "instance type [" + i + "]" + (name.isEmpty() ? "" : " (" + name + ")");
      if (name.isEmpty()) {
        throw new IllegalArgumentException(where + ": missing name");
      }
      Map<String, String> resources = new LinkedHashMap<>();
      entry.path("resources").properties().forEach(e -> resources.put(e.getKey(), e.getValue().asText()));
      List<String> operatingSystems = new ArrayList<>();
      entry.path("operatingSystems").forEach(os -> operatingSystems.add(os.asText()));
      List<Offering> offerings = new ArrayList<>();
      JsonNode offeringNodes = entry.path("offerings");
      for (int o = 0; o < offeringNodes.size(); o++) {
        offerings.add(parseOffering(offeringNodes.get(o), where + ".offerings[" + o + "]"));
      }
      try {
        types.add(instanceType(new Options(name, entry.path("architecture").asText("amd64"), operatingSystems, resources, offerings)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
    }
    return types;
  }

  private static Offering parseOffering(JsonNode node, String where) {
    double price = field(node, "price").asDouble(Double.NaN);
    if (!(price >= 0)) {
      throw new IllegalArgumentException(where + ": missing or invalid Price");
    }
    JsonNode requirementNodes = field(node, "requirements");
    if (requirementNodes.isArray()) {
      Requirements requirements = Requirements.of();
      for (JsonNode r : requirementNodes) {
        List<String> values = new ArrayList<>();
        r.path("values").forEach(v -> values.add(v.asText()));
        requirements.add(Requirement.of(r.path("key").asText(), Operator.parse(r.path("operator").asText()), values));
      }
      if (!requirements.has(Labels.CAPACITY_TYPE) || !requirements.has(Labels.ZONE)) {
        throw new IllegalArgumentException(where + ": Requirements must include " + Labels.CAPACITY_TYPE + " and " + Labels.ZONE);
      }
      return new Offering(requirements.frozen(), price, true, 0);
    }
    String capacityType = field(node, "capacityType").asText("");
    String zone = field(node, "zone").asText("");
    if (capacityType.isEmpty() || zone.isEmpty()) {
      throw new IllegalArgumentException(where + ": needs Requirements, or CapacityType and Zone");
    }
    return offering(capacityType, zone, price);
  }

  /** A field by name, ignoring case (Go's JSON decoder does the same). */
  private static JsonNode field(JsonNode node, String name) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String candidate = names.next();
      if (candidate.equalsIgnoreCase(name)) {
        return node.get(candidate);
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  private static Offering offering(String capacityType, String zone, double price) {
    return new Offering(
        Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, capacityType), Requirement.in(Labels.ZONE, zone))
            .frozen(),
        price,
        true,
        0);
  }

  private static InstanceType instanceType(Options options) {
    Map<String, String> resources = new LinkedHashMap<>(options.resources());
    resources.putIfAbsent(ResourceNames.PODS, Long.toString(DEFAULT_PODS));
    Resources capacity = Resources.of(resources);
    String cpu = canonical(ResourceNames.CPU, options.resources().get(ResourceNames.CPU));
    String memory = canonical(ResourceNames.MEMORY, options.resources().get(ResourceNames.MEMORY));
    Set<String> zones = new LinkedHashSet<>();
    Set<String> capacityTypes = new LinkedHashSet<>();
    for (Offering offering : options.offerings()) {
      zones.addAll(offering.requirements().get(Labels.ZONE).values());
      capacityTypes.addAll(offering.requirements().get(Labels.CAPACITY_TYPE).values());
    }
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.INSTANCE_TYPE, options.name()),
            Requirement.in(Labels.ARCH, options.arch()),
            Requirement.of(Labels.OS, Operator.In, options.operatingSystems()),
            Requirement.of(Labels.ZONE, Operator.In, zones),
            Requirement.of(Labels.CAPACITY_TYPE, Operator.In, capacityTypes),
            Requirement.in(Labels.KWOK_INSTANCE_SIZE, size(options.name(), cpu)),
            Requirement.in(Labels.KWOK_INSTANCE_FAMILY, family(options.name())),
            Requirement.in(Labels.KWOK_INSTANCE_CPU, cpu),
            Requirement.in(Labels.KWOK_INSTANCE_MEMORY, memory));
    return new InstanceType(options.name(), requirements.frozen(), options.offerings(), capacity, OVERHEAD);
  }

  /** A quantity as Kubernetes prints it ("2Gi", "500m"), or "" when absent. */
  private static String canonical(String resource, String quantity) {
    return quantity == null ? "" : Quantity.format(resource, Quantity.parseMilli(quantity));
  }

  static String size(String name, String cpu) {
    Matcher aws = AWS_STYLE_NAME.matcher(name);
    return aws.matches() ? aws.group(1) : cpu;
  }

  static String family(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '.' || c == '-') {
        return name.substring(0, i);
      }
    }
    return name.substring(0, 1);
  }
}
