package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

/**
 * A {@code karpenter.k8s.aws/v1} EC2NodeClass (cluster-scoped): how the AWS provider launches EC2
 * instances for the NodePools that reference it (subnets, security groups, AMIs, IAM identity, block
 * devices, metadata options, kubelet configuration, ...). Its CRD is
 * {@code crds/karpenter.k8s.aws_ec2nodeclasses.yaml}; fields and rules are in
 * docs/behaviour/api.md#ec2nodeclass.
 */
@Group(EC2NodeClass.GROUP)
@Version(EC2NodeClass.VERSION)
@Kind(EC2NodeClass.KIND)
@Plural("ec2nodeclasses")
@Singular("ec2nodeclass")
@ShortNames({"ec2nc", "ec2ncs"})
@Categories("karpenter")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EC2NodeClass extends CustomResource<EC2NodeClassSpec, EC2NodeClassStatus> {
  public static final String GROUP = AwsLabels.GROUP;
  public static final String VERSION = "v1";
  public static final String KIND = "EC2NodeClass";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** The finalizer the AWS provider puts on an EC2NodeClass until its instance profile is cleaned up. */
  public static final String TERMINATION_FINALIZER = GROUP + "/termination";

  /**
   * The AMI family the class launches with: {@code spec.amiFamily} when set, else the family of its
   * alias term, else {@link AMIFamily#CUSTOM} (which the CRD rules make unreachable). Upstream's
   * {@code EC2NodeClass.AMIFamily()}.
   */
  public String amiFamily() {
    EC2NodeClassSpec spec = getSpec();
    if (spec != null && spec.getAmiFamily() != null) {
      return spec.getAmiFamily();
    }
    return alias().map(Alias::family).orElse(AMIFamily.CUSTOM);
  }

  /**
   * The parsed alias of the first AMI selector term that has one (upstream's {@code Alias()}).
   *
   * @throws IllegalArgumentException naming the alias when it is not {@code family@version} with a
   *     known family; the CRD rules reject such an alias before it is stored
   */
  public Optional<Alias> alias() {
    EC2NodeClassSpec spec = getSpec();
    if (spec == null || spec.getAmiSelectorTerms() == null) {
      return Optional.empty();
    }
    return spec.getAmiSelectorTerms().stream()
        .map(AMISelectorTerm::getAlias)
        .filter(alias -> alias != null && !alias.isEmpty())
        .findFirst()
        .map(Alias::parse);
  }

  /**
   * The tags of the instance profile Karpenter creates for {@code spec.role}: the class's tags, then
   * {@code kubernetes.io/cluster/<cluster>=owned}, {@code eks:eks-cluster-name}, the class name and the
   * region (upstream's {@code InstanceProfileTags}).
   */
  public Map<String, String> instanceProfileTags(String clusterName, String region) {
    Map<String, String> tags = new LinkedHashMap<>();
    if (getSpec() != null && getSpec().getTags() != null) {
      tags.putAll(getSpec().getTags());
    }
    tags.put(AwsTags.clusterTag(clusterName), AwsTags.CLUSTER_TAG_OWNED);
    tags.put(AwsTags.EKS_CLUSTER_NAME, clusterName);
    tags.put(AwsTags.NODE_CLASS, getMetadata() == null ? null : getMetadata().getName());
    tags.put(Labels.REGION, region);
    return tags;
  }

  /** The resolved subnets grouped by zone ID (upstream's {@code ZoneInfo()}), in the order first seen. */
  public List<ZoneInfo> zoneInfo() {
    Map<String, ZoneInfo.Builder> byZoneId = new LinkedHashMap<>();
    EC2NodeClassStatus status = getStatus();
    if (status != null && status.getSubnets() != null) {
      for (Subnet subnet : status.getSubnets()) {
        byZoneId.computeIfAbsent(subnet.getZoneID() == null ? "" : subnet.getZoneID(), id -> new ZoneInfo.Builder(subnet.getZone(), id))
            .subnetIds.add(subnet.getId());
      }
    }
    return byZoneId.values().stream().map(ZoneInfo.Builder::build).toList();
  }
}
