package sh.karpenter.cli.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.api.validation.Manifest;

/**
 * Turns older Karpenter manifests into {@code karpenter.sh/v1} and {@code karpenter.k8s.aws/v1} ones
 * (docs/convert.md): v1alpha5 {@code Provisioner} → {@code NodePool} (and an {@code EC2NodeClass} for an
 * inline {@code provider}), v1alpha1 {@code AWSNodeTemplate} → {@code EC2NodeClass}, and v1beta1
 * {@code NodePool}, {@code NodeClaim} and {@code EC2NodeClass} → v1. Other objects pass through unchanged.
 *
 * <p>The kubelet configuration, which v1 moved from the NodePool to the EC2NodeClass, is set on the
 * EC2NodeClass the pool references when that class is in the input; when two pools sharing a class
 * configure different kubelets, the second gets a copy of the class named {@code <class>-<pool>}.
 * Every choice and every field without a v1 equivalent is a note, written above the object as a YAML
 * comment. Input that cannot be converted is a {@link ConversionException} naming the document, the
 * object and the field.
 */
public final class Converter {
  /** karpenter-convert's placeholder for the node role an AWSNodeTemplate did not name. */
  public static final String ROLE_PLACEHOLDER = "$KARPENTER_NODE_ROLE";

  static final String CORE_V1 = "karpenter.sh/v1";
  static final String AWS_V1 = "karpenter.k8s.aws/v1";
  static final String AWS_GROUP = "karpenter.k8s.aws";
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private static final Set<String> PROVISIONER_FIELDS = Set.of("requirements", "labels", "annotations", "taints", "startupTaints",
      "limits", "weight", "ttlSecondsAfterEmpty", "ttlSecondsUntilExpired", "consolidation", "kubeletConfiguration", "provider",
      "providerRef");
  private static final Set<String> NODE_TEMPLATE_FIELDS = Set.of("subnetSelector", "securityGroupSelector", "amiFamily", "amiSelector",
      "instanceProfile", "userData", "tags", "metadataOptions", "blockDeviceMappings", "detailedMonitoring", "launchTemplate",
      "launchTemplateName", "context", "apiVersion", "kind");

  private final String role;

  /** @param role the node role of converted AWSNodeTemplates that name no instance profile */
  public Converter(String role) {
    this.role = role == null || role.isBlank() ? ROLE_PLACEHOLDER : role;
  }

  /** An object being written, its notes still open to later conversions (a pool's kubelet lands on its class). */
  private static final class Slot {
    final ObjectNode object;
    final List<String> notes = new ArrayList<>();
    final String source;
    String kubeletFrom; // the pool whose kubelet this class carries

    Slot(ObjectNode object, String source) {
      this.object = object;
      this.source = source;
    }
  }

  /** Converts every manifest, in input order; a generated EC2NodeClass comes just before its NodePool. */
  public List<Converted> convert(List<Manifest> manifests) {
    List<Slot> out = new ArrayList<>();
    Map<String, Slot> nodeClasses = new HashMap<>();
    // Classes first, so that pools can move their kubelet onto them whatever the order of the input.
    Map<Manifest, Slot> classSlots = new HashMap<>();
    for (Manifest manifest : manifests) {
      Slot slot = switch (manifest.apiVersion() + " " + manifest.kind()) {
        case "karpenter.k8s.aws/v1alpha1 AWSNodeTemplate" -> nodeTemplate(manifest);
        case "karpenter.k8s.aws/v1beta1 EC2NodeClass" -> betaNodeClass(manifest);
        case "karpenter.k8s.aws/v1 EC2NodeClass" -> new Slot(manifest.tree().deepCopy(), manifest.document());
        default -> null;
      };
      if (slot != null) {
        String name = slot.object.path("metadata").path("name").asText();
        if (nodeClasses.put(name, slot) != null) {
          throw new ConversionException(manifest.document(), manifest.kind() + " " + name, "metadata.name",
              "another node class in the input has this name; in v1 both would be EC2NodeClass " + name);
        }
        classSlots.put(manifest, slot);
      }
    }
    for (Manifest manifest : manifests) {
      Slot classSlot = classSlots.get(manifest);
      if (classSlot != null) {
        out.add(classSlot);
        continue;
      }
      switch (manifest.apiVersion() + " " + manifest.kind()) {
        case "karpenter.sh/v1alpha5 Provisioner" -> provisioner(manifest, nodeClasses, out);
        case "karpenter.sh/v1beta1 NodePool" -> betaNodePool(manifest, nodeClasses, out);
        case "karpenter.sh/v1beta1 NodeClaim" -> out.add(betaNodeClaim(manifest));
        default -> {
          String group = manifest.apiVersion().contains("/") ? manifest.apiVersion().substring(0, manifest.apiVersion().indexOf('/')) : "";
          boolean karpenter = group.equals("karpenter.sh") || group.equals(AWS_GROUP);
          if (karpenter && !manifest.apiVersion().endsWith("/v1")) {
            throw new ConversionException(manifest.document(), manifest.kind() + " " + manifest.name(), "apiVersion",
                "cannot convert " + manifest.apiVersion() + " " + manifest.kind()
                    + " (converts karpenter.sh/v1alpha5 Provisioner, karpenter.k8s.aws/v1alpha1 AWSNodeTemplate and karpenter.sh/v1beta1 "
                    + "NodePool and NodeClaim and karpenter.k8s.aws/v1beta1 EC2NodeClass)");
          }
          out.add(new Slot(manifest.tree().deepCopy(), manifest.document())); // already v1, or not Karpenter's
        }
      }
    }
    return out.stream().map(s -> new Converted(s.object, s.notes, s.source)).toList();
  }

