package sh.karpenter.providers.aws.nodeclass;

import java.util.Objects;
import sh.karpenter.providers.aws.ami.AmiProvider;
import sh.karpenter.providers.aws.instanceprofile.InstanceProfileProvider;
import sh.karpenter.providers.aws.securitygroup.SecurityGroupProvider;
import sh.karpenter.providers.aws.subnet.SubnetProvider;

/** What an EC2NodeClass's status is resolved with: one provider per status field. */
public record NodeClassProviders(
    SubnetProvider subnets, SecurityGroupProvider securityGroups, AmiProvider amis, InstanceProfileProvider instanceProfiles) {
  public NodeClassProviders {
    Objects.requireNonNull(subnets, "subnets");
    Objects.requireNonNull(securityGroups, "securityGroups");
    Objects.requireNonNull(amis, "amis");
    Objects.requireNonNull(instanceProfiles, "instanceProfiles");
  }
}
