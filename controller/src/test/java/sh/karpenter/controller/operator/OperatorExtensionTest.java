package sh.karpenter.controller.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.prometheus.client.CollectorRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.SingletonLoop;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;

/**
 * What an {@link OperatorExtension} is given: it runs once while the Operator is built, sees the
 * Operator's own client, informers, clock, events, metrics and options, and gets back the informer,
 * controller and loop it adds. Nothing here talks to an API server: the Operator is built and closed,
 * never started (the AWS provider's NodeClassControllerIT runs an extension in a started Operator).
 */
class OperatorExtensionTest {
  private final KubernetesClient client =
      new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:1").build()).build();
  private final TestingClock clock = new TestingClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final Metrics metrics = new Metrics(new CollectorRegistry());
  private final TestingEventRecorder events = new TestingEventRecorder(clock);
  private final Options options = Options.defaults().withPorts(-1, -1).withLeaderElection(false, "unused", "default");
  private Operator operator;

  @AfterEach
  void close() {
    if (operator != null) {
      operator.close();
    }
    client.close();
  }

  @Test
  void anExtensionRegistersOnceWithTheOperatorsCollaborators() {
    List<OperatorContext> seen = new ArrayList<>();
    List<Controller<String>> controllers = new ArrayList<>();
    List<SingletonLoop> loops = new ArrayList<>();
    List<SharedIndexInformer<ConfigMap>> informers = new ArrayList<>();
    OperatorExtension extension = context -> {
      seen.add(context);
      informers.add(context.informer(context.client().configMaps().inAnyNamespace().runnableInformer(0)));
      controllers.add(context.controller("provider.thing", key -> Result.done(), 3));
      loops.add(context.loop("provider.loop", Result::done));
    };

    operator = new Operator(client, new TestingCloudProvider(List.of()), options, clock, metrics, events, List.of(extension));

    assertThat(seen).singleElement().satisfies(context -> {
      assertThat(context.client()).isSameAs(client);
      assertThat(context.informers()).isSameAs(operator.informers());
      assertThat(context.clock()).isSameAs(clock);
      assertThat(context.events()).isSameAs(events);
      assertThat(context.metrics()).isSameAs(metrics);
      assertThat(context.options()).isSameAs(options);
    });
    assertThat(controllers).singleElement().satisfies(c -> {
      assertThat(c.name()).isEqualTo("provider.thing");
      assertThat(c.workers()).isEqualTo(3);
    });
    assertThat(loops).singleElement().satisfies(loop -> assertThat(loop.name()).isEqualTo("provider.loop"));
    assertThat(informers).hasSize(1);
  }

  @Test
  void theExistingConstructorsAddNoExtension() {
    operator = new Operator(client, new TestingCloudProvider(List.of()), options, clock, metrics, events);
    assertThat(operator.informers()).isNotNull();
  }
}
