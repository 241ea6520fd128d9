package sh.karpenter.providers.aws.selector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import software.amazon.awssdk.services.ec2.model.Filter;

/**
 * How an EC2NodeClass's selector terms become EC2 {@code Describe*} filters, shared by the subnet,
 * security group and AMI providers (upstream's {@code getFilterSets}).
 */
public final class SelectorFilters {
  /** The tag value that matches any value of the key. */
  public static final String ANY = "*";

  private SelectorFilters() {}

  /**
   * One filter per tag of a term: {@code tag-key=<key>} when the value is {@code *}, else
   * {@code tag:<key>=<value>}; keys in sorted order (upstream iterates a Go map, in no order).
   */
  public static List<Filter> tags(Map<String, String> tags) {
    List<Filter> filters = new ArrayList<>();
    if (tags == null) {
      return filters;
    }
    new TreeMap<>(tags).forEach((key, value) -> filters.add(ANY.equals(value)
        ? filter("tag-key", key)
        : filter("tag:" + key, value)));
    return filters;
  }

  public static Filter filter(String name, List<String> values) {
    return Filter.builder().name(name).values(values).build();
  }

  public static Filter filter(String name, String value) {
    return filter(name, List.of(value));
  }

  /**
   * The key resolution caches use for a class: its UID and generation (upstream's
   * {@code GetNodeClassHash}), so a change to the spec misses the cache and a status write does not.
   */
  public static String nodeClassKey(EC2NodeClass nodeClass) {
    var metadata = nodeClass.getMetadata();
    return metadata.getUid() + "-" + metadata.getGeneration();
  }
}
