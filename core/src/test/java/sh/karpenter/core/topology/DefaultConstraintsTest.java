package sh.karpenter.core.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.NodeInclusionPolicy;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

class DefaultConstraintsTest {
  private static final TopologySpreadConstraint ZONAL =
      TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, null);
  private static final TopologySpreadConstraint HOSTNAME =
      TopologySpreadConstraint.of(3, Labels.HOSTNAME, WhenUnsatisfiable.ScheduleAnyway, null);
  private static final LabelSelector WEB = LabelSelector.of(Map.of("app", "web"));

  private static Pod.Builder pod() {
    return Pod.builder().namespace("shop").name("web-0").labels(Map.of("app", "web")).container(Resources.builder().cpu("1").build());
  }

  @Test
  void appliesDefaultZonalSpreadToAPodThatDeclaresNoConstraintsOfItsOwn() {
    Pod defaulted = DefaultConstraints.of(List.of(ZONAL)).apply(pod().build(), WEB);

    assertThat(defaulted.topologySpreadConstraints())
        .containsExactly(TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, WEB));
  }

  @Test
  void appliesEveryDefaultInOrderWithTheSameSelector() {
    Pod defaulted = DefaultConstraints.of(List.of(ZONAL, HOSTNAME)).apply(pod().build(), WEB);

    assertThat(defaulted.topologySpreadConstraints())
        .extracting(TopologySpreadConstraint::topologyKey, TopologySpreadConstraint::maxSkew, TopologySpreadConstraint::selector)
        .containsExactly(tuple(Labels.ZONE, 1, WEB), tuple(Labels.HOSTNAME, 3, WEB));
  }

  @Test
  void doesNotApplyDefaultsToAPodWithItsOwnConstraints() {
    TopologySpreadConstraint own = TopologySpreadConstraint.of(5, Labels.HOSTNAME, WhenUnsatisfiable.ScheduleAnyway, WEB);
    Pod pod = pod().topologySpreadConstraint(own).build();
    DefaultConstraints defaults = DefaultConstraints.of(List.of(ZONAL));

    assertThat(defaults.appliesTo(pod)).isFalse();
    assertThat(defaults.apply(pod, WEB)).isSameAs(pod);
    assertThat(pod.topologySpreadConstraints()).containsExactly(own);
  }

  @Test
  void leavesThePodAloneWhenNoSelectorCouldBeDerived() {
    Pod pod = pod().build();
    DefaultConstraints defaults = DefaultConstraints.of(List.of(ZONAL));

    assertThat(defaults.apply(pod, null)).isSameAs(pod);
    assertThat(defaults.apply(pod, LabelSelector.EVERYTHING)).isSameAs(pod);
    assertThat(defaults.apply(pod, LabelSelector.NOTHING)).isSameAs(pod);
  }

  @Test
  void isANoOpWhenNoDefaultsAreConfigured() {
    Pod pod = pod().build();

    assertThat(DefaultConstraints.of(List.of())).isSameAs(DefaultConstraints.NONE);
    assertThat(DefaultConstraints.NONE.appliesTo(pod)).isFalse();
    assertThat(DefaultConstraints.NONE.apply(pod, WEB)).isSameAs(pod);
  }

  @Test
  void preservesTheConfiguredFieldsOfEachDefault() {
    TopologySpreadConstraint configured =
        new TopologySpreadConstraint(4, Labels.ZONE, WhenUnsatisfiable.ScheduleAnyway, null, 3, NodeInclusionPolicy.Ignore, NodeInclusionPolicy.Honor, List.of());

    TopologySpreadConstraint applied = DefaultConstraints.of(List.of(configured)).apply(pod().build(), WEB).topologySpreadConstraints().getFirst();

    assertThat(applied)
        .isEqualTo(new TopologySpreadConstraint(4, Labels.ZONE, WhenUnsatisfiable.ScheduleAnyway, WEB, 3, NodeInclusionPolicy.Ignore, NodeInclusionPolicy.Honor, List.of()));
  }

  @Test
  void keepsEverythingElseAboutThePod() {
    Pod pod = pod().priority(7).nodeSelector(Map.of(Labels.ARCH, "arm64")).owner("ReplicaSet", "web-abc").build();

    Pod defaulted = DefaultConstraints.of(List.of(ZONAL)).apply(pod, WEB);

    assertThat(defaulted.key()).isEqualTo(pod.key());
    assertThat(defaulted.uid()).isEqualTo(pod.uid());
    assertThat(defaulted.labels()).isEqualTo(pod.labels());
    assertThat(defaulted.requests()).isEqualTo(pod.requests());
    assertThat(defaulted.priority()).isEqualTo(7);
    assertThat(defaulted.nodeSelector()).isEqualTo(pod.nodeSelector());
    assertThat(defaulted.ownerName()).isEqualTo("web-abc");
  }
}
