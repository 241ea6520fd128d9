package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.NodeInclusionPolicy;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.wellknown.Labels;

class SchedulerConfigTest {
  private static final String SOURCE = "scheduler.yaml";
  private static final TopologySpreadConstraint ZONAL = TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, null);
  private static final TopologySpreadConstraint HOSTNAME = TopologySpreadConstraint.of(3, Labels.HOSTNAME, WhenUnsatisfiable.ScheduleAnyway, null);

  @TempDir Path dir;

  private static List<TopologySpreadConstraint> defaults(String text) {
    return SchedulerConfig.parse(text, SOURCE).defaultConstraints().constraints();
  }

  @Test
  void readsKarpentersOwnDocument() {
    assertThat(defaults("""
        podTopologySpread:
          defaultConstraints:
            - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
            - {maxSkew: 3, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
        """)).containsExactly(ZONAL, HOSTNAME);
  }

  @Test
  void readsJson() {
    assertThat(defaults("""
        {"podTopologySpread": {"defaultConstraints": [
          {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}]}}
        """)).containsExactly(ZONAL);
  }

  @Test
  void readsTheDefaultSchedulerProfileOfAKubeSchedulerConfiguration() {
    assertThat(defaults("""
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        clientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf}
        profiles:
          - schedulerName: batch-scheduler
            pluginConfig:
              - name: PodTopologySpread
                args: {defaultConstraints: [{maxSkew: 9, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}], defaultingType: List}
          - pluginConfig:
              - name: NodeResourcesFit
                args: {scoringStrategy: {type: MostAllocated}}
              - name: PodTopologySpread
                args:
                  defaultingType: List
                  defaultConstraints:
                    - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
                    - {maxSkew: 3, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
        """)).containsExactly(ZONAL, HOSTNAME);
  }

  @Test
  void keepsTheOptionalFieldsOfAConstraint() {
    assertThat(defaults("""
        podTopologySpread:
          defaultConstraints:
            - {maxSkew: 4, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3,
               nodeAffinityPolicy: Ignore, nodeTaintsPolicy: Honor}
        """)).containsExactly(
            new TopologySpreadConstraint(4, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, null, 3, NodeInclusionPolicy.Ignore, NodeInclusionPolicy.Honor, List.of()));
  }

  @Test
  void systemDefaultingContributesNothingAsUpstreamKarpenterDoes() {
    assertThat(SchedulerConfig.parse("""
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles: [{schedulerName: default-scheduler, pluginConfig: [{name: PodTopologySpread, args: {defaultingType: System}}]}]
        """, SOURCE)).isSameAs(SchedulerConfig.NONE);
  }

  @Test
  void documentsWithoutDefaultsAreNoConfiguration() {
    assertThat(SchedulerConfig.parse("", SOURCE)).isSameAs(SchedulerConfig.NONE);
    assertThat(SchedulerConfig.parse("# nothing yet\n", SOURCE)).isSameAs(SchedulerConfig.NONE);
    assertThat(SchedulerConfig.parse("podTopologySpread: {}\n", SOURCE)).isSameAs(SchedulerConfig.NONE);
    assertThat(SchedulerConfig.parse("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", SOURCE))
        .isSameAs(SchedulerConfig.NONE);
    assertThat(SchedulerConfig.NONE.defaultConstraints().isEmpty()).isTrue();
  }

  static Stream<Arguments> invalidConfigs() {
    return Stream.of(
        Arguments.of("a label selector", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
              labelSelector: {matchLabels: {app: web}}}]}
            """, "podTopologySpread.defaultConstraints[0].labelSelector: must not be set"),
        Arguments.of("matchLabelKeys", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
              matchLabelKeys: [pod-template-hash]}]}
            """, "podTopologySpread.defaultConstraints[0].matchLabelKeys: must not be set"),
        Arguments.of("maxSkew 0", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 0, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}
            """, "podTopologySpread.defaultConstraints[0].maxSkew: must be greater than 0"),
        Arguments.of("no maxSkew", """
            podTopologySpread: {defaultConstraints: [{topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}
            """, "podTopologySpread.defaultConstraints[0].maxSkew: required"),
        Arguments.of("a textual maxSkew", """
            podTopologySpread: {defaultConstraints: [{maxSkew: "1", topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}
            """, "podTopologySpread.defaultConstraints[0].maxSkew: expected an integer"),
        Arguments.of("a repeated key and whenUnsatisfiable", """
            podTopologySpread: {defaultConstraints: [
              {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule},
              {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule},
              {maxSkew: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}
            """, "podTopologySpread.defaultConstraints[2]: duplicate of podTopologySpread.defaultConstraints[0]"),
        Arguments.of("no whenUnsatisfiable", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone}]}
            """, "podTopologySpread.defaultConstraints[0].whenUnsatisfiable: required"),
        Arguments.of("an unknown whenUnsatisfiable", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: Never}]}
            """, "podTopologySpread.defaultConstraints[0].whenUnsatisfiable: unknown value \"Never\""),
        Arguments.of("no topologyKey", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]}
            """, "podTopologySpread.defaultConstraints[0].topologyKey: required"),
        Arguments.of("an invalid topologyKey", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: "zone!", whenUnsatisfiable: DoNotSchedule}]}
            """, "podTopologySpread.defaultConstraints[0].topologyKey: \"zone!\" is not a valid label key"),
        Arguments.of("minDomains 0", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, minDomains: 0}]}
            """, "podTopologySpread.defaultConstraints[0].minDomains: must be greater than 0"),
        Arguments.of("an unknown node inclusion policy", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Always}]}
            """, "podTopologySpread.defaultConstraints[0].nodeTaintsPolicy: unknown value \"Always\""),
        Arguments.of("an unknown constraint field", """
            podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, skew: 2}]}
            """, "podTopologySpread.defaultConstraints[0].skew: unknown field"),
        Arguments.of("an unknown top-level field", """
            nodeResourcesFit: {scoringStrategy: {type: MostAllocated}}
            """, "nodeResourcesFit: unknown field"),
        Arguments.of("constraints that are not a list", """
            podTopologySpread: {defaultConstraints: {maxSkew: 1}}
            """, "podTopologySpread.defaultConstraints: expected a list, found object"),
        Arguments.of("System defaulting with constraints", """
            apiVersion: kubescheduler.config.k8s.io/v1
            kind: KubeSchedulerConfiguration
            profiles: [{pluginConfig: [{name: PodTopologySpread, args: {defaultingType: System,
              defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}}]}]
            """, "profiles[0].pluginConfig[0].args.defaultConstraints: must be empty when defaultingType is System"),
        Arguments.of("an invalid constraint in a KubeSchedulerConfiguration", """
            apiVersion: kubescheduler.config.k8s.io/v1
            kind: KubeSchedulerConfiguration
            profiles: [{pluginConfig: [{name: PodTopologySpread, args: {
              defaultConstraints: [{maxSkew: -1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}}]}]
            """, "profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew: must be greater than 0"),
        Arguments.of("another kind", """
            apiVersion: kubescheduler.config.k8s.io/v1
            kind: PodTopologySpreadArgs
            """, "kind: expected KubeSchedulerConfiguration"),
        Arguments.of("another group", """
            apiVersion: v1
            kind: ConfigMap
            """, "apiVersion: expected kubescheduler.config.k8s.io/v1"),
        Arguments.of("a repeated key", """
            podTopologySpread: {}
            podTopologySpread: {}
            """, "invalid YAML or JSON: Duplicate field 'podTopologySpread'"),
        Arguments.of("several documents", """
            podTopologySpread: {}
            ---
            podTopologySpread: {}
            """, "expected one document, found several"),
        Arguments.of("a list", """
            - podTopologySpread: {}
            """, "expected an object, found array"));
  }

  @ParameterizedTest(name = "rejects {0}")
  @MethodSource("invalidConfigs")
  void rejectsInvalidConfigsNamingFileAndField(String description, String text, String message) {
    assertThatThrownBy(() -> SchedulerConfig.parse(text, SOURCE))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(SOURCE + ": " + message);
  }

  @Test
  void readsAFileAndNamesItInErrors() throws IOException {
    Path good = Files.writeString(dir.resolve("good.yaml"), """
        podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}
        """);
    Path bad = Files.writeString(dir.resolve("bad.yaml"), "podTopologySpread: {defaultConstraints: [{maxSkew: 0}]}\n");

    assertThat(SchedulerConfig.read(good).defaultConstraints().constraints()).containsExactly(ZONAL);
    assertThatThrownBy(() -> SchedulerConfig.read(bad))
        .hasMessage(bad + ": podTopologySpread.defaultConstraints[0].maxSkew: must be greater than 0");
    assertThatThrownBy(() -> SchedulerConfig.read(dir.resolve("absent.yaml")))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(dir.resolve("absent.yaml") + ": cannot read");
  }
}
