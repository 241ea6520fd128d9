package sh.karpenter.api.validation;

import static sh.karpenter.api.validation.CelRules.all;
import static sh.karpenter.api.validation.CelRules.keys;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.AwsTags;
import sh.karpenter.api.validation.CelRules.Outcome;

/**
 * Java evaluations of the CEL rules of the EC2NodeClass CRD, keyed by their exact text like
 * {@link CelRules}. They use CEL's {@code has}, {@code all}, {@code exists}, {@code filter},
 * {@code size}, {@code matches}, {@code find}, {@code split}, {@code startsWith}, list indexing and
 * {@code in}; the only evaluation error the schema leaves possible is indexing past the end of a split
 * alias ({@code windows2019} without {@code @}), reported with the API server's message.
 */
final class Ec2NodeClassCelRules {
  private Ec2NodeClassCelRules() {}

  private static final Pattern ALIAS_FORMAT = Pattern.compile("^[a-zA-Z0-9]+@.+$");
  private static final Pattern ALIAS_FAMILY = Pattern.compile("^[^@]+");
  private static final List<String> ALIAS_FAMILIES = List.of("al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025");
  private static final List<String> WINDOWS_ALIAS_FAMILIES = List.of("windows2019", "windows2022", "windows2025");

  static final Map<String, Function<JsonNode, Outcome>> RULES = rules();