  // ---------------------------------------------------------------- v1alpha5 Provisioner

  private void provisioner(Manifest manifest, Map<String, Slot> nodeClasses, List<Slot> out) {
    Context at = new Context(manifest);
    JsonNode spec = at.object(manifest.tree(), "spec", false);
    at.onlyKnown(spec, "spec", PROVISIONER_FIELDS);
    Slot pool = new Slot(header(CORE_V1, "NodePool", manifest), manifest.document());
    ObjectNode poolSpec = pool.object.putObject("spec");
    ObjectNode template = poolSpec.putObject("template");
    ObjectNode templateMetadata = NODES.objectNode();
    for (String field : List.of("labels", "annotations")) {
      JsonNode value = at.object(spec, field, true);
      if (value != null && !value.isEmpty()) {
        templateMetadata.set(field, value.deepCopy());
      }
    }
    if (!templateMetadata.isEmpty()) {
      template.set("metadata", templateMetadata);
    }
    ObjectNode templateSpec = template.putObject("spec");

    // nodeClassRef: providerRef, or an EC2NodeClass generated from the inline provider.
    boolean hasRef = spec.has("providerRef");
    boolean hasProvider = spec.has("provider");
    String nodeClassName;
    if (hasRef && hasProvider) {
      throw at.error("spec.provider", "set together with spec.providerRef; a Provisioner takes one of them");
    } else if (hasRef) {
      JsonNode ref = at.object(spec, "providerRef", false);
      nodeClassName = at.text(ref, "name", "spec.providerRef.name");
      String kind = ref.path("kind").asText("AWSNodeTemplate");
      if (!kind.equals("AWSNodeTemplate")) {
        throw at.error("spec.providerRef.kind", "expected AWSNodeTemplate, got \"" + kind + "\"");
      }
    } else if (hasProvider) {
      nodeClassName = manifest.name();
      if (nodeClasses.containsKey(nodeClassName)) {
        throw at.error("spec.provider", "its generated EC2NodeClass would be named " + nodeClassName
            + ", like a node class already in the input; use providerRef instead");
      }
      ObjectNode provider = (ObjectNode) at.object(spec, "provider", false);
      Slot generated = new Slot(header(AWS_V1, "EC2NodeClass", nodeClassName, null, null), manifest.document());
      generated.object.set("spec", nodeTemplateSpec(provider, new Context(manifest, "spec.provider"), generated.notes));
      generated.notes.addFirst("generated from the inline spec.provider of Provisioner " + manifest.name());
      nodeClasses.put(nodeClassName, generated);
      out.add(generated);
    } else {
      throw at.error("spec.providerRef", "neither providerRef nor provider is set; a v1 NodePool needs a nodeClassRef to an EC2NodeClass");
    }

    if (spec.has("kubeletConfiguration")) {
      ObjectNode kubelet = ((ObjectNode) at.object(spec, "kubeletConfiguration", false)).deepCopy();
      if (kubelet.remove("containerRuntime") != null) {
        pool.notes.add("spec.kubeletConfiguration.containerRuntime has no v1 equivalent (containerd is the only runtime); dropped");
      }
      nodeClassName = placeKubelet(manifest.name(), "spec.kubeletConfiguration", kubelet, nodeClassName, nodeClasses, pool, out);
    }
    ObjectNode ref = templateSpec.putObject("nodeClassRef");
    ref.put("group", AWS_GROUP).put("kind", "EC2NodeClass").put("name", nodeClassName);

    if (spec.has("ttlSecondsUntilExpired")) {
      templateSpec.put("expireAfter", seconds(at.seconds(spec, "ttlSecondsUntilExpired")));
    } else {
      templateSpec.put("expireAfter", "Never");
      pool.notes.add("spec.template.spec.expireAfter: Never, as without ttlSecondsUntilExpired (v1's default would expire nodes after 720h)");
    }

    ArrayNode requirements = templateSpec.putArray("requirements");
    if (spec.has("requirements")) {
      requirements.addAll(at.array(spec, "requirements").deepCopy());
    }
    List<String> defaulted = defaultRequirements(requirements);
    if (!defaulted.isEmpty()) {
      pool.notes.add("spec.template.spec.requirements: added " + String.join(", ", defaulted)
          + ", which v1alpha5 Provisioners got by default and v1 NodePools do not");
    }
    if (spec.has("taints")) {
      templateSpec.set("taints", at.array(spec, "taints").deepCopy());
    }
    if (spec.has("startupTaints")) {
      templateSpec.set("startupTaints", at.array(spec, "startupTaints").deepCopy());
    }

    ObjectNode disruption = poolSpec.putObject("disruption");
    boolean consolidation = spec.path("consolidation").path("enabled").asBoolean(false);
    if (spec.has("consolidation")) {
      JsonNode enabled = at.object(spec, "consolidation", false).path("enabled");
      if (!enabled.isMissingNode() && !enabled.isBoolean()) {
        throw at.error("spec.consolidation.enabled", "expected true or false, got " + enabled);
      }
    }
    if (consolidation && spec.has("ttlSecondsAfterEmpty")) {
      throw at.error("spec.ttlSecondsAfterEmpty", "set together with spec.consolidation.enabled: true, which v1alpha5 refuses");
    } else if (consolidation) {
      disruption.put("consolidationPolicy", "WhenEmptyOrUnderutilized").put("consolidateAfter", "0s");
    } else if (spec.has("ttlSecondsAfterEmpty")) {
      disruption.put("consolidationPolicy", "WhenEmpty").put("consolidateAfter", seconds(at.seconds(spec, "ttlSecondsAfterEmpty")));
    } else {
      disruption.put("consolidationPolicy", "WhenEmpty").put("consolidateAfter", "Never");
      pool.notes.add("spec.disruption.consolidateAfter: Never, as without ttlSecondsAfterEmpty or consolidation (nodes are not consolidated)");
    }

    if (spec.has("limits")) {
      JsonNode limits = at.object(spec, "limits", false);
      at.onlyKnown(limits, "spec.limits", Set.of("resources"));
      if (limits.has("resources")) {
        poolSpec.set("limits", at.object(limits, "resources", false).deepCopy());
      }
    }
    if (spec.has("weight")) {
      poolSpec.set("weight", spec.get("weight").deepCopy());
    }
    out.add(pool);
  }

