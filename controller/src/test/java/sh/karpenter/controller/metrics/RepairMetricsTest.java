package sh.karpenter.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Node repair's condition label is upstream's {@code pretty.ToSnakeCase} of the condition type. */
class RepairMetricsTest {
  @Test
  void conditionTypesAreReportedInSnakeCase() {
    assertThat(RepairMetrics.snakeCase("Ready")).isEqualTo("ready");
    assertThat(RepairMetrics.snakeCase("BadNode")).isEqualTo("bad_node");
    assertThat(RepairMetrics.snakeCase("AcceleratedHardwareReady")).isEqualTo("accelerated_hardware_ready");
    assertThat(RepairMetrics.snakeCase("testKeyValue")).isEqualTo("test_key_value");
    assertThat(RepairMetrics.snakeCase("NVMeReady")).isEqualTo("nv_me_ready");
  }
}
