package sh.karpenter.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.runtime.ReconcileObserver;

class ControllerRuntimeMetricsTest {
  private final Metrics metrics = new Metrics(new CollectorRegistry());
  private final ReconcileObserver observer = metrics.controllerRuntime();

  @Test
  void countsSuccessesAndErrorsAndTimesEveryReconcile() {
    observer.reconciled("nodeclaim.lifecycle", Duration.ofMillis(20), null);
    observer.reconciled("nodeclaim.lifecycle", Duration.ofMillis(30), null);
    observer.reconciled("nodeclaim.lifecycle", Duration.ofMillis(50), new IllegalStateException("boom"));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.value(
            "controller_runtime_reconcile_total", Map.of("controller", "nodeclaim.lifecycle", "result", "success")))
        .contains(2.0);
    assertThat(scraped.value(
            "controller_runtime_reconcile_total", Map.of("controller", "nodeclaim.lifecycle", "result", "error")))
        .contains(1.0);
    assertThat(scraped.value("controller_runtime_reconcile_errors_total", Map.of("controller", "nodeclaim.lifecycle")))
        .contains(1.0);
    assertThat(scraped.value("controller_runtime_reconcile_time_seconds_count", Map.of("controller", "nodeclaim.lifecycle")))
        .contains(3.0);
    assertThat(scraped.value("controller_runtime_reconcile_time_seconds_sum", Map.of("controller", "nodeclaim.lifecycle")))
        .hasValueSatisfying(sum -> assertThat(sum).isCloseTo(0.1, within(1e-9)));
  }

  @Test
  void reconcileTimeUsesControllerRuntimeBuckets() {
    observer.reconciled("c", Duration.ofSeconds(61), null);
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.samples("controller_runtime_reconcile_time_seconds_bucket"))
        .extracting(s -> s.labels().get("le"))
        .startsWith("0.005")
        .endsWith("50.0", "60.0", "+Inf")
        .hasSize(ControllerRuntimeMetrics.RECONCILE_BUCKETS.length + 1);
    assertThat(scraped.value("controller_runtime_reconcile_time_seconds_bucket", Map.of("controller", "c", "le", "60.0")))
        .contains(0.0);
  }

  @Test
  void queueDepthIsAGaugePerQueueName() {
    observer.queueDepth("provisioner", 3);
    observer.queueDepth("provisioner", 1);
    observer.queueDepth("nodeclaim.lifecycle", 0);
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.value("workqueue_depth", Map.of("name", "provisioner"))).contains(1.0);
    assertThat(scraped.value("workqueue_depth", Map.of("name", "nodeclaim.lifecycle"))).contains(0.0);
  }

  @Test
  void nullsNeverThrow() {
    observer.reconciled(null, null, null);
    observer.queueDepth(null, 2);
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.value("controller_runtime_reconcile_total", Map.of("controller", "", "result", "success")))
        .contains(1.0);
    assertThat(scraped.value("workqueue_depth", Map.of("name", ""))).contains(2.0);
  }

  @Test
  void standaloneInstanceRegistersInItsOwnRegistry() {
    CollectorRegistry registry = new CollectorRegistry();
    new ControllerRuntimeMetrics(registry).queueDepth("q", 5);

    assertThat(registry.getSampleValue("workqueue_depth", new String[] {"name"}, new String[] {"q"})).isEqualTo(5.0);
  }
}
