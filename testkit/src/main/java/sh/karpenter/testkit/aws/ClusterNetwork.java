package sh.karpenter.testkit.aws;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TagSpecification;

/**
 * A cluster's network in the emulator, the way Karpenter's getting-started guide tags one: a VPC, one
 * subnet per zone and a security group, each tagged {@value #DISCOVERY_TAG}{@code =<cluster>} so that
 * an EC2NodeClass's subnet and security group selector terms find them.
 *
 * @param subnetsByZone subnet ID by availability zone, in the order given
 */
public record ClusterNetwork(String cluster, String vpcId, Map<String, String> subnetsByZone, String securityGroupId) {

  /** The tag Karpenter's documentation puts on a cluster's subnets and security groups. */
  public static final String DISCOVERY_TAG = "karpenter.sh/discovery";

  /**
   * Creates a VPC 10.0.0.0/16 with a /20 subnet (4,091 free addresses, room for hundreds of instances)
   * in each of up to 16 {@code zones}, and a security group.
   */
  public static ClusterNetwork create(Ec2Client ec2, String cluster, List<String> zones) {
    String vpcId = ec2.createVpc(r -> r.cidrBlock("10.0.0.0/16").tagSpecifications(tagged(ResourceType.VPC, cluster))).vpc().vpcId();
    Map<String, String> subnets = new LinkedHashMap<>();
    for (int i = 0; i < zones.size(); i++) {
      String cidr = "10.0." + (16 * i) + ".0/20";
      String zone = zones.get(i);
      subnets.put(zone, ec2.createSubnet(r -> r.vpcId(vpcId).cidrBlock(cidr).availabilityZone(zone)
          .tagSpecifications(tagged(ResourceType.SUBNET, cluster))).subnet().subnetId());
    }
    String securityGroupId = ec2.createSecurityGroup(r -> r.vpcId(vpcId).groupName(cluster + "-nodes")
        .description("nodes of " + cluster).tagSpecifications(tagged(ResourceType.SECURITY_GROUP, cluster))).groupId();
    return new ClusterNetwork(cluster, vpcId, Collections.unmodifiableMap(subnets), securityGroupId);
  }

  /** The subnet in {@code zone}. */
  public String subnet(String zone) {
    String subnet = subnetsByZone.get(zone);
    if (subnet == null) {
      throw new IllegalArgumentException("cluster network " + cluster + " has no subnet in " + zone + " (zones: " + subnetsByZone.keySet() + ")");
    }
    return subnet;
  }

  private static TagSpecification tagged(ResourceType type, String cluster) {
    return TagSpecification.builder().resourceType(type).tags(Tag.builder().key(DISCOVERY_TAG).value(cluster).build()).build();
  }
}
