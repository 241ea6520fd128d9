package sh.karpenter.providers.aws.launchtemplate;

import java.util.List;
import sh.karpenter.core.instancetype.InstanceType;

/**
 * An EC2 launch template a launch uses, with the image it boots and the candidate instance types that
 * launch from it (upstream's {@code launchtemplate.LaunchTemplate}).
 */
public record LaunchTemplate(String name, String id, String imageId, List<InstanceType> instanceTypes) {
  public LaunchTemplate {
    instanceTypes = List.copyOf(instanceTypes);
  }
}
