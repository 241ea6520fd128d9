package sh.karpenter.benchmarks;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.controller.metrics.ApiRequestMetrics;

/**
 * The controller's requests to kube-apiserver so far, read from its own {@code
 * karpenter_kube_client_requests_total} counter, summed by verb; and the rate between two readings.
 */
record ApiLoad(Map<String, Double> byVerb, Map<String, Double> byVerbAndResource) {
  static ApiLoad read(CollectorRegistry registry) {
    String family = ApiRequestMetrics.REQUESTS_TOTAL.replaceFirst("_total$", "");
    Map<String, Double> byVerb = new TreeMap<>();
    Map<String, Double> byVerbAndResource = new TreeMap<>();
    for (Collector.MetricFamilySamples samples : Collections.list(registry.metricFamilySamples())) {
      if (!samples.name.equals(family)) {
        continue;
      }
      for (Collector.MetricFamilySamples.Sample sample : samples.samples) {
        if (sample.name.equals(ApiRequestMetrics.REQUESTS_TOTAL)) {
          String verb = sample.labelValues.get(sample.labelNames.indexOf("verb"));
          byVerb.merge(verb, sample.value, Double::sum);
          byVerbAndResource.merge(verb + " " + sample.labelValues.get(sample.labelNames.indexOf("resource")), sample.value, Double::sum);
        }
      }
    }
    return new ApiLoad(byVerb, byVerbAndResource);
  }

  double total() {
    return byVerb.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  /** "N/s (verb a/s, ...)": the requests per second from {@code earlier} to this reading, {@code seconds} apart. */
  String ratesSince(ApiLoad earlier, double seconds) {
    StringBuilder text = new StringBuilder(String.format("%.1f/s (", (total() - earlier.total()) / seconds));
    String separator = "";
    for (Map.Entry<String, Double> verb : byVerb.entrySet()) {
      double count = verb.getValue() - earlier.byVerb.getOrDefault(verb.getKey(), 0.0);
      if (count > 0) {
        text.append(separator).append(String.format("%s %.1f", verb.getKey(), count / seconds));
        separator = ", ";
      }
    }
    return text.append(")").toString();
  }

  /** The {@code n} most frequent verb × resource pairs since {@code earlier}, with their counts. */
  String topSince(ApiLoad earlier, int n) {
    return byVerbAndResource.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - earlier.byVerbAndResource.getOrDefault(e.getKey(), 0.0)))
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .limit(n)
        .map(e -> String.format("%s %.0f", e.getKey(), e.getValue()))
        .collect(java.util.stream.Collectors.joining(", "));
  }
}
