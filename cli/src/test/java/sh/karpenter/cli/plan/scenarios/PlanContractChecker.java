package sh.karpenter.cli.plan.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import sh.karpenter.cli.plan.scenarios.ScenarioSnapshot.ScenarioPod;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.wellknown.Labels;

/**
 * Checks a {@code karpenter plan --output json} result against every rule of the plan contract
 * ({@code docs/plan-contract.md}) and against the hard scheduling constraints of the snapshot it was
 * made from. It reads the manifests itself ({@link ScenarioSnapshot}), applies Kubernetes' matching
 * rules itself ({@link KubeMatching}) and takes only instance-type facts (offerings, prices, labels,
 * capacity, allocatable) from the bundled catalogue, so it shares no scheduling code with the plan.
 *
 * <p>All violations are collected, not just the first: {@link #violations()} lists them, {@link
 * #assertHolds} fails with all of them.
 */
final class PlanContractChecker {
  private static final BigDecimal PRICE_TOLERANCE = new BigDecimal("1e-9");
  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
  private static final String POD_KEY = "[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9.]*[a-z0-9])?";
  private static final Map<String, InstanceType> CATALOGUE = new HashMap<>();
  /** What kube-scheduler's NodeUnschedulable filter lets past: pods tolerating this taint. */
  private static final JsonNode CORDON =
      new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("key", "node.kubernetes.io/unschedulable").put("effect", "NoSchedule");
  private static final Set<String> CATALOGUE_ZONES = new TreeSet<>();

  static {
    for (InstanceType type : InstanceTypeCatalog.aws().instanceTypes()) {
      CATALOGUE.put(type.name(), type);
      type.offerings().forEach(o -> CATALOGUE_ZONES.add(o.zone()));
    }
  }

  /** A pod on a node in the plan's outcome: bound before the plan, or placed by it. */
  private record Placement(ScenarioPod pod, String node, Map<String, String> nodeLabels, boolean placed) {}

  private final ScenarioSnapshot snapshot;
  private final JsonNode plan;
  private final List<String> violations = new ArrayList<>();
  private final List<Placement> world = new ArrayList<>();

  private PlanContractChecker(ScenarioSnapshot snapshot, JsonNode plan) {
    this.snapshot = snapshot;
    this.plan = plan;
  }

  /** Every violation of the contract by {@code plan}, made from the manifests at {@code inputs}. */
  static List<String> violations(List<Path> inputs, JsonNode plan) {
    PlanContractChecker checker = new PlanContractChecker(ScenarioSnapshot.read(inputs), plan);
    checker.check();
    return List.copyOf(checker.violations);
  }

  /** Fails listing every violation when the plan breaks the contract. */
  static void assertHolds(List<Path> inputs, JsonNode plan) {
    List<String> found = violations(inputs, plan);
    if (!found.isEmpty()) {
      throw new AssertionError(found.size() + " plan contract violation(s):\n  " + String.join("\n  ", found.subList(0, Math.min(found.size(), 40))));
    }
  }

  private void violation(String message) {
    violations.add(message);
  }

  private void check() {
    for (String field : List.of("nodeClaims", "existingNodes", "unschedulable")) {
      if (!plan.path(field).isArray()) {
        violation(field + " is not an array");
        return;
      }
    }
    if (!plan.path("summary").isObject()) {
      violation("summary is missing");
      return;
    }
    snapshot.boundPods.forEach(p -> world.add(new Placement(p, p.nodeName(), nodeLabels(p.nodeName()), false)));
    int placed = checkEveryPendingPodOnce();
    Set<String> claimNames = new HashSet<>();
    for (JsonNode claim : plan.get("nodeClaims")) {
      if (!claimNames.add(claim.path("name").asText())) {
        violation("NodeClaim name " + claim.path("name") + " is used twice");
      }
      checkNodeClaim(claim);
    }
    for (JsonNode node : plan.get("existingNodes")) {
      checkExistingNode(node);
    }
    for (JsonNode entry : plan.get("unschedulable")) {
      if (entry.path("reason").asText("").isBlank()) {
        violation("unschedulable " + entry.path("pod").asText() + " has no reason");
      }
    }
    checkInterPodAffinity();
    checkZoneSpread();
    checkHostPorts();
    checkNodePoolLimits();
    checkSummary(placed);
  }