  /**
   * The requirements a v1alpha5 Provisioner got from the AWS provider's defaulting when it did not
   * constrain the key: on-demand, amd64, linux, and instance categories c, m, r of generation 3 and
   * later unless it names instance types or families.
   */
  private static List<String> defaultRequirements(ArrayNode requirements) {
    Set<String> keys = new java.util.HashSet<>();
    requirements.forEach(r -> keys.add(r.path("key").asText()));
    List<String> added = new ArrayList<>();
    addDefault(requirements, keys, added, "karpenter.sh/capacity-type", "In", "on-demand");
    addDefault(requirements, keys, added, "kubernetes.io/arch", "In", "amd64");
    addDefault(requirements, keys, added, "kubernetes.io/os", "In", "linux");
    boolean namesTypes = keys.contains("node.kubernetes.io/instance-type") || keys.contains("karpenter.k8s.aws/instance-family");
    if (!namesTypes) {
      addDefault(requirements, keys, added, "karpenter.k8s.aws/instance-category", "In", "c", "m", "r");
      addDefault(requirements, keys, added, "karpenter.k8s.aws/instance-generation", "Gt", "2");
    }
    return added;
  }

  private static void addDefault(ArrayNode requirements, Set<String> keys, List<String> added, String key, String operator, String... values) {
    if (keys.contains(key)) {
      return;
    }
    ObjectNode requirement = requirements.addObject().put("key", key).put("operator", operator);
    ArrayNode list = requirement.putArray("values");
    for (String value : values) {
      list.add(value);
    }
    added.add(key + " " + operator + " " + String.join(",", values));
  }