  private static Map<String, Function<JsonNode, Outcome>> rules() {
    Map<String, Function<JsonNode, Outcome>> rules = new HashMap<>();
    // spec
    rules.put("(has(self.role) && !has(self.instanceProfile)) || (!has(self.role) && has(self.instanceProfile))",
        self -> Outcome.of(has(self, "role") != has(self, "instanceProfile")));
    for (String family : AMIFamily.WITH_ALIAS) {
      String alias = family.toLowerCase(Locale.ROOT);
      rules.put("!has(self.amiFamily) || (self.amiSelectorTerms.exists(x, has(x.alias) && x.alias.find('^[^@]+') == '" + alias + "')"
              + " ? (self.amiFamily == 'Custom' || self.amiFamily == '" + family + "') : true)",
          self -> {
            if (!has(self, "amiFamily")) {
              return Outcome.TRUE;
            }
            boolean usesAlias = exists(self.path("amiSelectorTerms"), x -> has(x, "alias") && aliasFamily(x.get("alias").asText()).equals(alias));
            String amiFamily = self.get("amiFamily").asText();
            return Outcome.of(!usesAlias || amiFamily.equals(AMIFamily.CUSTOM) || amiFamily.equals(family));
          });
    }
    rules.put("self.amiSelectorTerms.exists(x, has(x.alias)) ? true : has(self.amiFamily)",
        self -> Outcome.of(exists(self.path("amiSelectorTerms"), x -> has(x, "alias")) || has(self, "amiFamily")));

    // amiSelectorTerms
    rules.put("self.all(x, has(x.tags) || has(x.id) || has(x.name) || has(x.alias) || has(x.ssmParameter))",
        self -> all(self.elements(), x -> Outcome.of(hasAny(x, "tags", "id", "name", "alias", "ssmParameter"))));
    rules.put("!self.exists(x, has(x.id) && (has(x.alias) || has(x.tags) || has(x.name) || has(x.owner)))",
        self -> Outcome.of(!exists(self, x -> has(x, "id") && hasAny(x, "alias", "tags", "name", "owner"))));
    rules.put("!self.exists(x, has(x.alias) && (has(x.id) || has(x.tags) || has(x.name) || has(x.owner)))",
        self -> Outcome.of(!exists(self, x -> has(x, "alias") && hasAny(x, "id", "tags", "name", "owner"))));
    rules.put("!(self.exists(x, has(x.alias)) && self.size() != 1)",
        self -> Outcome.of(!(exists(self, x -> has(x, "alias")) && self.size() != 1)));
    rules.put("self.matches('^[a-zA-Z0-9]+@.+$')", self -> Outcome.of(ALIAS_FORMAT.matcher(self.asText()).find()));
    rules.put("self.split('@')[0] in ['al2','al2023','bottlerocket','windows2019','windows2022','windows2025']",
        self -> Outcome.of(ALIAS_FAMILIES.contains(split(self)[0])));
    rules.put("self.split('@')[0] in ['windows2019','windows2022','windows2025'] ? self.split('@')[1] == 'latest' : true",
        self -> {
          String[] parts = split(self);
          if (!WINDOWS_ALIAS_FAMILIES.contains(parts[0])) {
            return Outcome.TRUE;
          }
          return parts.length < 2 ? Outcome.error("index out of bounds: 1") : Outcome.of(parts[1].equals("latest"));
        });

    // tags of selector terms, and spec.tags
    rules.put("self.all(k, k != '' && self[k] != '')",
        self -> all(keys(self), k -> Outcome.of(!k.asText().isEmpty() && !self.get(k.asText()).asText().isEmpty())));
    rules.put("self.all(k, k != '')", self -> all(keys(self), k -> Outcome.of(!k.asText().isEmpty())));
    rules.put("self.all(k, k !='eks:eks-cluster-name')", self -> noKey(self, AwsTags.EKS_CLUSTER_NAME));
    rules.put("self.all(k, !k.startsWith('kubernetes.io/cluster') )",
        self -> all(keys(self), k -> Outcome.of(!k.asText().startsWith("kubernetes.io/cluster"))));
    rules.put("self.all(k, k != 'karpenter.sh/nodepool')", self -> noKey(self, AwsTags.NODE_POOL));
    rules.put("self.all(k, k !='karpenter.sh/nodeclaim')", self -> noKey(self, AwsTags.NODE_CLAIM));
    rules.put("self.all(k, k !='karpenter.k8s.aws/ec2nodeclass')", self -> noKey(self, AwsTags.NODE_CLASS));

    // blockDeviceMappings
    rules.put("self.filter(x, has(x.rootVolume)?x.rootVolume==true:false).size() <= 1",
        self -> Outcome.of(count(self, x -> has(x, "rootVolume") && x.get("rootVolume").asBoolean()) <= 1));
    rules.put("has(self.snapshotID) || has(self.volumeSize)", self -> Outcome.of(hasAny(self, "snapshotID", "volumeSize")));
    rules.put("!has(self.volumeInitializationRate) || (has(self.snapshotID) && self.snapshotID != '')",
        self -> Outcome.of(!has(self, "volumeInitializationRate") || (has(self, "snapshotID") && !self.get("snapshotID").asText().isEmpty())));

    // capacityReservationSelectorTerms
    rules.put("self.all(x, has(x.tags) || has(x.id) || has(x.instanceMatchCriteria))",
        self -> all(self.elements(), x -> Outcome.of(hasAny(x, "tags", "id", "instanceMatchCriteria"))));
    rules.put("!self.all(x, has(x.id) && (has(x.tags) || has(x.ownerID) || has(x.instanceMatchCriteria)))",
        self -> Outcome.of(!every(self, x -> has(x, "id") && hasAny(x, "tags", "ownerID", "instanceMatchCriteria"))));

    // connectionTracking, placementGroupSelector
    rules.put("has(self.tcpEstablishedTimeout) || has(self.udpStreamTimeout) || has(self.udpTimeout)",
        self -> Outcome.of(hasAny(self, "tcpEstablishedTimeout", "udpStreamTimeout", "udpTimeout")));
    rules.put("has(self.name) || has(self.id)", self -> Outcome.of(hasAny(self, "name", "id")));
    rules.put("!(has(self.name) && has(self.id))", self -> Outcome.of(!(has(self, "name") && has(self, "id"))));

    // networkInterfaces
    rules.put("self.size() == 0 || self.exists(x, x.deviceIndex == 0 && x.networkCardIndex == 0 && x.interfaceType == 'interface')",
        self -> Outcome.of(self.isEmpty() || exists(self, x ->
            x.path("deviceIndex").asLong(-1) == 0 && x.path("networkCardIndex").asLong(-1) == 0 && x.path("interfaceType").asText().equals("interface"))));
    rules.put("self.all(x, self.filter(y, x.networkCardIndex == y.networkCardIndex && x.deviceIndex == y.deviceIndex).size() == 1"
            + " && (x.interfaceType != 'efa-only' || self.filter(y, x.networkCardIndex == y.networkCardIndex && y.interfaceType == 'efa-only').size() == 1))",
        self -> all(self.elements(), x -> {
          long sameSlot = count(self, y -> same(x, y, "networkCardIndex") && same(x, y, "deviceIndex"));
          boolean efaOnly = x.path("interfaceType").asText().equals("efa-only");
          long efaOnCard = count(self, y -> same(x, y, "networkCardIndex") && y.path("interfaceType").asText().equals("efa-only"));
          return Outcome.of(sameSlot == 1 && (!efaOnly || efaOnCard == 1));
        }));

    // subnetSelectorTerms, securityGroupSelectorTerms
    rules.put("self.size() != 0", self -> Outcome.of(!self.isEmpty()));
    rules.put("self.all(x, has(x.tags) || has(x.id))", self -> all(self.elements(), x -> Outcome.of(hasAny(x, "tags", "id"))));
    rules.put("!self.all(x, has(x.id) && has(x.tags))", self -> Outcome.of(!every(self, x -> has(x, "id") && has(x, "tags"))));
    rules.put("self.all(x, has(x.tags) || has(x.id) || has(x.name))", self -> all(self.elements(), x -> Outcome.of(hasAny(x, "tags", "id", "name"))));
    rules.put("!self.all(x, has(x.id) && (has(x.tags) || has(x.name)))",
        self -> Outcome.of(!every(self, x -> has(x, "id") && hasAny(x, "tags", "name"))));
    rules.put("!self.all(x, has(x.name) && (has(x.tags) || has(x.id)))",
        self -> Outcome.of(!every(self, x -> has(x, "name") && hasAny(x, "tags", "id"))));
    return Map.copyOf(rules);
  }

