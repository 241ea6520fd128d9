package sh.karpenter.providers.aws;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.aws.v1.AMI;
import sh.karpenter.api.aws.v1.AMISelectorTerm;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassSpec;
import sh.karpenter.api.aws.v1.EC2NodeClassStatus;
import sh.karpenter.api.aws.v1.SecurityGroup;
import sh.karpenter.api.aws.v1.Subnet;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.amifamily.ClusterInfo;

/** Hand-built EC2NodeClasses, instance types and launch requests for the launch path's tests. */
public final class LaunchFixtures {
  private LaunchFixtures() {}

  /** The cluster upstream's launch template tests bootstrap against. */
  public static final ClusterInfo CLUSTER = new ClusterInfo("test-cluster", "https://test-cluster", "Y2EtYnVuZGxlCg==", "10.100.0.0/16", "10.0.100.10");

  /**
   * An amd64 Linux type offered on-demand at {@code onDemand} and spot at {@code spot} in each zone.
   */
  public static InstanceType instanceType(String name, double onDemand, double spot, List<String> zones) {
    return instanceType(name, "amd64", 2, 4, 110, onDemand, spot, zones);
  }

  public static InstanceType instanceType(String name, String arch, int cpu, int memoryGi, int pods, double onDemand, double spot, List<String> zones) {
    List<Offering> offerings = new ArrayList<>();
    for (String zone : zones) {
      offerings.add(Offering.of(zone, Labels.CAPACITY_TYPE_ON_DEMAND, onDemand, true));
      offerings.add(Offering.of(zone, Labels.CAPACITY_TYPE_SPOT, spot, true));
    }
    Requirements requirements = Requirements.of(
        Requirement.in(Labels.INSTANCE_TYPE, name),
        Requirement.in(Labels.ARCH, arch),
        Requirement.in(Labels.OS, "linux"),
        Requirement.in(Labels.ZONE, zones.toArray(String[]::new)),
        Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT));
    Resources capacity = Resources.builder().cpu(String.valueOf(cpu)).memory(memoryGi + "Gi").pods(pods).build();
    return new InstanceType(name, requirements, offerings, capacity, Overhead.NONE);
  }

  /** An EC2NodeClass with a filled status: one subnet per zone, a security group, the AMIs, a profile. */
  public static EC2NodeClass nodeClass(String name, String alias, Map<String, String> subnetsByZone, String securityGroupId, List<AMI> amis) {
    EC2NodeClass nodeClass = new EC2NodeClass();
    nodeClass.setMetadata(new ObjectMeta());
    nodeClass.getMetadata().setName(name);
    EC2NodeClassSpec spec = new EC2NodeClassSpec();
    AMISelectorTerm term = new AMISelectorTerm();
    term.setAlias(alias);
    spec.setAmiSelectorTerms(List.of(term));
    spec.setRole("KarpenterNodeRole");
    nodeClass.setSpec(spec);
    EC2NodeClassStatus status = new EC2NodeClassStatus();
    List<Subnet> subnets = new ArrayList<>();
    int i = 1;
    for (Map.Entry<String, String> e : subnetsByZone.entrySet()) {
      subnets.add(new Subnet(e.getValue(), e.getKey(), "usw2-az" + i++));
    }
    status.setSubnets(subnets);
    SecurityGroup sg = new SecurityGroup();
    sg.setId(securityGroupId);
    status.setSecurityGroups(List.of(sg));
    status.setAmis(amis);
    status.setInstanceProfile("test-cluster_123");
    nodeClass.setStatus(status);
    return nodeClass;
  }

  /** An AMI for {@code arch}. */
  public static AMI ami(String id, String arch) {
    AMI ami = new AMI();
    ami.setId(id);
    ami.setName("ami-for-" + arch);
    ami.setRequirements(List.of(new NodeSelectorRequirement(Labels.ARCH, "In", List.of(arch))));
    return ami;
  }

  /** A request from NodePool {@code nodePool} with these requirements, no requests, no taints. */
  public static LaunchRequest request(String nodePool, String nodeClass, Requirement... requirements) {
    return request(nodePool, nodeClass, List.of(), List.of(), requirements);
  }

  public static LaunchRequest request(String nodePool, String nodeClass, List<Taint> taints, List<Taint> startupTaints, Requirement... requirements) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(Labels.NODE_POOL, nodePool);
    labels.put("testing/cluster", "unspecified");
    return new LaunchRequest("nodeclaim-" + nodePool, nodePool, new NodeClassRef("karpenter.k8s.aws", "EC2NodeClass", nodeClass),
        Requirements.of(requirements), Resources.EMPTY, labels, taints, startupTaints);
  }
}