  // ---------------------------------------------------------------- v1alpha1 AWSNodeTemplate

  private Slot nodeTemplate(Manifest manifest) {
    Context at = new Context(manifest);
    ObjectNode spec = (ObjectNode) at.object(manifest.tree(), "spec", false);
    Slot slot = new Slot(header(AWS_V1, "EC2NodeClass", manifest), manifest.document());
    slot.object.set("spec", nodeTemplateSpec(spec, at, slot.notes));
    return slot;
  }

  /** An AWSNodeTemplate's spec (or a Provisioner's inline provider) as an EC2NodeClass v1 spec. */
  private ObjectNode nodeTemplateSpec(ObjectNode spec, Context at, List<String> notes) {
    at.onlyKnown(spec, "", NODE_TEMPLATE_FIELDS);
    ObjectNode out = NODES.objectNode();
    for (String launchTemplate : List.of("launchTemplate", "launchTemplateName")) {
      if (spec.has(launchTemplate)) {
        notes.add(at.path(launchTemplate) + " (" + spec.get(launchTemplate).asText()
            + ") has no v1 equivalent: v1 builds its own launch templates; its settings must move into this EC2NodeClass");
      }
    }
    if (!spec.has("subnetSelector")) {
      throw at.error(at.path("subnetSelector"), "required: v1 needs subnetSelectorTerms");
    }
    out.set("subnetSelectorTerms", selectorTerms(at, spec, "subnetSelector", notes));
    if (!spec.has("securityGroupSelector")) {
      throw at.error(at.path("securityGroupSelector"), "required: v1 needs securityGroupSelectorTerms"
          + (spec.has("launchTemplate") || spec.has("launchTemplateName") ? " (a launch template no longer provides them)" : ""));
    }
    out.set("securityGroupSelectorTerms", selectorTerms(at, spec, "securityGroupSelector", notes));

    String family = spec.has("amiFamily") ? at.text(spec, "amiFamily", at.path("amiFamily")) : "AL2";
    if (spec.has("amiSelector")) {
      out.set("amiSelectorTerms", amiSelectorTerms(at, spec, notes));
      out.put("amiFamily", selectedFamily(family, at.path("amiFamily"), at, notes));
    } else {
      out.set("amiSelectorTerms", aliasTerms(family, at.path("amiFamily"), at, notes, !spec.has("amiFamily")));
    }
    if (spec.has("instanceProfile")) {
      out.put("instanceProfile", at.text(spec, "instanceProfile", at.path("instanceProfile")));
    } else {
      out.put("role", role);
      notes.add("spec.role: " + role + (role.equals(ROLE_PLACEHOLDER)
          ? " is a placeholder: v1 needs the node IAM role (or an instanceProfile); set it, or pass --role" : " (from --role)"));
    }
    for (String field : List.of("userData", "tags", "blockDeviceMappings", "detailedMonitoring", "context")) {
      if (spec.has(field)) {
        out.set(field, spec.get(field).deepCopy());
      }
    }
    metadataOptions(spec, out, notes);
    return out;
  }

