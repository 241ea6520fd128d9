package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.testkit.chart.Helm;

/**
 * {@code dashboards.enabled=true} renders one ConfigMap per dashboard JSON of the chart, labelled
 * {@code grafana_dashboard: "1"} for Grafana's sidecar and holding the file as it is; by default the
 * chart renders none. helm comes from {@code scripts/control-plane ensure} (skipped without it,
 * failing under {@code CI=true}).
 */
class ChartDashboardsTest {
  private static final Map<String, String> BASE = Map.of("settings.clusterName", "my-cluster");

  @Test
  void dashboardsEnabledRendersAConfigMapPerDashboardForTheGrafanaSidecar() throws Exception {
    Map<String, String> values = new java.util.HashMap<>(BASE);
    values.put("dashboards.enabled", "true");
    values.put("dashboards.annotations.grafana_folder", "Karpenter");
    List<ConfigMap> maps = configMaps(Helm.shared().template("karpenter", "karpenter", values));

    assertThat(maps).extracting(m -> m.getMetadata().getName())
        .containsExactlyInAnyOrder("karpenter-dashboard-capacity", "karpenter-dashboard-performance");
    ObjectMapper json = new ObjectMapper();
    for (ConfigMap map : maps) {
      assertThat(map.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
      assertThat(map.getMetadata().getAnnotations()).containsEntry("grafana_folder", "Karpenter");
      assertThat(map.getMetadata().getNamespace()).isEqualTo("karpenter");
      assertThat(map.getData()).hasSize(1);
      var entry = map.getData().entrySet().iterator().next();
      String file = Files.readString(Helm.shared().chart().resolve("dashboards").resolve(entry.getKey()));
      assertThat(json.readTree(entry.getValue())).as(entry.getKey()).isEqualTo(json.readTree(file));
    }
  }

  @Test
  void dashboardsCanGoToGrafanasNamespace() {
    Map<String, String> values = new java.util.HashMap<>(BASE);
    values.put("dashboards.enabled", "true");
    values.put("dashboards.namespace", "monitoring");
    assertThat(configMaps(Helm.shared().template("karpenter", "karpenter", values)))
        .isNotEmpty().allSatisfy(m -> assertThat(m.getMetadata().getNamespace()).isEqualTo("monitoring"));
  }

  @Test
  void noDashboardsByDefault() {
    assertThat(configMaps(Helm.shared().template("karpenter", "karpenter", BASE))).isEmpty();
  }

  private static List<ConfigMap> configMaps(String manifests) {
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<ConfigMap> maps = new ArrayList<>();
    for (String document : manifests.split("(?m)^---\\s*$")) {
      if (document.contains("\nkind: ConfigMap")) {
        maps.add(serialization.unmarshal(document, ConfigMap.class));
      }
    }
    return maps;
  }
}