  // ---- every pending pod exactly once ----

  /** @return how many pods the plan places */
  private int checkEveryPendingPodOnce() {
    Map<String, List<String>> seen = new LinkedHashMap<>();
    int placed = 0;
    for (JsonNode claim : plan.get("nodeClaims")) {
      for (JsonNode pod : claim.path("pods")) {
        seen.computeIfAbsent(pod.asText(), k -> new ArrayList<>()).add("nodeClaim " + claim.path("name").asText());
        placed++;
      }
    }
    for (JsonNode node : plan.get("existingNodes")) {
      for (JsonNode pod : node.path("pods")) {
        seen.computeIfAbsent(pod.asText(), k -> new ArrayList<>()).add("node " + node.path("name").asText());
        placed++;
      }
    }
    for (JsonNode entry : plan.get("unschedulable")) {
      seen.computeIfAbsent(entry.path("pod").asText(), k -> new ArrayList<>()).add("unschedulable");
    }
    seen.forEach(
        (pod, where) -> {
          if (!pod.matches(POD_KEY)) {
            violation("pod " + pod + " is not named namespace/name");
          }
          if (!snapshot.pendingPods.containsKey(pod)) {
            violation("pod " + pod + " is in the plan but is not a pending pod of the snapshot");
          }
          if (where.size() != 1) {
            violation("pod " + pod + " appears " + where.size() + " times: " + where);
          }
        });
    for (String pod : snapshot.pendingPods.keySet()) {
      if (!seen.containsKey(pod)) {
        violation("pending pod " + pod + " is missing from the plan");
      }
    }
    return placed;
  }

  // ---- new NodeClaims ----

  private void checkNodeClaim(JsonNode claim) {
    String name = claim.path("name").asText();
    String poolName = claim.path("nodePool").asText();
    JsonNode pool = snapshot.nodePools.get(poolName);
    InstanceType type = CATALOGUE.get(claim.path("instanceType").asText());
    if (pool == null || type == null) {
      violation(name + ": unknown nodePool " + poolName + " or instanceType " + claim.path("instanceType"));
      return;
    }
    if (!name.matches(java.util.regex.Pattern.quote(poolName) + "-[a-z0-9]{5}")) {
      violation(name + ": name is not <nodePool>-<5 characters>");
    }
    Map<String, String> labels = ScenarioSnapshot.strings(claim.path("labels"));
    JsonNode taints = claim.path("taints");
    List<ScenarioPod> pods = podsOf(claim);
    pods.forEach(p -> world.add(new Placement(p, name, labels, true)));

    checkOffering(claim, pool, type, labels, pods);
    checkLabels(claim, pool, type, labels);
    if (!taintSet(taints).equals(taintSet(pool.at("/spec/template/spec/taints")))) {
      violation(name + ": taints " + taints + " are not the NodePool's " + pool.at("/spec/template/spec/taints"));
    }
    Map<String, BigDecimal> allocatable = KubeMatching.quantities(claim.path("allocatable"));
    Map<String, BigDecimal> expected = new TreeMap<>();
    type.allocatable().toMilli().forEach((resource, milli) -> expected.put(resource, BigDecimal.valueOf(milli).divide(THOUSAND)));
    if (!sameAmounts(allocatable, expected)) {
      violation(name + ": allocatable " + allocatable + " is not " + type.name() + "'s " + expected);
    }

    Map<String, BigDecimal> used = new TreeMap<>();
    for (JsonNode spec : snapshot.daemonSetPodSpecs) {
      if (!KubeMatching.anyRepels(taints, spec) && KubeMatching.podFitsNodeLabels(spec, labels)) {
        KubeMatching.requests(spec).forEach((r, a) -> used.merge(r, a, BigDecimal::add));
      }
    }
    for (ScenarioPod pod : pods) {
      checkPodOnNode(pod, name, labels, taints);
      KubeMatching.requests(pod.spec()).forEach((r, a) -> used.merge(r, a, BigDecimal::add));
    }
    checkFits(name, used, allocatable);
  }

