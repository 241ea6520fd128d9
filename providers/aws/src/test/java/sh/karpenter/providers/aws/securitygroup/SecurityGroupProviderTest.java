package sh.karpenter.providers.aws.securitygroup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.SecurityGroupSelectorTerm;
import software.amazon.awssdk.services.ec2.model.Filter;

class SecurityGroupProviderTest {

  @Test
  void tagTermsEachThenAllIdsThenAllNames() {
    List<List<Filter>> sets = SecurityGroupProvider.filterSets(List.of(
        term(null, "sg-1", null), term(null, null, "nodes"), term(Map.of("karpenter.sh/discovery", "c1"), null, null),
        term(null, "sg-2", null), term(null, null, "default"), term(Map.of("team", "*"), null, null)));

    assertThat(sets).containsExactly(
        List.of(Filter.builder().name("tag:karpenter.sh/discovery").values("c1").build()),
        List.of(Filter.builder().name("tag-key").values("team").build()),
        List.of(Filter.builder().name("group-id").values("sg-1", "sg-2").build()),
        List.of(Filter.builder().name("group-name").values("nodes", "default").build()));
  }

  @Test
  void anIdWinsOverANameInTheSameTerm() {
    assertThat(SecurityGroupProvider.filterSets(List.of(term(null, "sg-1", "nodes"))))
        .containsExactly(List.of(Filter.builder().name("group-id").values("sg-1").build()));
  }

  private static SecurityGroupSelectorTerm term(Map<String, String> tags, String id, String name) {
    SecurityGroupSelectorTerm term = new SecurityGroupSelectorTerm();
    term.setTags(tags);
    term.setId(id);
    term.setName(name);
    return term;
  }
}
