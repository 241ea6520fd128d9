package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.metrics.NodeMetrics;
import sh.karpenter.controller.operator.OperatorContext;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.SingletonLoop;
import sh.karpenter.providers.aws.interruption.InterruptionMetrics;
import sh.karpenter.providers.aws.metrics.CloudProviderMetrics;

/**
 * Every metric a dashboard of charts/karpenter/dashboards/ queries is exported by the controller:
 * the names in each panel's PromQL (and each templating query) that start with {@code karpenter_},
 * {@code controller_runtime_}, {@code workqueue_} or {@code operator_} (a histogram's {@code _bucket},
 * {@code _sum} and {@code _count} series as its family) are exported by a registry holding {@link Metrics}, {@link NodeMetrics},
 * the AWS provider's {@link CloudProviderMetrics} and {@link InterruptionMetrics}.
 */
class DashboardMetricsTest {
  private static final Pattern METRIC = Pattern.compile("(?<![A-Za-z0-9_$:])(?:karpenter_|controller_runtime_|workqueue_|operator_)[a-z0-9_]*");
  private static final Path DASHBOARDS = repositoryRoot().resolve("charts/karpenter/dashboards");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A query of a dashboard: where it is and its text. */
  record Query(String dashboard, String panel, String expr) {
    @Override
    public String toString() {
      return dashboard + " / " + panel;
    }
  }

  static List<Path> dashboards() throws IOException {
    try (Stream<Path> files = Files.list(DASHBOARDS)) {
      return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
  }

  static List<Query> queries() throws IOException {
    List<Query> queries = new ArrayList<>();
    for (Path file : dashboards()) {
      JsonNode dashboard = JSON.readTree(file.toFile());
      String name = file.getFileName().toString();
      collectPanels(name, dashboard.path("panels"), queries);
      for (JsonNode variable : dashboard.path("templating").path("list")) {
        JsonNode query = variable.path("query");
        String text = query.isObject() ? query.path("query").asText("") : query.asText("");
        if ("query".equals(variable.path("type").asText())) {
          queries.add(new Query(name, "variable " + variable.path("name").asText(), text));
        }
      }
    }
    return queries;
  }

  private static void collectPanels(String dashboard, JsonNode panels, List<Query> into) {
    for (JsonNode panel : panels) {
      for (JsonNode target : panel.path("targets")) {
        if (target.has("expr")) {
          into.add(new Query(dashboard, panel.path("title").asText(), target.path("expr").asText()));
        }
      }
      collectPanels(dashboard, panel.path("panels"), into);
    }
  }

  /**
   * The metric names a PromQL expression reads, as written (a histogram's {@code _bucket}, {@code
   * _sum} and {@code _count} series included); string literals (label values) are skipped.
   */
  static Set<String> metricNames(String expr) {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\""));
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  /**
   * The series names the controller exports: each family's name (counters with their {@code
   * _total}), and a histogram's {@code _bucket}, {@code _sum} and {@code _count}.
   */
  static Set<String> exported() {
    CollectorRegistry registry = new CollectorRegistry();
    Metrics metrics = new Metrics(registry);
    new NodeMetrics(metrics, Clock.systemUTC());
    new InterruptionMetrics(metrics);
    new CloudProviderMetrics((nodePool, ref) -> List.of(), () -> true, () -> true).register(new RegistryOnlyContext(metrics));
    Set<String> names = new TreeSet<>();
    for (Collector.MetricFamilySamples family : Collections.list(registry.metricFamilySamples())) {
      switch (family.type) {
        case COUNTER -> names.add(family.name + "_total");
        case HISTOGRAM, SUMMARY -> {
          for (String suffix : List.of("_bucket", "_sum", "_count")) {
            names.add(family.name + suffix);
          }
        }
        default -> names.add(family.name);
      }
    }
    return names;
  }

  @Test
  void thereAreTheCapacityAndPerformanceDashboardsWithQueries() throws IOException {
    assertThat(dashboards()).extracting(p -> p.getFileName().toString())
        .containsExactly("karpenter-capacity.json", "karpenter-performance.json");
    assertThat(queries()).hasSizeGreaterThan(20);
    assertThat(exported()).contains("karpenter_nodes_allocatable", "karpenter_nodeclaims_created_total",
        "karpenter_cloudprovider_instance_type_offering_price_estimate", "karpenter_interruption_received_messages_total");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void everyMetricAQueryReadsIsExported(Query query) {
    Set<String> names = metricNames(query.expr());
    assertThat(names).as("%s queries no Karpenter metric: %s", query, query.expr()).isNotEmpty();
    Set<String> exported = exported();
    for (String name : names) {
      assertThat(exported).as("dashboard %s, panel \"%s\" queries %s, which the controller does not export",
          query.dashboard(), query.panel(), name).contains(name);
    }
  }

  @Test
  void namesAreExtractedFromPromQl() {
    assertThat(metricNames("histogram_quantile(0.9, sum by (le) (rate(karpenter_x_seconds_bucket{a=\"karpenter_y\"}[$__rate_interval])))"
        + " / workqueue_depth + controller_runtime_reconcile_errors_total"))
        .containsExactly("controller_runtime_reconcile_errors_total", "karpenter_x_seconds_bucket", "workqueue_depth");
    assertThat(metricNames("karpenter_scheduler_unschedulable_pods_count")).containsExactly("karpenter_scheduler_unschedulable_pods_count");
  }

  @Test
  void everyPanelHasItsDatasourceFromTheVariable() throws IOException {
    for (Path file : dashboards()) {
      JsonNode dashboard = JSON.readTree(file.toFile());
      assertThat(dashboard.path("templating").path("list").get(0).path("name").asText()).as(file.toString()).isEqualTo("datasource");
      for (JsonNode panel : dashboard.path("panels")) {
        if (!"row".equals(panel.path("type").asText())) {
          assertThat(panel.path("datasource").path("uid").asText()).as("%s panel %s", file.getFileName(), panel.path("title"))
              .isEqualTo("${datasource}");
        }
      }
    }
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("charts/karpenter"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no charts/karpenter above " + Path.of("").toAbsolutePath());
  }

  /** Just enough of an {@link OperatorContext} for an extension to register its families: loops are built, never started. */
  private record RegistryOnlyContext(Metrics metrics) implements OperatorContext {
    @Override public KubernetesClient client() { throw new UnsupportedOperationException(); }
    @Override public Informers informers() { throw new UnsupportedOperationException(); }
    @Override public Clock clock() { return Clock.systemUTC(); }
    @Override public EventRecorder events() { throw new UnsupportedOperationException(); }
    @Override public Options options() { throw new UnsupportedOperationException(); }
    @Override public <T extends HasMetadata> SharedIndexInformer<T> informer(SharedIndexInformer<T> informer) {
      throw new UnsupportedOperationException();
    }
    @Override public Controller<String> controller(String name, Reconciler<String> reconciler, int workers) {
      throw new UnsupportedOperationException();
    }
    @Override public void nodeClassChanged(String group, String kind, String name) {}
    @Override public SingletonLoop loop(String name, Callable<Result> body) { return new SingletonLoop(name, body); }
  }
}