  /**
   * The priced offering exists, is available and costs {@code pricePerHour}; no offering of any
   * instance-type option that the NodePool and every pod on the claim allow is cheaper. Where a
   * pod's topology (zone spread, zonal pod affinity) or preferences depend on a label, candidates
   * must keep the claim's value of it.
   */
  private void checkOffering(JsonNode claim, JsonNode pool, InstanceType type, Map<String, String> labels, List<ScenarioPod> pods) {
    String name = claim.path("name").asText();
    BigDecimal price = claim.path("pricePerHour").decimalValue();
    List<String> options = new ArrayList<>();
    claim.path("instanceTypeOptions").forEach(o -> options.add(o.asText()));
    if (!options.contains(type.name())) {
      violation(name + ": instanceType " + type.name() + " is not among instanceTypeOptions");
    }
    Offering chosen =
        type.offerings().stream()
            .filter(o -> o.available() && o.zone().equals(claim.path("zone").asText()) && o.capacityType().equals(claim.path("capacityType").asText()))
            .findFirst()
            .orElse(null);
    if (chosen == null) {
      violation(name + ": " + type.name() + " has no available offering " + claim.path("capacityType") + " in " + claim.path("zone"));
      return;
    }
    if (price.subtract(BigDecimal.valueOf(chosen.price())).abs().compareTo(PRICE_TOLERANCE) > 0) {
      violation(name + ": pricePerHour " + price + " is not the offering's " + chosen.price());
    }
    Set<String> pinned = pinnedKeys(pods);
    for (String option : options) {
      InstanceType candidate = CATALOGUE.get(option);
      if (candidate == null) {
        violation(name + ": instanceTypeOption " + option + " is not in the catalogue");
        continue;
      }
      for (Offering offering : candidate.offerings()) {
        if (!offering.available() || offering.price() >= chosen.price() - 1e-12) {
          continue;
        }
        Map<String, String> candidateLabels = new HashMap<>(labels);
        candidateLabels.keySet().removeAll(type.requirements().labels().keySet());
        candidateLabels.putAll(candidate.requirements().labels());
        candidateLabels.put(Labels.ZONE, offering.zone());
        candidateLabels.put(Labels.CAPACITY_TYPE, offering.capacityType());
        boolean keepsPinned = pinned.stream().allMatch(k -> Objects.equals(candidateLabels.get(k), labels.get(k)));
        if (keepsPinned
            && poolRequirementsHold(pool, candidate, candidateLabels)
            && pods.stream().allMatch(p -> KubeMatching.podFitsNodeLabels(p.spec(), candidateLabels) && volumeTopologyHolds(p, candidateLabels))) {
          violation(
              name + ": priced at " + type.name() + " " + chosen + " but option " + option + " " + offering + " is compatible and cheaper");
          return;
        }
      }
    }
  }

  /** Labels whose value a pod's topology or preferences tie to the claim's choice. */
  private static Set<String> pinnedKeys(List<ScenarioPod> pods) {
    Set<String> pinned = new HashSet<>();
    for (ScenarioPod pod : pods) {
      JsonNode spec = pod.spec();
      spec.path("topologySpreadConstraints").forEach(c -> pinned.add(c.path("topologyKey").asText()));
      for (String kind : List.of("podAffinity", "podAntiAffinity")) {
        spec.at("/affinity/" + kind + "/requiredDuringSchedulingIgnoredDuringExecution").forEach(t -> pinned.add(t.path("topologyKey").asText()));
        spec.at("/affinity/" + kind + "/preferredDuringSchedulingIgnoredDuringExecution")
            .forEach(t -> pinned.add(t.at("/podAffinityTerm/topologyKey").asText()));
      }
      spec.at("/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution")
          .forEach(t -> t.at("/preference/matchExpressions").forEach(e -> pinned.add(e.path("key").asText())));
    }
    pinned.remove(Labels.HOSTNAME);
    return pinned;
  }

