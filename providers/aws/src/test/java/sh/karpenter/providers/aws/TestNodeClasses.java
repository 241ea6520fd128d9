package sh.karpenter.providers.aws;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.aws.v1.AMISelectorTerm;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassSpec;
import sh.karpenter.api.aws.v1.EC2NodeClassStatus;
import sh.karpenter.api.aws.v1.SecurityGroupSelectorTerm;
import sh.karpenter.api.aws.v1.SubnetSelectorTerm;

/** EC2NodeClasses for tests: tag selectors for subnets and security groups, an AMI alias, a role. */
public final class TestNodeClasses {
  private TestNodeClasses() {}

  /**
   * A class named {@code name} (UID {@code uid-<name>}, generation 1) selecting subnets and security
   * groups tagged {@code karpenter.sh/discovery=<cluster>}, AMIs by {@code alias}, nodes in {@code role}.
   */
  public static EC2NodeClass nodeClass(String name, String cluster, String alias, String role) {
    EC2NodeClass nodeClass = new EC2NodeClass();
    nodeClass.setMetadata(new ObjectMetaBuilder().withName(name).withUid("uid-" + name).withGeneration(1L).build());
    EC2NodeClassSpec spec = new EC2NodeClassSpec();
    spec.setSubnetSelectorTerms(List.of(new SubnetSelectorTerm(Map.of("karpenter.sh/discovery", cluster), null)));
    SecurityGroupSelectorTerm groups = new SecurityGroupSelectorTerm();
    groups.setTags(Map.of("karpenter.sh/discovery", cluster));
    spec.setSecurityGroupSelectorTerms(List.of(groups));
    spec.setAmiSelectorTerms(List.of(AMISelectorTerm.ofAlias(alias)));
    spec.setRole(role);
    nodeClass.setSpec(spec);
    nodeClass.setStatus(new EC2NodeClassStatus());
    return nodeClass;
  }

  /** The same class with {@code terms} as its AMI selector terms (and {@code amiFamily}, required without an alias). */
  public static EC2NodeClass withAmiTerms(EC2NodeClass nodeClass, String amiFamily, AMISelectorTerm... terms) {
    nodeClass.getSpec().setAmiSelectorTerms(List.of(terms));
    nodeClass.getSpec().setAmiFamily(amiFamily);
    return nodeClass;
  }
}