  /** CEL's {@code has(x.field)}: the field is present (nulls are pruned before rules run). */
  private static boolean has(JsonNode x, String field) {
    return x.isObject() && x.has(field);
  }

  private static boolean hasAny(JsonNode x, String... fields) {
    for (String field : fields) {
      if (has(x, field)) {
        return true;
      }
    }
    return false;
  }

  private static boolean exists(JsonNode list, Predicate<JsonNode> predicate) {
    for (JsonNode element : list) {
      if (predicate.test(element)) {
        return true;
      }
    }
    return false;
  }

  /** CEL's {@code all()} for a predicate that cannot err; true for an empty list, as in CEL. */
  private static boolean every(JsonNode list, Predicate<JsonNode> predicate) {
    for (JsonNode element : list) {
      if (!predicate.test(element)) {
        return false;
      }
    }
    return true;
  }

  private static long count(JsonNode list, Predicate<JsonNode> predicate) {
    long count = 0;
    for (JsonNode element : list) {
      if (predicate.test(element)) {
        count++;
      }
    }
    return count;
  }

  /** {@code x.field == y.field} for the integer fields of network interfaces. */
  private static boolean same(JsonNode x, JsonNode y, String field) {
    return x.path(field).isNumber() && y.path(field).isNumber() && x.path(field).asLong() == y.path(field).asLong();
  }

  private static Outcome noKey(JsonNode map, String key) {
    return all(keys(map), k -> Outcome.of(!k.asText().equals(key)));
  }

  /** CEL's {@code split('@')}: every part, empty ones included. */
  private static String[] split(JsonNode alias) {
    return alias.asText().split("@", -1);
  }

  /** CEL's {@code alias.find('^[^@]+')}: the text before the first {@code @}, or empty. */
  private static String aliasFamily(String alias) {
    Matcher matcher = ALIAS_FAMILY.matcher(alias);
    return matcher.find() ? matcher.group() : "";
  }
}
