package sh.karpenter.providers.aws.amifamily;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.api.aws.v1.AMI;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.AMISelectorTerm;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassSpec;
import sh.karpenter.api.aws.v1.KubeletConfiguration;
import sh.karpenter.api.aws.v1.MetadataOptions;
import sh.karpenter.api.aws.v1.ParsedKubeletConfig;
import sh.karpenter.api.aws.v1.SecurityGroup;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Upstream's {@code amifamily.DefaultResolver}: the launch templates a launch needs. Each candidate
 * instance type goes to the first of the NodeClass's AMIs whose requirements it meets; within an AMI
 * the types are grouped by max pods (their pod capacity, unless the kubelet configuration sets
 * {@code maxPods}), and each group gets one template whose user data carries that value.
 */
public final class Resolver {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private Resolver() {}

  /**
   * @param labels the node's labels (the LaunchRequest's); the capacity type and, except for Custom,
   *     {@code karpenter.sh/do-not-sync-taints=true} are added, and labels the kubelet may not set
   *     are removed
   * @param taints the NodeClaim's taints then startup taints
   * @param tags the launch's tags
   * @throws IllegalArgumentException naming the problem: no AMIs in the status, no candidate meets
   *     an AMI's requirements, no security groups, a kubelet configuration that does not parse,
   *     user data that does not merge, an unsupported family
   */
  public static List<ResolvedLaunchTemplate> resolve(
      EC2NodeClass nodeClass,
      ClusterInfo cluster,
      List<InstanceType> instanceTypes,
      String capacityType,
      Map<String, String> labels,
      List<Taint> taints,
      Map<String, String> tags) {
    String nodeClassName = nodeClass.getMetadata().getName();
    EC2NodeClassSpec spec = nodeClass.getSpec() == null ? new EC2NodeClassSpec() : nodeClass.getSpec();
    AmiFamily family = AmiFamily.of(nodeClass.amiFamily());
    List<AMI> amis = nodeClass.getStatus() == null || nodeClass.getStatus().getAmis() == null ? List.of() : nodeClass.getStatus().getAmis();
    if (amis.isEmpty()) {
      throw new IllegalArgumentException("EC2NodeClass " + nodeClassName + ": no amis exist given constraints (status.amis is empty)");
    }
    List<SecurityGroup> securityGroups = nodeClass.getStatus().getSecurityGroups() == null ? List.of() : nodeClass.getStatus().getSecurityGroups();
    if (securityGroups.isEmpty()) {
      throw new IllegalArgumentException("EC2NodeClass " + nodeClassName + ": no security groups are present in the status");
    }
    Map<String, List<InstanceType>> byAmi = mapToInstanceTypes(instanceTypes, amis);
    if (byAmi.isEmpty()) {
      throw new IllegalArgumentException("EC2NodeClass " + nodeClassName + ": no instance types satisfy requirements of amis "
          + amis.stream().map(AMI::getId).distinct().toList());
    }
    KubeletConfiguration kubeletConfiguration = spec.getKubelet() == null ? new KubeletConfiguration(Map.of()) : spec.getKubelet();
    ParsedKubeletConfig parsed;
    try {
      parsed = kubeletConfiguration.parse();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("EC2NodeClass " + nodeClassName + ": parsing kubelet configuration: " + e.getMessage(), e);
    }
    Map<String, String> nodeLabels = new LinkedHashMap<>(labels);
    // upstream's NodeClaims carry their NodeClass's name as a label
    nodeLabels.putIfAbsent(AwsLabels.EC2_NODE_CLASS, nodeClassName);
    nodeLabels.put(Labels.CAPACITY_TYPE, capacityType);
    if (!AMIFamily.CUSTOM.equals(family.name())) {
      nodeLabels.put(Labels.DO_NOT_SYNC_TAINTS, "true");
    }
    nodeLabels = rejectForbiddenLabels(nodeLabels);
    List<Taint> allTaints = new ArrayList<>(taints);
    Taint unregistered = Taint.of(TaintKeys.UNREGISTERED, Taint.Effect.NoExecute);
    if (allTaints.stream().noneMatch(unregistered::matches)) {
      allTaints.add(unregistered);
    }
    List<BlockDeviceMapping> blockDevices =
        spec.getBlockDeviceMappings() == null || spec.getBlockDeviceMappings().isEmpty() ? family.defaultBlockDeviceMappings() : spec.getBlockDeviceMappings();
    MetadataOptions metadataOptions = metadataOptions(spec.getMetadataOptions());
    boolean defaultMountPaths = Bottlerocket.supportsDefaultBind(amiVersion(spec, amis));
    List<String> securityGroupIds = securityGroups.stream().map(SecurityGroup::getId).toList();

    List<ResolvedLaunchTemplate> resolved = new ArrayList<>();
    for (Map.Entry<String, List<InstanceType>> ami : byAmi.entrySet()) {
      Map<Integer, List<InstanceType>> byMaxPods = new LinkedHashMap<>();
      for (InstanceType type : ami.getValue()) {
        int maxPods = parsed.maxPodsValue().orElse((int) (type.capacity().podsMilli() / 1000));
        byMaxPods.computeIfAbsent(maxPods, k -> new ArrayList<>()).add(type);
      }
      for (Map.Entry<Integer, List<InstanceType>> group : byMaxPods.entrySet()) {
        Map<String, JsonNode> raw = new LinkedHashMap<>(kubeletConfiguration.fields());
        ParsedKubeletConfig kubelet = withStaticReserved(parsed, raw);
        if (kubelet.maxPodsValue().isEmpty()) {
          kubelet = withMaxPods(kubelet, group.getKey());
          raw.put("maxPods", JSON.valueToTree(group.getKey()));
        }
        if (cluster.kubeDnsIp() != null && (kubelet.clusterDNS() == null || kubelet.clusterDNS().isEmpty())) {
          kubelet = withClusterDns(kubelet, List.of(cluster.kubeDnsIp()));
          raw.put("clusterDNS", JSON.valueToTree(List.of(cluster.kubeDnsIp())));
        }
        BootstrapOptions bootstrap = new BootstrapOptions(
            cluster.name(), cluster.endpoint(), cluster.serviceCidr(), cluster.caBundle(), kubelet, raw, allTaints, nodeLabels,
            spec.getUserData(), spec.getInstanceStorePolicy() == null ? null : spec.getInstanceStorePolicy().toString(), defaultMountPaths);
        String userData;
        try {
          userData = family.userData(bootstrap);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("EC2NodeClass " + nodeClassName + ": user data: " + e.getMessage(), e);
        }
        resolved.add(new ResolvedLaunchTemplate(
            nodeClassName, family.name(), ami.getKey(), userData, blockDevices, metadataOptions, securityGroupIds,
            nodeClass.getStatus().getInstanceProfile(), tags, Boolean.TRUE.equals(spec.getDetailedMonitoring()),
            spec.getAssociatePublicIPAddress(), spec.getIpPrefixCount(), capacityType, cluster.ipv6(), group.getKey(), group.getValue()));
      }
    }
    return resolved;
  }