  /** The NodePool's requirements hold on the labels, for every key the node or instance type defines. */
  private static boolean poolRequirementsHold(JsonNode pool, InstanceType type, Map<String, String> labels) {
    for (JsonNode requirement : pool.at("/spec/template/spec/requirements")) {
      String key = requirement.path("key").asText();
      boolean defined = labels.containsKey(key) || type.requirements().has(key) || Labels.WELL_KNOWN.contains(key);
      if (defined && !KubeMatching.nodeRequirementHolds(requirement, labels)) {
        return false;
      }
    }
    return true;
  }

  private void checkLabels(JsonNode claim, JsonNode pool, InstanceType type, Map<String, String> labels) {
    String name = claim.path("name").asText();
    ScenarioSnapshot.strings(pool.at("/spec/template/metadata/labels"))
        .forEach(
            (key, value) -> {
              if (!value.equals(labels.get(key))) {
                violation(name + ": NodePool template label " + key + "=" + value + " missing (has " + labels.get(key) + ")");
              }
            });
    Map<String, String> typeLabels = type.requirements().labels();
    Map<String, String> wellKnown = new LinkedHashMap<>();
    wellKnown.put(Labels.ZONE, claim.path("zone").asText());
    wellKnown.put(Labels.INSTANCE_TYPE, type.name());
    wellKnown.put(Labels.CAPACITY_TYPE, claim.path("capacityType").asText());
    wellKnown.put(Labels.NODE_POOL, claim.path("nodePool").asText());
    wellKnown.put(Labels.ARCH, typeLabels.get(Labels.ARCH));
    wellKnown.put(Labels.OS, typeLabels.get(Labels.OS));
    wellKnown.put(Labels.HOSTNAME, name);
    wellKnown.forEach(
        (key, value) -> {
          if (value == null || !value.equals(labels.get(key))) {
            violation(name + ": label " + key + " is " + labels.get(key) + ", expected " + value);
          }
        });
    if (!poolRequirementsHold(pool, type, labels)) {
      violation(name + ": labels " + labels + " break NodePool " + pool.at("/metadata/name").asText() + "'s requirements");
    }
  }

  // ---- existing nodes ----

  private void checkExistingNode(JsonNode entry) {
    String name = entry.path("name").asText();
    JsonNode node = snapshot.nodes.get(name);
    if (node == null) {
      violation("existing node " + name + " is not a Node of the snapshot");
      return;
    }
    Map<String, String> labels = nodeLabels(name);
    JsonNode taints = node.at("/spec/taints");
    Map<String, BigDecimal> used = new TreeMap<>();
    for (ScenarioPod bound : snapshot.boundTo(name)) {
      KubeMatching.requests(bound.spec()).forEach((r, a) -> used.merge(r, a, BigDecimal::add));
    }
    boolean cordoned = node.at("/spec/unschedulable").asBoolean(false);
    for (ScenarioPod pod : podsOf(entry)) {
      world.add(new Placement(pod, name, labels, true));
      checkPodOnNode(pod, name, labels, taints);
      if (cordoned && KubeMatching.repels(CORDON, pod.spec())) {
        violation(pod.key() + " on " + name + ": the node is cordoned (spec.unschedulable) and the pod does not tolerate " + CORDON);
      }
      KubeMatching.requests(pod.spec()).forEach((r, a) -> used.merge(r, a, BigDecimal::add));
    }
    checkFits(name, used, KubeMatching.quantities(node.at("/status/allocatable")));
  }

  // ---- a pod's own hard constraints against its node ----

  private void checkPodOnNode(ScenarioPod pod, String node, Map<String, String> labels, JsonNode taints) {
    if (!KubeMatching.podFitsNodeLabels(pod.spec(), labels)) {
      violation(pod.key() + " on " + node + ": nodeSelector/required node affinity does not match labels " + labels);
    }
    for (JsonNode taint : taints) {
      if (KubeMatching.repels(taint, pod.spec())) {
        violation(pod.key() + " on " + node + ": does not tolerate taint " + taint);
      }
    }
    if (!volumeTopologyHolds(pod, labels)) {
      violation(pod.key() + " on " + node + ": a volume cannot attach in zone " + labels.get(Labels.ZONE));
    }
  }

