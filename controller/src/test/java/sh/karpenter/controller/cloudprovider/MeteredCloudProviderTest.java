package sh.karpenter.controller.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.metrics.ScrapedText;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;

class MeteredCloudProviderTest {
  private static final NodeClassRef NODE_CLASS = new NodeClassRef("karpenter.kwok.sh", "KWOKNodeClass", "default");
  private static final LaunchRequest REQUEST =
      new LaunchRequest(
          "default-abc12", "default", NODE_CLASS, Requirements.EMPTY, Resources.EMPTY, Map.of(), List.of(), List.of());

  private final TestingClock clock = new TestingClock();
  private final ScriptedCloudProvider fake = new ScriptedCloudProvider(clock);
  private final Metrics metrics = new Metrics(new CollectorRegistry());
  private final MeteredCloudProvider metered =
      new MeteredCloudProvider(fake, metrics, clock).forController("nodeclaim.lifecycle");

  private ScrapedText scrape() {
    return ScrapedText.parse(metrics.scrape());
  }

  private static Map<String, String> labels(String method) {
    return Map.of("controller", "nodeclaim.lifecycle", "method", method, "provider", "fake");
  }

  @Test
  void delegatesEveryCallAndReturnsTheDelegatesAnswers() {
    assertThat(metered.create(REQUEST)).isEqualTo(ScriptedCloudProvider.INSTANCE);
    assertThat(metered.get("fake://i-1")).contains(ScriptedCloudProvider.INSTANCE);
    assertThat(metered.list()).containsExactly(ScriptedCloudProvider.INSTANCE);
    assertThat(metered.instanceTypes("default", NODE_CLASS)).isEmpty();
    assertThat(metered.driftReason("fake://i-1", NODE_CLASS)).isEqualTo("ImageDrift");
    metered.delete("fake://i-1");

    assertThat(fake.calls).containsExactly("create", "get", "list", "instanceTypes", "driftReason", "delete");
    assertThat(metered.name()).isEqualTo("fake");
    assertThat(metered.repairPolicies()).isEqualTo(fake.repairPolicies());
    assertThat(metered.supportedNodeClasses()).isEqualTo(fake.supportedNodeClasses());
  }

  @Test
  void timesEachMeasuredMethodUnderUpstreamsMethodName() {
    fake.callTakes = Duration.ofMillis(250);
    metered.create(REQUEST);
    metered.get("fake://i-1");
    metered.list();
    metered.instanceTypes("default", NODE_CLASS);
    metered.driftReason("fake://i-1", NODE_CLASS);
    metered.delete("fake://i-1");
    ScrapedText scraped = scrape();

    for (String method : List.of("Create", "Get", "List", "GetInstanceTypes", "IsDrifted", "Delete")) {
      assertThat(scraped.value("karpenter_cloudprovider_duration_seconds_count", labels(method))).as(method).contains(1.0);
      assertThat(scraped.value("karpenter_cloudprovider_duration_seconds_sum", labels(method))).as(method).contains(0.25);
    }
    assertThat(scraped.samples("karpenter_cloudprovider_errors_total")).isEmpty();
  }

  @Test
  void unmeasuredMethodsRecordNothing() {
    metered.name();
    metered.repairPolicies();
    metered.supportedNodeClasses();

    assertThat(scrape().samples("karpenter_cloudprovider_duration_seconds_count")).isEmpty();
  }

  @Test
  void countsErrorsUnderUpstreamsErrorNamesAndRethrowsThemUnchanged() {
    fake.callTakes = Duration.ofSeconds(2);
    InsufficientCapacityException ice = new InsufficientCapacityException("no capacity");
    fake.failNextWith = ice;
    assertThatThrownBy(() -> metered.create(REQUEST)).isSameAs(ice);
    fake.failNextWith = new NodeClaimNotFoundException("gone");
    assertThatThrownBy(() -> metered.delete("fake://i-1")).isInstanceOf(NodeClaimNotFoundException.class);
    fake.failNextWith = new NodeClassNotReadyException("not ready");
    assertThatThrownBy(() -> metered.create(REQUEST)).isInstanceOf(NodeClassNotReadyException.class);
    fake.failNextWith = new CreateException("LaunchFailed", "quota", null);
    assertThatThrownBy(() -> metered.create(REQUEST)).isInstanceOf(CreateException.class);
    fake.failNextWith = new IllegalStateException("bug");
    assertThatThrownBy(() -> metered.list()).isInstanceOf(IllegalStateException.class);
    ScrapedText scraped = scrape();

    assertThat(errors(scraped, "Create", "InsufficientCapacityError", "default")).contains(1.0);
    assertThat(errors(scraped, "Delete", "NodeClaimNotFoundError", "")).contains(1.0);
    assertThat(errors(scraped, "Create", "NodeClassNotReadyError", "default")).contains(1.0);
    // Upstream v1.15 names only the three well-known errors; a CreateError is "unknown" like any other.
    assertThat(errors(scraped, "Create", "unknown", "default")).contains(1.0);
    assertThat(errors(scraped, "List", "unknown", "")).contains(1.0);
    // failed calls are timed too
    assertThat(scraped.value("karpenter_cloudprovider_duration_seconds_count", labels("Create"))).contains(3.0);
    assertThat(scraped.value("karpenter_cloudprovider_duration_seconds_sum", labels("Create"))).contains(6.0);
  }

