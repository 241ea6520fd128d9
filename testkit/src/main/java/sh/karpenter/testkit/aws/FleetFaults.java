package sh.karpenter.testkit.aws;

import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What {@link AwsFaults} does to an EC2 {@code CreateFleet} call: takes the overrides whose
 * instance type × zone × capacity type has no capacity out of the request before moto sees it,
 * caps the capacity the fleet may launch, and reports what was taken out in the response's
 * {@code errorSet}, as EC2 does for an instant fleet (HTTP 200, the instances it could launch, and an
 * {@code InsufficientInstanceCapacity} error per launch template override it could not); and reads
 * which instances a fleet launched from which launch template ({@link #launched}).
 */
final class FleetFaults {

  static final String INSUFFICIENT_CAPACITY = "InsufficientInstanceCapacity";
  static final String NAMESPACE = "http://ec2.amazonaws.com/doc/2016-11-15/";
  private static final Pattern OVERRIDE = Pattern.compile("LaunchTemplateConfigs\\.(\\d+)\\.Overrides\\.(\\d+)\\.(.+)");
  private static final Pattern CONFIG = Pattern.compile("LaunchTemplateConfigs\\.(\\d+)\\.(.+)");

  /** An override of a launch template config, with the config's launch template specification. */
  record Override(Map<String, String> launchTemplate, Map<String, String> fields, String zone) {
    String instanceType() {
      return fields.get("InstanceType");
    }
  }

  /**
   * The outcome of rewriting one request.
   *
   * @param forward the parameters to send to moto, or {@code null} when no override is left (or the
   *     capacity cap is 0) and the proxy answers by itself
   * @param failed the overrides to report as {@code InsufficientInstanceCapacity}
   * @param capped whether the fleet's capacity was lowered: then the override moto launched from is
   *     reported as out of capacity too
   * @param capacityType {@code spot} or {@code on-demand}: the lifecycle of the errors
   */
  record Rewrite(SequencedMap<String, String> forward, List<Override> failed, boolean capped, String capacityType) {}

  private FleetFaults() {}

  /**
   * @param unavailable whether an override (type, zone, capacity type; type or zone may be null) has no capacity
   * @param zoneOfSubnet the zone of a subnet ID, for overrides that name a subnet but no zone
   * @param capacityLimit the most instances the fleet may launch, or {@code null} for no limit
   */
  static Rewrite rewrite(
      SequencedMap<String, String> parameters,
      UnavailableOfferings unavailable,
      Function<String, String> zoneOfSubnet,
      Integer capacityLimit) {
    String capacityType = parameters.getOrDefault("TargetCapacitySpecification.DefaultTargetCapacityType", "on-demand");
    SequencedMap<String, String> rest = new LinkedHashMap<>();
    TreeMap<Integer, Map<String, String>> launchTemplates = new TreeMap<>();
    TreeMap<Integer, TreeMap<Integer, Map<String, String>>> overrides = new TreeMap<>();
    for (Map.Entry<String, String> entry : parameters.entrySet()) {
      Matcher override = OVERRIDE.matcher(entry.getKey());
      Matcher config = CONFIG.matcher(entry.getKey());
      if (override.matches()) {
        overrides.computeIfAbsent(Integer.parseInt(override.group(1)), k -> new TreeMap<>())
            .computeIfAbsent(Integer.parseInt(override.group(2)), k -> new LinkedHashMap<>())
            .put(override.group(3), entry.getValue());
      } else if (config.matches()) {
        launchTemplates.computeIfAbsent(Integer.parseInt(config.group(1)), k -> new LinkedHashMap<>())
            .put(config.group(2), entry.getValue());
      } else {
        rest.put(entry.getKey(), entry.getValue());
      }
    }

    List<Override> failed = new ArrayList<>();
    List<Map.Entry<Map<String, String>, List<Override>>> kept = new ArrayList<>();
    for (Map.Entry<Integer, Map<String, String>> config : launchTemplates.entrySet()) {
      Map<String, String> launchTemplate = config.getValue();
      List<Override> keptOverrides = new ArrayList<>();
      TreeMap<Integer, Map<String, String>> configOverrides = overrides.getOrDefault(config.getKey(), new TreeMap<>());
      for (Map<String, String> fields : configOverrides.values()) {
        String zone = fields.get("AvailabilityZone");
        if (zone == null && fields.get("SubnetId") != null) {
          zone = zoneOfSubnet.apply(fields.get("SubnetId"));
        }
        Override override = new Override(launchTemplate, fields, zone);
        if (unavailable.test(fields.get("InstanceType"), zone, capacityType)) {
          failed.add(override);
        } else {
          keptOverrides.add(override);
        }
      }
      // A config whose every override is unavailable goes; one that had none stays as it is.
      if (configOverrides.isEmpty() || !keptOverrides.isEmpty()) {
        kept.add(Map.entry(launchTemplate, keptOverrides));
      }
    }

    boolean capped = false;
    String total = rest.get("TargetCapacitySpecification.TotalTargetCapacity");
    if (capacityLimit != null && total != null && Integer.parseInt(total) > capacityLimit) {
      capped = true;
      rest.put("TargetCapacitySpecification.TotalTargetCapacity", Integer.toString(capacityLimit));
      for (String part : List.of("SpotTargetCapacity", "OnDemandTargetCapacity")) {
        String key = "TargetCapacitySpecification." + part;
        if (rest.containsKey(key)) {
          rest.put(key, Integer.toString(Math.min(capacityLimit, Integer.parseInt(rest.get(key)))));
        }
      }
    }
    if (kept.isEmpty() || (capped && capacityLimit == 0)) {
      if (capped && capacityLimit == 0) {
        kept.forEach(config -> failed.addAll(config.getValue()));
      }
      return new Rewrite(null, failed, false, capacityType);
    }

    SequencedMap<String, String> forward = new LinkedHashMap<>(rest);
    for (int c = 0; c < kept.size(); c++) {
      String prefix = "LaunchTemplateConfigs." + (c + 1) + ".";
      kept.get(c).getKey().forEach((key, value) -> forward.put(prefix + key, value));
      List<Override> keptOverrides = kept.get(c).getValue();
      for (int o = 0; o < keptOverrides.size(); o++) {
        String overridePrefix = prefix + "Overrides." + (o + 1) + ".";
        keptOverrides.get(o).fields().forEach((key, value) -> forward.put(overridePrefix + key, value));
      }
    }
    return new Rewrite(forward, failed, capped, capacityType);
  }

  /** Whether an offering has no capacity; {@code instanceType} and {@code zone} may be null (unknown). */
  @FunctionalInterface
  interface UnavailableOfferings {
    boolean test(String instanceType, String zone, String capacityType);
  }

  /** The response EC2 gives when no override could launch: a fleet ID, the errors, no instances. */
  static String responseWithoutInstances(Rewrite rewrite) {
    Document document = newDocument();
    Element root = document.createElementNS(NAMESPACE, "CreateFleetResponse");
    document.appendChild(root);
    append(root, "requestId", UUID.randomUUID().toString());
    append(root, "fleetId", "fleet-" + UUID.randomUUID());
    appendErrors(root, rewrite.failed(), rewrite.capacityType());
    root.appendChild(document.createElementNS(NAMESPACE, "fleetInstanceSet"));
    return serialize(document);
  }

  /**
   * moto's response with the errors added: one per override taken out, and when the capacity was
   * capped one for the override moto launched from (that pool "ran out").
   */
  static String withErrors(String motoResponse, Rewrite rewrite) {
    Document document = parse(motoResponse);
    Element root = document.getDocumentElement();
    List<Node> exhausted = new ArrayList<>();
    if (rewrite.capped()) {
      Element instances = child(root, "fleetInstanceSet");
      Element first = instances == null ? null : child(instances, "item");
      Element launched = first == null ? null : child(first, "launchTemplateAndOverrides");
      if (launched != null) {
        exhausted.add(launched);
      }
    }
    if (rewrite.failed().isEmpty() && exhausted.isEmpty()) {
      return motoResponse;
    }
    Element errors = appendErrors(root, rewrite.failed(), rewrite.capacityType());
    for (Node launched : exhausted) {
      Element item = append(errors, "item", null);
      item.appendChild(launched.cloneNode(true));
      append(item, "lifecycle", rewrite.capacityType());
      append(item, "errorCode", INSUFFICIENT_CAPACITY);
      append(item, "errorMessage", "There is no more capacity in this pool (fault injected by AwsFaults).");
    }
    return serialize(document);
  }

  private static Element appendErrors(Element root, List<Override> failed, String capacityType) {
    Element errors = child(root, "errorSet");
    if (errors == null) {
      errors = append(root, "errorSet", null);
    }
    for (Override override : failed) {
      Element item = append(errors, "item", null);
      Element launchTemplateAndOverrides = append(item, "launchTemplateAndOverrides", null);
      Element specification = append(launchTemplateAndOverrides, "launchTemplateSpecification", null);
      simpleFields(override.launchTemplate(), "LaunchTemplateSpecification.")
          .forEach((key, value) -> append(specification, lowerCamel(key), value));
      Element overrides = append(launchTemplateAndOverrides, "overrides", null);
      simpleFields(override.fields(), "").forEach((key, value) -> append(overrides, lowerCamel(key), value));
      append(item, "lifecycle", capacityType);
      append(item, "errorCode", INSUFFICIENT_CAPACITY);
      append(item, "errorMessage", "We currently do not have sufficient " + override.instanceType()
          + " capacity in the Availability Zone you requested (" + override.zone() + "). (fault injected by AwsFaults)");
    }
    return errors;
  }

  /**
   * An instance a fleet launched and the launch template it was launched from, as the response's
   * {@code launchTemplateAndOverrides.launchTemplateSpecification} names it (by ID or by name; the
   * other is {@code null}; the version as resolved, {@code null} if absent).
   */
  record Launched(String instanceId, String launchTemplateId, String launchTemplateName, String version) {}

  /** The instances of a {@code CreateFleet} response's {@code fleetInstanceSet}, with their launch templates. */
  static List<Launched> launched(String response) {
    Element root = parse(response).getDocumentElement();
    Element instances = child(root, "fleetInstanceSet");
    List<Launched> launched = new ArrayList<>();
    for (Element item : children(instances, "item")) {
      Element overrides = child(item, "launchTemplateAndOverrides");
      Element specification = overrides == null ? null : child(overrides, "launchTemplateSpecification");
      String id = text(specification, "launchTemplateId");
      String name = text(specification, "launchTemplateName");
      String version = text(specification, "version");
      Element ids = child(item, "instanceIds");
      for (Element instanceId : children(ids, "item")) {
        launched.add(new Launched(instanceId.getTextContent().trim(), id, name, version));
      }
    }
    return launched;
  }

  private static List<Element> children(Element parent, String localName) {
    List<Element> found = new ArrayList<>();
    if (parent != null) {
      for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
        if (node instanceof Element element && localName.equals(element.getLocalName())) {
          found.add(element);
        }
      }
    }
    return found;
  }

  private static String text(Element parent, String localName) {
    Element element = parent == null ? null : child(parent, localName);
    return element == null || element.getTextContent().isBlank() ? null : element.getTextContent().trim();
  }

  /** The fields under {@code prefix} that are not nested further (e.g. {@code InstanceType}, not {@code Placement.GroupName}). */
  private static Map<String, String> simpleFields(Map<String, String> fields, String prefix) {
    Map<String, String> simple = new LinkedHashMap<>();
    fields.forEach((key, value) -> {
      if (key.startsWith(prefix) && key.indexOf('.', prefix.length()) < 0) {
        simple.put(key.substring(prefix.length()), value);
      }
    });
    return simple;
  }

  private static String lowerCamel(String name) {
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }

  private static Element child(Element parent, String localName) {
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && localName.equals(element.getLocalName())) {
        return element;
      }
    }
    return null;
  }

  static Element append(Element parent, String localName, String text) {
    String namespace = parent.getNamespaceURI() == null ? NAMESPACE : parent.getNamespaceURI();
    Element element = parent.getOwnerDocument().createElementNS(namespace, localName);
    if (text != null) {
      element.setTextContent(text);
    }
    parent.appendChild(element);
    return element;
  }

  private static DocumentBuilderFactory factory() {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    try {
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    } catch (javax.xml.parsers.ParserConfigurationException e) {
      throw new IllegalStateException(e);
    }
    return factory;
  }

  static Document newDocument() {
    try {
      return factory().newDocumentBuilder().newDocument();
    } catch (javax.xml.parsers.ParserConfigurationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Document parse(String xml) {
    try {
      return factory().newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    } catch (Exception e) {
      throw new IllegalStateException("the emulator's CreateFleet response is not XML: " + xml, e);
    }
  }

  static String serialize(Document document) {
    try {
      StringWriter out = new StringWriter();
      var transformer = TransformerFactory.newInstance().newTransformer();
      transformer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
      transformer.transform(new DOMSource(document), new StreamResult(out));
      return out.toString();
    } catch (javax.xml.transform.TransformerException e) {
      throw new IllegalStateException(e);
    }
  }
}