  /**
   * Every PersistentVolumeClaim of the pod can be used on a node with these labels: a bound claim's
   * volume node affinity holds, and an unbound claim's StorageClass allows the topology.
   */
  private boolean volumeTopologyHolds(ScenarioPod pod, Map<String, String> labels) {
    List<String> claimNames = new ArrayList<>();
    Map<String, String> templateClasses = new HashMap<>();
    pod.spec().path("volumes").forEach(v -> {
      if (v.has("persistentVolumeClaim")) {
        claimNames.add(v.at("/persistentVolumeClaim/claimName").asText());
      }
    });
    for (JsonNode template : pod.claimTemplates()) {
      String claimName = template.at("/metadata/name").asText() + "-" + pod.workload() + "-" + pod.ordinal();
      claimNames.add(claimName);
      templateClasses.put(claimName, template.at("/spec/storageClassName").asText(null));
    }
    for (String claimName : claimNames) {
      JsonNode claim = snapshot.claims.get(pod.namespace() + "/" + claimName);
      String volumeName = claim == null ? null : claim.at("/spec/volumeName").asText(null);
      if (volumeName != null && snapshot.volumes.containsKey(volumeName)) {
        JsonNode terms = snapshot.volumes.get(volumeName).at("/spec/nodeAffinity/required/nodeSelectorTerms");
        if (!terms.isEmpty() && !anyTermHolds(terms, labels)) {
          return false;
        }
        continue;
      }
      String className = claim == null ? templateClasses.get(claimName) : claim.at("/spec/storageClassName").asText(null);
      JsonNode storageClass = className == null ? null : snapshot.storageClasses.get(className);
      if (storageClass != null && !storageClass.path("allowedTopologies").isEmpty() && !allowedTopologyHolds(storageClass.path("allowedTopologies"), labels)) {
        return false;
      }
    }
    return true;
  }

  private static boolean anyTermHolds(JsonNode terms, Map<String, String> labels) {
    for (JsonNode term : terms) {
      if (KubeMatching.allHold(term.path("matchExpressions"), labels)) {
        return true;
      }
    }
    return false;
  }

  private static boolean allowedTopologyHolds(JsonNode topologies, Map<String, String> labels) {
    for (JsonNode term : topologies) {
      boolean holds = true;
      for (JsonNode expression : term.path("matchLabelExpressions")) {
        String value = labels.get(expression.path("key").asText());
        boolean listed = false;
        for (JsonNode v : expression.path("values")) {
          listed |= v.asText().equals(value);
        }
        holds &= listed;
      }
      if (holds) {
        return true;
      }
    }
    return false;
  }

  private void checkFits(String node, Map<String, BigDecimal> used, Map<String, BigDecimal> allocatable) {
    used.forEach(
        (resource, amount) -> {
          if (amount.signum() > 0 && amount.compareTo(allocatable.getOrDefault(resource, BigDecimal.ZERO)) > 0) {
            violation(node + ": " + resource + " requested " + amount.stripTrailingZeros().toPlainString() + " (pods + DaemonSets) exceeds allocatable " + allocatable.get(resource));
          }
        });
  }

  // ---- constraints across the whole plan ----

  /** Required pod affinity and anti-affinity, for placed pods and for bound pods against placed ones. */
  private void checkInterPodAffinity() {
    Map<String, Map<String, List<Placement>>> byDomain = new HashMap<>();
    for (Placement placement : world) {
      for (JsonNode term : requiredTerms(placement.pod(), "podAffinity")) {
        checkAffinityTerm(placement, term, byDomain, true);
      }
      for (JsonNode term : requiredTerms(placement.pod(), "podAntiAffinity")) {
        checkAffinityTerm(placement, term, byDomain, false);
      }
    }
  }

