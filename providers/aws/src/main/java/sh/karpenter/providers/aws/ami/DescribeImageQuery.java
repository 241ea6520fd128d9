package sh.karpenter.providers.aws.ami;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sh.karpenter.providers.aws.selector.SelectorFilters;
import software.amazon.awssdk.services.ec2.model.DescribeImagesRequest;
import software.amazon.awssdk.services.ec2.model.Filter;

/**
 * One {@code DescribeImages} call of an AMI selection (upstream's {@code DescribeImageQuery}): filters,
 * owners, and for images an alias named, the requirement sets of their variants.
 */
public record DescribeImageQuery(List<Filter> filters, List<String> owners, Map<String, List<List<NodeSelectorRequirement>>> knownRequirements) {

  /** The request: the filters plus {@code state=available}, deprecated images included, 1000 per page. */
  public DescribeImagesRequest request() {
    List<Filter> all = new ArrayList<>(filters);
    all.add(SelectorFilters.filter("state", "available"));
    DescribeImagesRequest.Builder builder = DescribeImagesRequest.builder().filters(all).includeDeprecated(true).maxResults(1000);
    if (!owners.isEmpty()) {
      builder.owners(owners);
    }
    return builder.build();
  }

  /** The requirement sets of an image of architecture {@code arch}: its known variants', else just the architecture. */
  public List<List<NodeSelectorRequirement>> requirementsFor(String imageId, String arch) {
    List<List<NodeSelectorRequirement>> known = knownRequirements.get(imageId);
    if (known == null) {
      return List.of(AmiRequirements.withArchitecture(List.of(), arch));
    }
    return known.stream().map(requirements -> AmiRequirements.withArchitecture(requirements, arch)).toList();
  }
}