  /** Upstream's {@code MapToInstanceTypes}: each type to the first AMI whose requirements it is compatible with. */
  static Map<String, List<InstanceType>> mapToInstanceTypes(List<InstanceType> instanceTypes, List<AMI> amis) {
    List<Requirements> amiRequirements = amis.stream().map(Resolver::requirements).toList();
    Map<String, List<InstanceType>> byAmi = new LinkedHashMap<>();
    for (InstanceType type : instanceTypes) {
      for (int i = 0; i < amis.size(); i++) {
        if (type.requirements().isCompatible(amiRequirements.get(i), Set.of())) {
          byAmi.computeIfAbsent(amis.get(i).getId(), k -> new ArrayList<>()).add(type);
          break;
        }
      }
    }
    return byAmi;
  }

  private static Requirements requirements(AMI ami) {
    List<Requirement> requirements = new ArrayList<>();
    if (ami.getRequirements() != null) {
      for (NodeSelectorRequirement r : ami.getRequirements()) {
        requirements.add(Requirement.of(r.getKey(), Operator.parse(r.getOperator()), r.getValues() == null ? List.of() : r.getValues()));
      }
    }
    return Requirements.of(requirements);
  }

  /**
   * The NodeClass's metadata options with the CRD's defaults for what is unset (endpoint enabled,
   * IPv6 disabled, hop limit 1, tokens required).
   */
  public static MetadataOptions metadataOptions(MetadataOptions spec) {
    MetadataOptions options = MetadataOptions.defaults();
    if (spec != null) {
      if (spec.getHttpEndpoint() != null) {
        options.setHttpEndpoint(spec.getHttpEndpoint());
      }
      if (spec.getHttpProtocolIPv6() != null) {
        options.setHttpProtocolIPv6(spec.getHttpProtocolIPv6());
      }
      if (spec.getHttpPutResponseHopLimit() != null) {
        options.setHttpPutResponseHopLimit(spec.getHttpPutResponseHopLimit());
      }
      if (spec.getHttpTokens() != null) {
        options.setHttpTokens(spec.getHttpTokens());
      }
    }
    return options;
  }