  private static JsonNode requiredTerms(ScenarioPod pod, String kind) {
    return pod.spec().at("/affinity/" + kind + "/requiredDuringSchedulingIgnoredDuringExecution");
  }

  private void checkAffinityTerm(Placement owner, JsonNode term, Map<String, Map<String, List<Placement>>> byDomain, boolean affinity) {
    String key = term.path("topologyKey").asText();
    String domain = owner.nodeLabels().get(key);
    if (!affinity && !owner.placed() && domain == null) {
      return;
    }
    List<Placement> sameDomain =
        domain == null
            ? List.of()
            : byDomain.computeIfAbsent(key, k -> groupBy(k)).getOrDefault(domain, List.of());
    List<Placement> matching = sameDomain.stream().filter(p -> p != owner && termSelects(owner.pod(), term, p.pod())).toList();
    if (affinity) {
      if (owner.placed() && matching.isEmpty() && !(termSelects(owner.pod(), term, owner.pod()) && world.stream().noneMatch(p -> p != owner && termSelects(owner.pod(), term, p.pod())))) {
        violation(owner.pod().key() + " on " + owner.node() + ": required pod affinity " + term + " has no matching pod in " + key + "=" + domain);
      }
      return;
    }
    for (Placement other : matching) {
      if (owner.placed() || other.placed()) {
        violation(owner.pod().key() + " on " + owner.node() + ": required anti-affinity over " + key + " is broken by " + other.pod().key() + " on " + other.node());
      }
    }
  }

  private Map<String, List<Placement>> groupBy(String key) {
    Map<String, List<Placement>> groups = new HashMap<>();
    for (Placement placement : world) {
      String value = placement.nodeLabels().get(key);
      if (value != null) {
        groups.computeIfAbsent(value, v -> new ArrayList<>()).add(placement);
      }
    }
    return groups;
  }

  /** A pod affinity term selects a pod: namespace in the term's namespaces, labels matched. */
  private static boolean termSelects(ScenarioPod owner, JsonNode term, ScenarioPod pod) {
    boolean namespaceMatches;
    if (term.path("namespaces").size() > 0) {
      namespaceMatches = false;
      for (JsonNode ns : term.path("namespaces")) {
        namespaceMatches |= ns.asText().equals(pod.namespace());
      }
    } else {
      namespaceMatches = (term.has("namespaceSelector") && term.path("namespaceSelector").isEmpty()) || owner.namespace().equals(pod.namespace());
    }
    return namespaceMatches && KubeMatching.selects(term.path("labelSelector"), pod.labels());
  }

  /**
   * Zone spread with {@code DoNotSchedule}: for every group of placed pods sharing a constraint, each
   * zone that received one of them has at most {@code maxSkew} more matching pods than the emptiest
   * eligible zone. Eligible zones are those of NodePools the pod tolerates, and of existing nodes,
   * that the pod's node affinity allows; only pods on such nodes count (nodeAffinityPolicy Honor).
   */
  private void checkZoneSpread() {
    Map<String, List<Placement>> groups = new LinkedHashMap<>();
    for (Placement placement : world) {
      if (!placement.placed()) {
        continue;
      }
      for (JsonNode constraint : placement.pod().spec().path("topologySpreadConstraints")) {
        if (constraint.path("topologyKey").asText().equals(Labels.ZONE) && constraint.path("whenUnsatisfiable").asText().equals("DoNotSchedule")) {
          groups.computeIfAbsent(placement.pod().namespace() + " " + constraint, k -> new ArrayList<>()).add(placement);
        }
      }
    }
    groups.values().forEach(this::checkZoneSpreadGroup);
  }