  private static java.util.Optional<Double> errors(ScrapedText scraped, String method, String error, String nodePool) {
    Map<String, String> labels = new java.util.HashMap<>(labels(method));
    labels.put("error", error);
    labels.put("nodepool", nodePool);
    return scraped.value("karpenter_cloudprovider_errors_total", labels);
  }

  @Test
  void errorLabelIsUnknownForAnythingButTheWellKnownErrors() {
    assertThat(MeteredCloudProvider.errorLabel(new InsufficientCapacityException("x"))).isEqualTo("InsufficientCapacityError");
    assertThat(MeteredCloudProvider.errorLabel(new NodeClaimNotFoundException("x"))).isEqualTo("NodeClaimNotFoundError");
    assertThat(MeteredCloudProvider.errorLabel(new NodeClassNotReadyException("x"))).isEqualTo("NodeClassNotReadyError");
    assertThat(MeteredCloudProvider.errorLabel(new CreateException("LaunchFailed", "quota", null))).isEqualTo("unknown");
    assertThat(MeteredCloudProvider.errorLabel(new UnsupportedOperationException())).isEqualTo("unknown");
    assertThat(MeteredCloudProvider.errorLabel(new RuntimeException() {})).isEqualTo("unknown");
  }

  @Test
  void deleteAndDriftErrorsNameTheNodePoolOfTheProviderIdsNodeClaim() {
    MeteredCloudProvider resolving = new MeteredCloudProvider(fake, metrics, clock,
        providerId -> providerId.equals("fake://i-1") ? "general" : null).forController("nodeclaim.lifecycle");
    fake.failNextWith = new NodeClaimNotFoundException("gone");
    assertThatThrownBy(() -> resolving.delete("fake://i-1")).isInstanceOf(NodeClaimNotFoundException.class);
    fake.failNextWith = new IllegalStateException("api down");
    assertThatThrownBy(() -> resolving.driftReason("fake://i-2", NODE_CLASS)).isInstanceOf(IllegalStateException.class);
    fake.failNextWith = new IllegalStateException("api down");
    assertThatThrownBy(() -> resolving.instanceTypes("spot-pool", NODE_CLASS)).isInstanceOf(IllegalStateException.class);
    fake.failNextWith = new IllegalStateException("api down");
    assertThatThrownBy(() -> resolving.get("fake://i-1")).isInstanceOf(IllegalStateException.class);
    ScrapedText scraped = scrape();

    assertThat(errors(scraped, "Delete", "NodeClaimNotFoundError", "general")).contains(1.0);
    assertThat(errors(scraped, "IsDrifted", "unknown", "")).contains(1.0);
    assertThat(errors(scraped, "GetInstanceTypes", "unknown", "spot-pool")).contains(1.0);
    // Get names no NodePool, as upstream (it has no NodeClaim when the call fails).
    assertThat(errors(scraped, "Get", "unknown", "")).contains(1.0);
  }

  @Test
  void eachControllerViewLabelsItsOwnCallsAndSharesTheDelegate() {
    MeteredCloudProvider base = new MeteredCloudProvider(fake, metrics, clock);
    base.list();
    base.forController("disruption").list();
    ScrapedText scraped = scrape();

    assertThat(base.controller()).isEmpty();
    assertThat(scraped.value(
            "karpenter_cloudprovider_duration_seconds_count", Map.of("controller", "", "method", "List", "provider", "fake")))
        .contains(1.0);
    assertThat(scraped.value(
            "karpenter_cloudprovider_duration_seconds_count",
            Map.of("controller", "disruption", "method", "List", "provider", "fake")))
        .contains(1.0);
    assertThat(fake.calls).containsExactly("list", "list");
  }

  @Test
  void noopMetricsStillDelegate() {
    MeteredCloudProvider unmetered = new MeteredCloudProvider(fake, Metrics.noop(), clock);
    assertThat(unmetered.create(REQUEST)).isEqualTo(ScriptedCloudProvider.INSTANCE);
  }
}