  /**
   * Upstream's {@code RejectForbiddenLabels}: drops labels in the {@code kubernetes.io}, {@code
   * k8s.io} and {@code node-restriction.kubernetes.io} domains (and their subdomains), which node
   * admission would refuse from the kubelet.
   */
  static Map<String, String> rejectForbiddenLabels(Map<String, String> labels) {
    Map<String, String> allowed = new LinkedHashMap<>();
    labels.forEach((key, value) -> {
      int slash = key.indexOf('/');
      String domain = slash < 0 ? "" : key.substring(0, slash);
      boolean restricted = false;
      for (String r : List.of("node-restriction.kubernetes.io", "kubernetes.io", "k8s.io")) {
        restricted |= domain.equals(r) || domain.endsWith("." + r);
      }
      if (!restricted) {
        allowed.put(key, value);
      }
    });
    return allowed;
  }

  /** The Bottlerocket version the AMIs are (upstream's {@code resolveAMIVersion}), or "". */
  static String amiVersion(EC2NodeClassSpec spec, List<AMI> amis) {
    List<AMISelectorTerm> terms = spec.getAmiSelectorTerms() == null ? List.of() : spec.getAmiSelectorTerms();
    for (AMISelectorTerm term : terms) {
      if (term.getAlias() != null && term.getAlias().split("@").length == 2) {
        return term.getAlias().split("@")[1];
      }
    }
    for (AMISelectorTerm term : terms) {
      String v = term.getName() == null ? "" : versionFromName(term.getName());
      if (!v.isEmpty()) {
        return v;
      }
    }
    for (AMISelectorTerm term : terms) {
      for (AMI ami : amis) {
        if (term.getId() != null && term.getId().equals(ami.getId()) && ami.getName() != null && ami.getName().contains("bottlerocket")) {
          String v = versionFromName(ami.getName());
          if (!v.isEmpty()) {
            return v;
          }
        }
      }
    }
    for (AMI ami : amis) {
      if (ami.getName() != null && ami.getName().contains("bottlerocket")) {
        String v = versionFromName(ami.getName());
        if (!v.isEmpty()) {
          return v;
        }
      }
    }
    return "";
  }

  private static String versionFromName(String name) {
    for (String part : name.split("-")) {
      if (part.startsWith("v") && part.contains(".")) {
        return part;
      }
    }
    return "";
  }

  /**
   * kubeReserved and systemReserved without expression values (the NodeClassCEL feature gate is off
   * here, so upstream keeps only the static quantities), written back into {@code raw} too.
   */
  private static ParsedKubeletConfig withStaticReserved(ParsedKubeletConfig k, Map<String, JsonNode> raw) {
    if (!k.hasResourceExpressions()) {
      return k;
    }
    Map<String, String> kube = staticQuantities(k.kubeReserved());
    Map<String, String> system = staticQuantities(k.systemReserved());
    if (raw.containsKey("kubeReserved")) {
      raw.put("kubeReserved", JSON.valueToTree(kube));
    }
    if (raw.containsKey("systemReserved")) {
      raw.put("systemReserved", JSON.valueToTree(system));
    }
    return new ParsedKubeletConfig(k.clusterDNS(), k.maxPods(), k.podsPerCore(), system, kube, k.evictionHard(), k.evictionSoft(),
        k.evictionSoftGracePeriod(), k.evictionMaxPodGracePeriod(), k.imageGCHighThresholdPercent(), k.imageGCLowThresholdPercent(), k.cpuCFSQuota());
  }

  private static Map<String, String> staticQuantities(Map<String, String> values) {
    Map<String, String> out = new LinkedHashMap<>();
    if (values != null) {
      values.forEach((k, v) -> {
        try {
          Quantity.parseMilli(v);
          out.put(k, v);
        } catch (IllegalArgumentException e) {
          // an expression: dropped
        }
      });
    }
    return out;
  }

  private static ParsedKubeletConfig withMaxPods(ParsedKubeletConfig k, int maxPods) {
    return new ParsedKubeletConfig(k.clusterDNS(), new IntOrString(maxPods), k.podsPerCore(), k.systemReserved(), k.kubeReserved(), k.evictionHard(),
        k.evictionSoft(), k.evictionSoftGracePeriod(), k.evictionMaxPodGracePeriod(), k.imageGCHighThresholdPercent(), k.imageGCLowThresholdPercent(), k.cpuCFSQuota());
  }

  private static ParsedKubeletConfig withClusterDns(ParsedKubeletConfig k, List<String> dns) {
    return new ParsedKubeletConfig(dns, k.maxPods(), k.podsPerCore(), k.systemReserved(), k.kubeReserved(), k.evictionHard(),
        k.evictionSoft(), k.evictionSoftGracePeriod(), k.evictionMaxPodGracePeriod(), k.imageGCHighThresholdPercent(), k.imageGCLowThresholdPercent(), k.cpuCFSQuota());
  }
}