  private void checkZoneSpreadGroup(List<Placement> group) {
    ScenarioPod first = group.getFirst().pod();
    JsonNode constraint = null;
    for (JsonNode c : first.spec().path("topologySpreadConstraints")) {
      if (c.path("topologyKey").asText().equals(Labels.ZONE) && c.path("whenUnsatisfiable").asText().equals("DoNotSchedule")) {
        constraint = c;
      }
    }
    Objects.requireNonNull(constraint);
    Set<String> domains = eligibleZones(first.spec());
    Map<String, Integer> counts = new TreeMap<>();
    domains.forEach(z -> counts.put(z, 0));
    for (Placement placement : world) {
      String zone = placement.nodeLabels().get(Labels.ZONE);
      if (zone != null
          && placement.pod().namespace().equals(first.namespace())
          && KubeMatching.selects(constraint.path("labelSelector"), placement.pod().labels())
          && KubeMatching.podFitsNodeLabels(first.spec(), placement.nodeLabels())) {
        counts.merge(zone, 1, Integer::sum);
      }
    }
    int min = domains.stream().mapToInt(counts::get).min().orElse(0);
    int maxSkew = constraint.path("maxSkew").asInt(1);
    Set<String> reported = new HashSet<>();
    for (Placement placement : group) {
      String zone = placement.nodeLabels().get(Labels.ZONE);
      if (!domains.contains(zone)) {
        violation(placement.pod().key() + ": placed in zone " + zone + " outside its eligible zones " + domains);
      } else if (counts.get(zone) - min > maxSkew && reported.add(zone)) {
        violation(first.key() + "'s zone spread (maxSkew " + maxSkew + ") is broken: counts " + counts);
      }
    }
  }

  private Set<String> eligibleZones(JsonNode podSpec) {
    Set<String> zones = new TreeSet<>();
    for (JsonNode pool : snapshot.nodePools.values()) {
      if (KubeMatching.anyRepels(pool.at("/spec/template/spec/taints"), podSpec)) {
        continue;
      }
      for (String zone : CATALOGUE_ZONES) {
        Map<String, String> zoneOnly = Map.of(Labels.ZONE, zone);
        boolean poolAllows = true;
        for (JsonNode requirement : pool.at("/spec/template/spec/requirements")) {
          if (requirement.path("key").asText().equals(Labels.ZONE)) {
            poolAllows &= KubeMatching.nodeRequirementHolds(requirement, zoneOnly);
          }
        }
        if (poolAllows && KubeMatching.podFitsNodeLabels(podSpec, zoneOnly, Labels.ZONE::equals)) {
          zones.add(zone);
        }
      }
    }
    for (String node : snapshot.nodes.keySet()) {
      Map<String, String> labels = nodeLabels(node);
      if (labels.containsKey(Labels.ZONE) && KubeMatching.podFitsNodeLabels(podSpec, labels)) {
        zones.add(labels.get(Labels.ZONE));
      }
    }
    return zones;
  }

  /** No two pods on one node claim the same host port and protocol. */
  private void checkHostPorts() {
    Map<String, Map<String, Placement>> portsByNode = new HashMap<>();
    for (Placement placement : world) {
      for (JsonNode container : placement.pod().spec().path("containers")) {
        for (JsonNode port : container.path("ports")) {
          if (port.path("hostPort").asInt(0) == 0) {
            continue;
          }
          String hostPort = port.path("hostPort").asInt() + "/" + port.path("protocol").asText("TCP");
          Placement previous = portsByNode.computeIfAbsent(placement.node(), n -> new HashMap<>()).putIfAbsent(hostPort, placement);
          if (previous != null && (previous.placed() || placement.placed())) {
            violation(placement.node() + ": host port " + hostPort + " used by " + previous.pod().key() + " and " + placement.pod().key());
          }
        }
      }
    }
  }

