package sh.karpenter.providers.aws.subnet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.SubnetSelectorTerm;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Subnet;

class SubnetProviderTest {

  @Test
  void eachTagTermIsOneQueryAndAllIdsAnotherAtTheEnd() {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("karpenter.sh/discovery", "my-cluster");
    tags.put("Name", "*");
    List<List<Filter>> sets = SubnetProvider.filterSets(List.of(
        new SubnetSelectorTerm(null, "subnet-1"),
        new SubnetSelectorTerm(tags, null),
        new SubnetSelectorTerm(null, "subnet-2"),
        new SubnetSelectorTerm(Map.of("tier", "private"), null)));

    assertThat(sets).containsExactly(
        List.of(filter("tag-key", "Name"), filter("tag:karpenter.sh/discovery", "my-cluster")),
        List.of(filter("tag:tier", "private")),
        List.of(Filter.builder().name("subnet-id").values("subnet-1", "subnet-2").build()));
  }

  @Test
  void noTermsNoQueries() {
    assertThat(SubnetProvider.filterSets(List.of())).isEmpty();
    assertThat(SubnetProvider.filterSets(null)).isEmpty();
  }

  @Test
  void theStatusListsTheSubnetsWithMostFreeAddressesFirstThenById() {
    List<Subnet> sorted = SubnetProvider.byAvailableAddresses(List.of(
        subnet("subnet-c", 10), subnet("subnet-b", 251), subnet("subnet-a", 10), subnet("subnet-d", 251)));
    assertThat(sorted).extracting(Subnet::subnetId).containsExactly("subnet-b", "subnet-d", "subnet-a", "subnet-c");
  }

  private static Subnet subnet(String id, int free) {
    return Subnet.builder().subnetId(id).availableIpAddressCount(free).build();
  }

  private static Filter filter(String name, String value) {
    return Filter.builder().name(name).values(value).build();
  }
}
