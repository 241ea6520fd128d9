package sh.karpenter.core.pod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

class PodTest {
  static Resources cpu(String cpu) {
    return Resources.builder().cpu(cpu).build();
  }

  static Resources requests(String cpu, String memory) {
    return Resources.builder().cpu(cpu).memory(memory).build();
  }

  static Pod.Builder pod() {
    return Pod.builder().namespace("default").name("p");
  }

  static Resources plusOnePod(Resources r) {
    return r.plus(Resources.builder().pods(1).build());
  }

  @Test
  void requestsSumTheContainersPlusOnePod() {
    Pod p = pod().container(requests("1", "1Gi")).container(cpu("500m")).build();
    assertThat(p.requests()).isEqualTo(plusOnePod(requests("1500m", "1Gi")));
    assertThat(pod().build().requests()).isEqualTo(plusOnePod(Resources.EMPTY));
  }

  @Test
  void initContainersCountWhenLarger() {
    Pod p = pod().container(requests("1", "2Gi")).initContainer(cpu("4")).initContainer(requests("2", "3Gi")).build();
    assertThat(p.requests()).isEqualTo(plusOnePod(requests("4", "3Gi")));
  }

  @Test
  void sidecarsAddToTheContainersAndToLaterInitContainers() {
    // sidecar (500m) then a regular init container (1200m): while the latter runs, 1700m
    Pod after = pod().container(cpu("1")).initContainer(cpu("500m"), true).initContainer(cpu("1200m")).build();
    assertThat(after.requests()).isEqualTo(plusOnePod(cpu("1700m")));
    // the regular init container runs before the sidecar starts: containers + sidecar = 1500m wins
    Pod before = pod().container(cpu("1")).initContainer(cpu("1200m")).initContainer(cpu("500m"), true).build();
    assertThat(before.requests()).isEqualTo(plusOnePod(cpu("1500m")));
    // sidecars accumulate
    Pod two = pod().initContainer(cpu("1"), true).initContainer(cpu("1"), true).initContainer(cpu("1")).build();
    assertThat(two.requests()).isEqualTo(plusOnePod(cpu("3")));
  }

  @Test
  void overheadAndPodLevelRequests() {
    Pod overhead = pod().container(requests("1", "1Gi")).overhead(requests("250m", "64Mi")).build();
    assertThat(overhead.requests()).isEqualTo(plusOnePod(requests("1250m", "1088Mi")));
    Pod podLevel = pod().container(requests("1", "1Gi")).podLevelRequests(cpu("3")).overhead(cpu("100m")).build();
    assertThat(podLevel.requests()).isEqualTo(plusOnePod(requests("3100m", "1Gi")));
  }