  /** A v1alpha1 selector map: {@code aws-ids} (comma-separated) become id terms, every other key a tag of one term. */
  private static ArrayNode selectorTerms(Context at, JsonNode spec, String field, List<String> notes) {
    JsonNode selector = at.object(spec, field, false);
    ArrayNode terms = NODES.arrayNode();
    ObjectNode tags = NODES.objectNode();
    List<String> ids = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = selector.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (!entry.getValue().isValueNode()) {
        throw at.error(at.path(field) + "." + entry.getKey(), "expected a string, got " + entry.getValue().getNodeType().name().toLowerCase(Locale.ROOT));
      }
      String value = entry.getValue().asText();
      if (entry.getKey().equals("aws-ids") || entry.getKey().equals("aws::ids")) {
        ids.addAll(commaList(value));
      } else {
        tags.put(entry.getKey(), value);
      }
    }
    if (!ids.isEmpty()) {
      ids.forEach(id -> terms.addObject().put("id", id));
      if (!tags.isEmpty()) {
        notes.add(at.path(field) + ": the tags " + tags + " narrowed the listed ids; v1 terms select by id alone, so they are dropped");
      }
    } else if (!tags.isEmpty()) {
      terms.addObject().set("tags", tags);
    } else {
      throw at.error(at.path(field), "empty: v1 needs at least one selector term");
    }
    return terms;
  }

  /** {@code aws::ids}, {@code aws::name} and {@code aws::owners} become id, name and owner terms; other keys tags. */
  private static ArrayNode amiSelectorTerms(Context at, JsonNode spec, List<String> notes) {
    JsonNode selector = at.object(spec, "amiSelector", false);
    List<String> ids = new ArrayList<>();
    List<String> owners = new ArrayList<>();
    String name = null;
    ObjectNode tags = NODES.objectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = selector.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String value = entry.getValue().asText();
      switch (entry.getKey()) {
        case "aws::ids", "aws-ids" -> ids.addAll(commaList(value));
        case "aws::name" -> name = value;
        case "aws::owners" -> owners.addAll(commaList(value));
        default -> tags.put(entry.getKey(), value);
      }
    }
    ArrayNode terms = NODES.arrayNode();
    if (!ids.isEmpty()) {
      ids.forEach(id -> terms.addObject().put("id", id));
      if (name != null || !owners.isEmpty() || !tags.isEmpty()) {
        notes.add(at.path("amiSelector") + ": name, owners and tags narrowed the listed ids; v1 terms select by id alone, so they are dropped");
      }
      return terms;
    }
    if (name == null && tags.isEmpty()) {
      throw at.error(at.path("amiSelector"), "selects nothing: expected aws::ids, aws::name or tags");
    }
    for (String owner : owners.isEmpty() ? java.util.Collections.<String>singletonList(null) : owners) {
      ObjectNode term = terms.addObject();
      if (name != null) {
        term.put("name", name);
      }
      if (owner != null) {
        term.put("owner", owner);
      }
      if (!tags.isEmpty()) {
        term.set("tags", tags.deepCopy());
      }
    }
    return terms;
  }

  /** The amiFamily kept next to selected AMIs (it decides the user data format). */
  private static String selectedFamily(String family, String field, Context at, List<String> notes) {
    if (family.equals("Ubuntu")) {
      notes.add(field + ": Ubuntu is not a v1 family; AL2, whose user data Ubuntu's EKS AMIs also read, with the selected AMIs");
      return "AL2";
    }
    if (!family.equals(AMIFamily.CUSTOM) && AMIFamily.aliasFamily(family).isEmpty()) {
      throw at.error(field, "unknown AMI family \"" + family + "\" (expected AL2, AL2023, Bottlerocket, Ubuntu, Windows2019, Windows2022 or Custom)");
    }
    return family;
  }

  /** No AMI selector: the family's EKS-optimized AMIs, which v1 names with an alias. */
  private static ArrayNode aliasTerms(String family, String field, Context at, List<String> notes, boolean defaulted) {
    if (family.equals("Custom")) {
      throw at.error(field, "Custom needs AMI selector terms, and there are none");
    }
    if (family.equals("Ubuntu")) {
      throw at.error(field, "Ubuntu has no v1 alias: select the Ubuntu AMIs (amiSelector / amiSelectorTerms) to keep using them");
    }
    String alias = AMIFamily.aliasFamily(family).orElse(null);
    if (alias == null) {
      throw at.error(field, "unknown AMI family \"" + family + "\" (expected AL2, AL2023, Bottlerocket, Ubuntu, Windows2019, Windows2022 or Custom)");
    }
    ArrayNode terms = NODES.arrayNode();
    terms.addObject().put("alias", alias + "@latest");
    notes.add("spec.amiSelectorTerms: alias " + alias + "@latest" + (defaulted ? " (AL2 was the default family)" : " for amiFamily " + family)
        + "; @latest moves nodes to each new AMI release through drift, pin a version (e.g. " + alias + "@v20240807) to control rollouts");
    return terms;
  }

  /** v1 lowered the default hop limit from 2 to 1; without metadataOptions the older defaults are written out. */
  private static void metadataOptions(JsonNode spec, ObjectNode out, List<String> notes) {
    if (spec.has("metadataOptions")) {
      out.set("metadataOptions", spec.get("metadataOptions").deepCopy());
      return;
    }
    out.putObject("metadataOptions").put("httpEndpoint", "enabled").put("httpProtocolIPv6", "disabled")
        .put("httpPutResponseHopLimit", 2).put("httpTokens", "required");
    notes.add("spec.metadataOptions: the earlier defaults written out (hop limit 2; v1's default is 1, which pods without host networking cannot reach IMDS through)");
  }

  // ---------------------------------------------------------------- v1beta1

  private Slot betaNodeClass(Manifest manifest) {
    Context at = new Context(manifest);
    ObjectNode spec = ((ObjectNode) at.object(manifest.tree(), "spec", false)).deepCopy();
    Slot slot = new Slot(header(AWS_V1, "EC2NodeClass", manifest), manifest.document());
    boolean hasTerms = spec.path("amiSelectorTerms").isArray() && !spec.path("amiSelectorTerms").isEmpty();
    if (!spec.has("amiFamily") && !hasTerms) {
      throw at.error("spec.amiFamily", "required when there are no amiSelectorTerms");
    }
    String family = spec.has("amiFamily") ? at.text(spec, "amiFamily", "spec.amiFamily") : "Custom";
    if (hasTerms) {
      spec.put("amiFamily", selectedFamily(family, "spec.amiFamily", at, slot.notes));
    } else {
      spec.set("amiSelectorTerms", aliasTerms(family, "spec.amiFamily", at, slot.notes, false));
      spec.remove("amiFamily");
    }
    if (!spec.has("metadataOptions")) {
      metadataOptions(spec, spec, slot.notes);
    }
    ObjectNode ordered = NODES.objectNode();
    ordered.setAll(spec);
    slot.object.set("spec", ordered);
    return slot;
  }

  private void betaNodePool(Manifest manifest, Map<String, Slot> nodeClasses, List<Slot> out) {
    Context at = new Context(manifest);
    ObjectNode spec = ((ObjectNode) at.object(manifest.tree(), "spec", false)).deepCopy();
    Slot pool = new Slot(header(CORE_V1, "NodePool", manifest), manifest.document());
    ObjectNode template = (ObjectNode) at.object(spec, "template", false);
    ObjectNode templateSpec = (ObjectNode) new Context(manifest, "spec.template").object(template, "spec", false);
    String nodeClassName = nodeClassRef(templateSpec, new Context(manifest, "spec.template.spec"));
    if (templateSpec.has("resources")) {
      templateSpec.remove("resources");
      pool.notes.add("spec.template.spec.resources has no v1 equivalent (it was never used for scheduling); dropped");
    }
    if (templateSpec.has("kubelet")) {
      ObjectNode kubelet = (ObjectNode) new Context(manifest, "spec.template.spec").object(templateSpec, "kubelet", false);
      templateSpec.remove("kubelet");
      String placed = placeKubelet(manifest.name(), "spec.template.spec.kubelet", kubelet, nodeClassName, nodeClasses, pool, out);
      ((ObjectNode) templateSpec.get("nodeClassRef")).put("name", placed);
    }
    ObjectNode disruption = spec.has("disruption") ? (ObjectNode) at.object(spec, "disruption", false) : spec.putObject("disruption");
    JsonNode expireAfter = disruption.remove("expireAfter");
    if (expireAfter != null) {
      templateSpec.set("expireAfter", expireAfter);
    }
    String policy = disruption.path("consolidationPolicy").asText("WhenUnderutilized");
    switch (policy) {
      case "WhenUnderutilized" -> {
        disruption.put("consolidationPolicy", "WhenEmptyOrUnderutilized");
        if (!disruption.has("consolidateAfter")) {
          disruption.put("consolidateAfter", "0s");
        }
      }
      case "WhenEmpty" -> {
        if (!disruption.has("consolidateAfter")) {
          disruption.put("consolidateAfter", "30s");
          pool.notes.add("spec.disruption.consolidateAfter: 30s, v1beta1's default for WhenEmpty");
        }
      }
      default -> throw at.error("spec.disruption.consolidationPolicy", "expected WhenUnderutilized or WhenEmpty, got \"" + policy + "\"");
    }
    // v1 orders template.spec as nodeClassRef, expireAfter, requirements, ...: rebuild for readable output.
    template.set("spec", reordered(templateSpec, List.of("nodeClassRef", "expireAfter", "terminationGracePeriod", "requirements",
        "taints", "startupTaints")));
    spec.remove("disruption");
    spec.set("disruption", reordered(disruption, List.of("consolidationPolicy", "consolidateAfter", "budgets")));
    pool.object.set("spec", reordered(spec, List.of("template", "disruption", "limits", "weight")));
    out.add(pool);
  }

  private Slot betaNodeClaim(Manifest manifest) {
    Context at = new Context(manifest);
    ObjectNode spec = ((ObjectNode) at.object(manifest.tree(), "spec", false)).deepCopy();
    Slot claim = new Slot(header(CORE_V1, "NodeClaim", manifest), manifest.document());
    nodeClassRef(spec, at);
    if (spec.remove("kubelet") != null) {
      claim.notes.add("spec.kubelet: v1 reads the kubelet configuration from the EC2NodeClass; dropped here");
    }
    if (manifest.tree().has("status")) {
      claim.notes.add("status dropped: the controller writes it");
    }
    claim.object.set("spec", reordered(spec, List.of("nodeClassRef", "expireAfter", "terminationGracePeriod", "requirements", "taints",
        "startupTaints", "resources")));
    return claim;
  }

  /** Rewrites a v1beta1 nodeClassRef ({@code apiVersion}, {@code kind}, {@code name}) as v1's ({@code group}, {@code kind}, {@code name}). */
  private static String nodeClassRef(ObjectNode spec, Context at) {
    JsonNode ref = at.object(spec, "nodeClassRef", false);
    String name = at.text(ref, "name", at.path("nodeClassRef.name"));
    String apiVersion = ref.path("apiVersion").asText(AWS_GROUP + "/v1beta1");
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : apiVersion;
    if (ref.has("group")) {
      group = ref.get("group").asText();
    }
    ObjectNode v1 = NODES.objectNode().put("group", group).put("kind", ref.path("kind").asText("EC2NodeClass")).put("name", name);
    spec.set("nodeClassRef", v1);
    return name;
  }

  // ---------------------------------------------------------------- kubelet, shared

  /**
   * Puts a pool's kubelet configuration on the EC2NodeClass it references and returns the class the pool
   * should reference: the class itself, or a copy named {@code <class>-<pool>} when another pool already
   * gave the class a different kubelet.
   */
  private static String placeKubelet(String poolName, String field, ObjectNode kubelet, String nodeClassName, Map<String, Slot> nodeClasses,
      Slot pool, List<Slot> out) {
    Slot nodeClass = nodeClasses.get(nodeClassName);
    if (nodeClass == null) {
      pool.notes.add(field + " moved to the EC2NodeClass in v1, and EC2NodeClass " + nodeClassName
          + " is not in the input: set its spec.kubelet to " + kubelet);
      return nodeClassName;
    }
    ObjectNode classSpec = (ObjectNode) nodeClass.object.get("spec");
    JsonNode existing = classSpec.get("kubelet");
    if (existing == null) {
      classSpec.set("kubelet", kubelet);
      nodeClass.kubeletFrom = poolName;
      nodeClass.notes.add("spec.kubelet: from NodePool " + poolName + "'s " + field + " (v1 moved the kubelet configuration here)");
      pool.notes.add(field + " moved to EC2NodeClass " + nodeClassName + " spec.kubelet");
      return nodeClassName;
    }
    if (existing.equals(kubelet)) {
      pool.notes.add(field + " is EC2NodeClass " + nodeClassName + "'s spec.kubelet (the same as NodePool " + nodeClass.kubeletFrom + "'s)");
      return nodeClassName;
    }
    String copyName = nodeClassName + "-" + poolName;
    if (nodeClasses.containsKey(copyName)) {
      throw new ConversionException(pool.source, "NodePool " + poolName, field,
          "differs from EC2NodeClass " + nodeClassName + "'s kubelet, and the name of a copy, " + copyName + ", is taken");
    }
    Slot copy = new Slot(nodeClass.object.deepCopy(), pool.source);
    ((ObjectNode) copy.object.get("metadata")).put("name", copyName);
    ((ObjectNode) copy.object.get("spec")).set("kubelet", kubelet);
    copy.kubeletFrom = poolName;
    copy.notes.add("a copy of EC2NodeClass " + nodeClassName + " with NodePool " + poolName + "'s " + field
        + ": v1 moved the kubelet configuration to the EC2NodeClass, and NodePool " + nodeClass.kubeletFrom + " gives " + nodeClassName
        + " a different one");
    nodeClasses.put(copyName, copy);
    out.add(copy);
    pool.notes.add(field + " moved to EC2NodeClass " + copyName + " (a copy of " + nodeClassName + ")");
    return copyName;
  }

  // ---------------------------------------------------------------- helpers

  private static ObjectNode header(String apiVersion, String kind, Manifest manifest) {
    JsonNode metadata = manifest.tree().path("metadata");
    return header(apiVersion, kind, manifest.name(), metadata.get("labels"), metadata.get("annotations"));
  }

  /** apiVersion, kind and metadata (name, labels, annotations; the server's fields are left behind). */
  private static ObjectNode header(String apiVersion, String kind, String name, JsonNode labels, JsonNode annotations) {
    ObjectNode object = NODES.objectNode().put("apiVersion", apiVersion).put("kind", kind);
    ObjectNode metadata = object.putObject("metadata").put("name", name);
    if (labels != null && labels.isObject() && !labels.isEmpty()) {
      metadata.set("labels", labels.deepCopy());
    }
    if (annotations != null && annotations.isObject()) {
      ObjectNode kept = annotations.deepCopy();
      kept.remove("kubectl.kubernetes.io/last-applied-configuration"); // describes the old version
      if (!kept.isEmpty()) {
        metadata.set("annotations", kept);
      }
    }
    return object;
  }

  private static ObjectNode reordered(ObjectNode node, List<String> first) {
    ObjectNode ordered = NODES.objectNode();
    for (String field : first) {
      if (node.has(field)) {
        ordered.set(field, node.get(field));
      }
    }
    ordered.setAll(node); // keeps the position of fields already set
    return ordered;
  }

  /** v1alpha1 selectors list ids and owners comma-separated. */
  private static List<String> commaList(String value) {
    return java.util.Arrays.stream(value.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList();
  }

  private static String seconds(long seconds) {
    return GoDuration.of(Duration.ofSeconds(seconds)).toString();
  }

  /** Where in a document a field is, for error messages. */
  private static final class Context {
    final Manifest manifest;
    final String prefix; // e.g. "spec.provider"; fields of node template specs are relative to it

    Context(Manifest manifest) {
      this(manifest, "spec");
    }

    Context(Manifest manifest, String prefix) {
      this.manifest = manifest;
      this.prefix = prefix;
    }

    String path(String field) {
      return field.isEmpty() ? prefix : prefix + "." + field;
    }

    ConversionException error(String field, String problem) {
      return new ConversionException(manifest.document(), manifest.kind() + " " + (manifest.name().isEmpty() ? "(unnamed)" : manifest.name()),
          field, problem);
    }

    /** The object at {@code field} of {@code parent}; missing is an error unless {@code optional} (then null). */
    JsonNode object(JsonNode parent, String field, boolean optional) {
      JsonNode value = parent.get(field);
      String path = parent == manifest.tree() ? field : path(field);
      if (value == null || value.isNull()) {
        if (optional) {
          return null;
        }
        throw error(path, "required");
      }
      if (!value.isObject()) {
        throw error(path, "expected an object, got " + value.getNodeType().name().toLowerCase(Locale.ROOT));
      }
      return value;
    }

    ArrayNode array(JsonNode parent, String field) {
      JsonNode value = parent.get(field);
      if (value == null || !value.isArray()) {
        throw error(path(field), "expected a list, got " + (value == null ? "nothing" : value.getNodeType().name().toLowerCase(Locale.ROOT)));
      }
      return (ArrayNode) value;
    }

    String text(JsonNode parent, String field, String path) {
      JsonNode value = parent.get(field);
      if (value == null || !value.isTextual() || value.asText().isBlank()) {
        throw error(path, value == null ? "required" : "expected a non-empty string, got " + value);
      }
      return value.asText();
    }

    long seconds(JsonNode parent, String field) {
      JsonNode value = parent.get(field);
      if (value == null || !value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() < 0) {
        throw error(path(field), "expected a whole number of seconds, got " + value);
      }
      return value.asLong();
    }

    void onlyKnown(JsonNode node, String where, Set<String> known) {
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!known.contains(name)) {
          String field = where.isEmpty() ? path(name) : where + "." + name;
          throw error(field, "unknown field (known: " + String.join(", ", new java.util.TreeSet<>(known)) + ")");
        }
      }
    }
  }
}
