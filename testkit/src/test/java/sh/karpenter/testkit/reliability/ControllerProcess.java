package sh.karpenter.testkit.reliability;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.core.cloudprovider.CloudProvider;

/**
 * One Karpenter controller as a process would be: its own API connection (through its own {@link
 * FaultProxy}), its own caches and queues, and its own view of the shared cloud ({@link
 * CloudProviderGate}). {@link #kill} is the in-process stand-in for {@code kill -9}: first the gate
 * and the proxy go dead, so from that instant nothing of this controller reaches the cloud or the
 * API server (its Lease is not released, a write in flight is cut off wherever it stood), then its
 * threads are stopped; the in-memory state is simply gone (RELIABILITY.md#how-a-controller-is-killed).
 */
final class ControllerProcess implements AutoCloseable {
  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  final FaultProxy proxy;
  final CloudProviderGate gate;
  final KubernetesClient client;
  final Operator operator;
  final TestingEventRecorder events = new TestingEventRecorder();
  private boolean stopped;
  private volatile Thread stopping;

  private ControllerProcess(Config apiServer, CloudProvider cloud, Options options, int holdLaunchesFrom) {
    this.proxy = FaultProxy.start(apiServer);
    this.gate = new CloudProviderGate(cloud).holdLaunchesFrom(holdLaunchesFrom);
    this.client = proxy.client();
    this.operator = new Operator(client, gate, options, Clock.systemUTC(), new Metrics(new CollectorRegistry()), events);
  }

  /** Starts a controller against {@code apiServer}'s admin config, launching on {@code cloud}. */
  static ControllerProcess start(Config apiServer, CloudProvider cloud, Options options) {
    return start(apiServer, cloud, options, Integer.MAX_VALUE);
  }

  /** Starts a controller whose launches from the {@code holdLaunchesFrom}-th on are held by its gate. */
  static ControllerProcess start(Config apiServer, CloudProvider cloud, Options options, int holdLaunchesFrom) {
    ControllerProcess process = new ControllerProcess(apiServer, cloud, options, holdLaunchesFrom);
    process.operator.start();
    return process;
  }

  /**
   * Options for a fault test's controller: short batch windows, ports chosen by the OS, leader
   * election on with upstream's durations (15 s lease) in {@code namespace}, so a killed leader's
   * successor waits for its Lease to expire, as a restarted pod would.
   */
  static Options options(String namespace) {
    return Options.defaults()
        .withBatchDurations(Duration.ofSeconds(1), Duration.ofSeconds(10))
        .withPorts(0, 0)
        .withLeaderElection(true, "karpenter-leader-election", namespace);
  }

  /** Cuts this controller's network (API server and cloud) or heals it. */
  void partition(boolean cut) {
    gate.partition(cut);
    proxy.partition(cut);
  }

  /**
   * {@code kill -9}: nothing of this controller reaches the cloud or the API server from now on. Its
   * threads wind down in the background (their calls all fail); the test goes on at once, as a
   * restarted pod would.
   */
  void kill() {
    gate.kill();
    proxy.close();
    stopping = Thread.ofVirtual().name("killed-controller").start(this::stop);
  }

  private synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    operator.close();
    client.close();
  }

  /** Stops the controller for good (a killed one included), waiting a bounded time for its threads. */
  @Override
  public void close() throws InterruptedException {
    gate.kill();
    proxy.close();
    Thread closer = stopping != null ? stopping : Thread.ofVirtual().start(this::stop);
    closer.join(STOP_WAIT);
  }
}