  /**
   * A NodePool's {@code limits} bound the capacity of its existing nodes plus the new NodeClaims
   * (each counted at its chosen instance type's capacity).
   */
  private void checkNodePoolLimits() {
    for (JsonNode pool : snapshot.nodePools.values()) {
      String poolName = pool.at("/metadata/name").asText();
      Map<String, BigDecimal> limits = KubeMatching.quantities(pool.at("/spec/limits"));
      if (limits.isEmpty()) {
        continue;
      }
      Map<String, BigDecimal> total = new TreeMap<>();
      for (JsonNode node : snapshot.nodes.values()) {
        if (poolName.equals(node.at("/metadata/labels").path(Labels.NODE_POOL).asText(null))) {
          JsonNode capacity = node.at("/status/capacity").isMissingNode() ? node.at("/status/allocatable") : node.at("/status/capacity");
          KubeMatching.quantities(capacity).forEach((r, a) -> total.merge(r, a, BigDecimal::add));
        }
      }
      for (JsonNode claim : plan.get("nodeClaims")) {
        InstanceType type = CATALOGUE.get(claim.path("instanceType").asText());
        if (poolName.equals(claim.path("nodePool").asText()) && type != null) {
          type.capacity().toMilli().forEach((r, milli) -> total.merge(r, BigDecimal.valueOf(milli).divide(THOUSAND), BigDecimal::add));
        }
      }
      limits.forEach(
          (resource, limit) -> {
            BigDecimal used = total.getOrDefault(resource, BigDecimal.ZERO);
            if (used.compareTo(limit) > 0) {
              violation("NodePool " + poolName + ": " + resource + " " + used.toPlainString() + " exceeds its limit " + limit.toPlainString());
            }
          });
    }
  }

  private void checkSummary(int placed) {
    JsonNode summary = plan.get("summary");
    expectEqual("summary.pendingPods", summary.path("pendingPods").asInt(-1), snapshot.pendingPods.size());
    expectEqual("summary.scheduledPods", summary.path("scheduledPods").asInt(-1), placed);
    expectEqual("summary.newNodeClaims", summary.path("newNodeClaims").asInt(-1), plan.get("nodeClaims").size());
    BigDecimal sum = BigDecimal.ZERO;
    for (JsonNode claim : plan.get("nodeClaims")) {
      sum = sum.add(claim.path("pricePerHour").decimalValue());
    }
    BigDecimal cost = summary.path("costPerHour").decimalValue();
    if (cost.subtract(sum).abs().compareTo(PRICE_TOLERANCE) > 0) {
      violation("summary.costPerHour " + cost + " is not the sum of pricePerHour " + sum);
    }
    BigDecimal lowerBound = summary.path("lowerBoundPerHour").decimalValue();
    if (lowerBound.signum() < 0 || lowerBound.compareTo(cost.add(PRICE_TOLERANCE)) > 0) {
      violation("summary.lowerBoundPerHour " + lowerBound + " is not within [0, costPerHour " + cost + "]");
    }
    if (!summary.path("solveMillis").canConvertToLong() || summary.path("solveMillis").asLong() < 0) {
      violation("summary.solveMillis " + summary.path("solveMillis") + " is not a non-negative integer");
    }
  }

  private void expectEqual(String field, int actual, int expected) {
    if (actual != expected) {
      violation(field + " is " + actual + ", expected " + expected);
    }
  }

  // ---- helpers ----

  private List<ScenarioPod> podsOf(JsonNode entry) {
    List<ScenarioPod> pods = new ArrayList<>();
    for (JsonNode key : entry.path("pods")) {
      ScenarioPod pod = snapshot.pendingPods.get(key.asText());
      if (pod != null) {
        pods.add(pod);
      }
    }
    return pods;
  }

  private Map<String, String> nodeLabels(String node) {
    JsonNode object = snapshot.nodes.get(node);
    Map<String, String> labels = object == null ? new HashMap<>() : ScenarioSnapshot.strings(object.at("/metadata/labels"));
    labels.putIfAbsent(Labels.HOSTNAME, node);
    return labels;
  }

  private static Set<String> taintSet(JsonNode taints) {
    Set<String> set = new TreeSet<>();
    taints.forEach(t -> set.add(t.path("key").asText() + "=" + t.path("value").asText("") + ":" + t.path("effect").asText()));
    return set;
  }

  private static boolean sameAmounts(Map<String, BigDecimal> a, Map<String, BigDecimal> b) {
    Set<String> keys = new HashSet<>(a.keySet());
    keys.addAll(b.keySet());
    for (String key : keys) {
      if (a.getOrDefault(key, BigDecimal.ZERO).compareTo(b.getOrDefault(key, BigDecimal.ZERO)) != 0) {
        return false;
      }
    }
    return true;
  }
}