  @Test
  void requirementFormsFollowUpstream() {
    Requirements first = Requirements.of(Requirement.in(Labels.ZONE, "zone-1", "zone-2"));
    Requirements second = Requirements.of(Requirement.in(Labels.ZONE, "zone-3"));
    Requirements light = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, "on-demand"));
    Requirements heavy = Requirements.of(Requirement.in(Labels.ZONE, "zone-2"));
    Requirements heavyToo = Requirements.of(Requirement.in(Labels.ZONE, "zone-1"));
    Pod p =
        pod()
            .nodeSelector(Map.of("beta.kubernetes.io/arch", "arm64"))
            .requiredNodeAffinityTerm(first)
            .requiredNodeAffinityTerm(second)
            .preferredNodeAffinity(1, light)
            .preferredNodeAffinity(50, heavy)
            .preferredNodeAffinity(50, heavyToo)
            .build();
    assertThat(p.strictRequirements())
        .isEqualTo(Requirements.of(Requirement.in(Labels.ARCH, "arm64"), Requirement.in(Labels.ZONE, "zone-1", "zone-2")));
    assertThat(p.requirements())
        .isEqualTo(Requirements.of(Requirement.in(Labels.ARCH, "arm64"), Requirement.in(Labels.ZONE, "zone-2")));
    assertThat(p.requirements().isFrozen()).isTrue();
    assertThat(p.requiredNodeAffinityTerms()).hasSize(2);
    assertThatThrownBy(() -> p.requiredNodeAffinityTerms().get(0).add(Requirement.in("k", "v")))
        .isInstanceOf(UnsupportedOperationException.class);
    // the builder's terms are not frozen by building
    first.add(Requirement.in("k", "v"));
    assertThat(p.requiredNodeAffinityTerms().get(0).has("k")).isFalse();
  }

  @Test
  void toBuilderDerivesARelaxedCopy() {
    Pod p =
        pod()
            .uid("u-1")
            .labels(Map.of("app", "web"))
            .container(cpu("1"))
            .requiredNodeAffinityTerm(Requirements.of(Requirement.in(Labels.ZONE, "a")))
            .requiredNodeAffinityTerm(Requirements.of(Requirement.in(Labels.ZONE, "b")))
            .topologySpreadConstraint(
                TopologySpreadConstraint.of(1, Labels.ZONE, TopologySpreadConstraint.WhenUnsatisfiable.ScheduleAnyway, LabelSelector.of(Map.of("app", "web"))))
            .build();
    Pod relaxed = p.toBuilder().requiredNodeAffinityTerms(p.requiredNodeAffinityTerms().subList(1, 2)).topologySpreadConstraints(List.of()).build();
    assertThat(relaxed.requirements().get(Labels.ZONE)).isEqualTo(Requirement.in(Labels.ZONE, "b"));
    assertThat(relaxed.uid()).isEqualTo("u-1");
    assertThat(relaxed.key()).isEqualTo("default/p");
    assertThat(relaxed.requests()).isEqualTo(p.requests());
    assertThat(relaxed.topologySpreadConstraints()).isEmpty();
    assertThat(p.topologySpreadConstraints()).hasSize(1);
  }

  @Test
  void partsApplyKubernetesDefaults() {
    TopologySpreadConstraint spread = new TopologySpreadConstraint(1, Labels.ZONE, null, null, null, null, null, null);
    assertThat(spread.whenUnsatisfiable()).isEqualTo(TopologySpreadConstraint.WhenUnsatisfiable.DoNotSchedule);
    assertThat(spread.nodeAffinityPolicy()).isEqualTo(TopologySpreadConstraint.NodeInclusionPolicy.Honor);
    assertThat(spread.nodeTaintsPolicy()).isEqualTo(TopologySpreadConstraint.NodeInclusionPolicy.Ignore);
    assertThat(spread.selector()).isEqualTo(LabelSelector.NOTHING);
    assertThat(PodAffinityTerm.of(null, Labels.HOSTNAME).selector()).isEqualTo(LabelSelector.NOTHING);
    assertThat(pod().build().uid()).isEqualTo("default/p");
  }

  @Test
  void hostPortsConflictOnSamePortAndProtocolUnlessBothIpsAreSpecificAndDiffer() {
    HostPort any = new HostPort(null, 80, null);
    assertThat(any).isEqualTo(new HostPort("0.0.0.0", 80, "TCP"));
    assertThat(any.conflicts(new HostPort("10.0.0.1", 80, "TCP"))).isTrue();
    assertThat(new HostPort("::", 80, "TCP").conflicts(new HostPort("10.0.0.1", 80, "TCP"))).isTrue();
    assertThat(new HostPort("10.0.0.1", 80, "TCP").conflicts(new HostPort("10.0.0.2", 80, "TCP"))).isFalse();
    assertThat(new HostPort("10.0.0.1", 80, "TCP").conflicts(new HostPort("10.0.0.1", 80, "TCP"))).isTrue();
    assertThat(any.conflicts(new HostPort(null, 80, "UDP"))).isFalse();
    assertThat(any.conflicts(new HostPort(null, 81, null))).isFalse();
  }
}
