package sh.karpenter.testkit.termination;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachmentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.node.termination.NodeTermination;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.TestingEventRecorder.RecordedEvent;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Node termination on the real control plane (docs/behaviour/termination.md, upstream scenarios
 * 69–74): the {@code node.termination} reconciler driven directly (with a testing clock where the
 * terminationGracePeriod matters) and its eviction queue running; KWOK runs and deletes the pods,
 * kube-controller-manager keeps PodDisruptionBudgets and Deployments, kube-scheduler places
 * replacements.
 */
@ControlPlaneTest
class NodeTerminationIT {
  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private TerminationRig rig;

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closeable : cleanup.reversed()) {
      closeable.close();
    }
    if (rig != null) {
      rig.close();
    }
  }

  @Test
  void evictsNonCriticalPodsFirstAndDaemonSetPodsLastThenTheNodeGoes(KubernetesClient client) {
    rig = new TerminationRig(client, Clock.systemUTC());
    rig.registeredNode("tiers", "node-tiers", null);
    String providerId = providerId("tiers");
    rig.boundPod("web-1", "web", "node-tiers");
    rig.boundPod("web-2", "web", "node-tiers");
    Pod dns = TestObjects.pausePod("dns", "dns");
    dns.getSpec().setNodeName("node-tiers");
    dns.getSpec().setPriorityClassName("system-cluster-critical");
    client.pods().resource(dns).create();
    rig.daemonSet("logs", "node-tiers", null);
    rig.daemonSet("cni", "node-tiers", "system-node-critical");
    rig.awaitRunning(5);
    List<String> order = deletionOrder(client);

    client.nodes().withName("node-tiers").delete();
    rig.terminate("tiers", "node-tiers", () -> {});

    Map<String, Integer> tier = Map.of("web", 0, "logs", 1, "dns", 2, "cni", 3);
    assertThat(order).containsExactlyInAnyOrder("web", "web", "logs", "dns", "cni");
    assertThat(order.stream().map(tier::get).toList()).isSorted();
    assertThat(rig.cloudProvider.deleteCalls()).contains(providerId);
    assertThat(rig.cloudProvider.get(providerId)).isEmpty();
    assertThat(client.pods().list().getItems()).isEmpty();
    assertThat(rig.events.events()).filteredOn(e -> e.reason().equals("Evicted")).extracting(RecordedEvent::name)
        .contains("web-1", "web-2", "dns").hasSize(5);
    assertThat(rig.events.forObject("node-tiers")).extracting(RecordedEvent::reason).contains("FailedDraining");
    String metrics = rig.metrics.scrape();
    assertThat(metrics).containsPattern("karpenter_pods_eviction_requests_total\\{code=\"200\",?} 5.0");
    assertThat(metrics).containsPattern("karpenter_pods_drained_total\\{[^}]*} 5.0");
    assertThat(metrics).containsPattern("karpenter_nodes_drained_total\\{[^}]*nodepool=\"default\"[^}]*} 1.0");
    assertThat(metrics).containsPattern("karpenter_nodes_terminated_total\\{[^}]*nodepool=\"default\"[^}]*} 1.0");
    assertThat(metrics).containsPattern("karpenter_nodes_termination_duration_seconds_count\\{[^}]*nodepool=\"default\"[^}]*} 1.0");
    assertThat(metrics).containsPattern("karpenter_nodes_lifetime_duration_seconds_count\\{[^}]*nodepool=\"default\"[^}]*} 1.0");
  }

  @Test
  void drainingNeverTakesMorePodsDownThanThePodDisruptionBudgetAllows(KubernetesClient client) {
    rig = new TerminationRig(client, Clock.systemUTC());
    rig.registeredNode("budget", "node-budget", null);
    client.apps().deployments().resource(new DeploymentBuilder()
            .withNewMetadata().withName("web").endMetadata()
            .withNewSpec()
              .withReplicas(4)
              .withNewSelector().addToMatchLabels("app", "web").endSelector()
              .withNewTemplate()
                .withNewMetadata().addToLabels("app", "web").endMetadata()
                .withSpec(TestObjects.pausePod("unused", "web").getSpec())
              .endTemplate()
            .endSpec()
            .build())
        .create();
    client.policy().v1().podDisruptionBudget().resource(new PodDisruptionBudgetBuilder()
            .withNewMetadata().withName("web").endMetadata()
            .withNewSpec().withMaxUnavailable(new IntOrString(1)).withNewSelector().addToMatchLabels("app", "web").endSelector().endSpec()
            .build())
        .create();
    rig.awaitRunning(4);
    assertThat(client.pods().list().getItems()).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo("node-budget"));
    client.policy().v1().podDisruptionBudget().withName("web").waitUntilCondition(
        pdb -> pdb.getStatus() != null && Objects.equals(pdb.getStatus().getObservedGeneration(), pdb.getMetadata().getGeneration())
            && pdb.getStatus().getCurrentHealthy() == 4 && pdb.getStatus().getDesiredHealthy() == 3,
        2, MINUTES);
    client.nodes().resource(KwokNodes.node("spare", "8", "16Gi")).create();
    await().atMost(2, MINUTES).until(() -> Optional.ofNullable(client.nodes().withName("spare").get())
        .map(n -> n.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")))
        .orElse(false));

    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger observed = new AtomicInteger();
    Watch watch = client.policy().v1().podDisruptionBudget().withName("web").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, PodDisruptionBudget pdb) {
        observed.incrementAndGet();
        if (pdb.getStatus() != null && pdb.getStatus().getCurrentHealthy() < pdb.getStatus().getDesiredHealthy()) {
          violations.add(action + " " + pdb.getStatus());
        }
      }

      @Override
      public void onClose(WatcherException cause) {}
    });
    cleanup.add(watch);

    client.nodes().withName("node-budget").delete();
    rig.terminate("budget", "node-budget", () -> {});

    assertThat(violations).isEmpty();
    assertThat(observed.get()).isGreaterThan(4); // the budget moved with every eviction
    await().atMost(2, MINUTES).untilAsserted(() -> assertThat(client.pods().list().getItems())
        .hasSize(4).allMatch(TestObjects::running).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo("spare")));
    String metrics = rig.metrics.scrape();
    assertThat(metrics).containsPattern("karpenter_pods_eviction_requests_total\\{code=\"200\",?} 4.0");
    assertThat(metrics).containsPattern("karpenter_pods_eviction_requests_total\\{code=\"429\",?} [1-9][0-9]*\\.0");
    assertThat(rig.events.forObject("node-budget"))
        .anySatisfy(e -> assertThat(e.reason() + " " + e.message()).startsWith("FailedDraining").contains("violates a PDB"));
  }

  @Test
  void aDoNotDisruptPodStallsTheDrainUntilTheTerminationGracePeriodRunsOut(KubernetesClient client) {
    TestingClock clock = new TestingClock(Instant.now());
    rig = new TerminationRig(client, clock);
    rig.registeredNode("claim-guarded", "node-guarded", "10m");
    Pod guarded = TestObjects.pausePod("guarded", "guarded");
    guarded.getMetadata().setAnnotations(Map.of(Annotations.DO_NOT_DISRUPT, "true"));
    guarded.getSpec().setNodeName("node-guarded");
    client.pods().resource(guarded).create();
    rig.boundPod("web", "web", "node-guarded");
    rig.awaitRunning(2);

    client.nodes().withName("node-guarded").delete();
    // The other pod is evicted; finalization gives the NodeClaim its termination timestamp.
    await().atMost(2, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      rig.termination.reconcile("node-guarded");
      rig.lifecycle.reconcile("claim-guarded");
      clock.step(Duration.ofSeconds(1));
      NodeClaim nodeClaim = nodeClaim("claim-guarded");
      return client.pods().withName("web").get() == null
          && nodeClaim.getMetadata().getAnnotations().containsKey(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP)
          && condition(nodeClaim, ConditionTypes.DRAINED).filter(c -> c.getStatus().equals("False")).isPresent();
    });
    Instant deadline = Instant.parse(nodeClaim("claim-guarded").getMetadata().getAnnotations().get(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP));
    assertThat(deadline).isAfter(clock.instant().plus(Duration.ofMinutes(8)));

    // Right up to the deadline the do-not-disrupt pod holds the drain.
    clock.set(deadline.minusSeconds(1));
    for (int pass = 0; pass < 3; pass++) {
      rig.termination.reconcile("node-guarded");
      Pod stored = client.pods().withName("guarded").get();
      assertThat(stored).isNotNull();
      assertThat(stored.getMetadata().getDeletionTimestamp()).isNull();
    }
    assertThat(client.nodes().withName("node-guarded").get()).isNotNull();
    assertThat(rig.events.forObject("node-guarded")).extracting(RecordedEvent::reason)
        .contains("FailedDraining", "TerminationGracePeriodExpiring");
    assertThat(rig.events.forObject("guarded")).isEmpty();

    // At the deadline it is deleted without grace, and the Node goes.
    clock.set(deadline);
    rig.terminate("claim-guarded", "node-guarded", () -> clock.step(Duration.ofSeconds(1)));

    assertThat(client.pods().withName("guarded").get()).isNull();
    assertThat(rig.events.forObject("guarded")).singleElement().satisfies(e -> {
      assertThat(e.reason()).isEqualTo("Disrupted");
      assertThat(e.message()).contains("granted 0 seconds");
    });
    assertThat(rig.events.events()).filteredOn(e -> e.reason().equals("Evicted")).extracting(RecordedEvent::name).containsExactly("web");
  }

  @Test
  void anEmptyNodeIsNotDrainedBeforeTheMinimumDrainTimeHasPassed(KubernetesClient client) {
    TestingClock clock = new TestingClock(Instant.now());
    rig = new TerminationRig(client, clock);
    rig.registeredNode("quick", "node-quick", null);
    clock.set(Instant.now().plusSeconds(1)); // at or after the deletionTimestamp the API server is about to write

    client.nodes().withName("node-quick").delete();
    await().atMost(30, SECONDS).pollInterval(200, MILLISECONDS).until(() -> {
      rig.termination.reconcile("node-quick");
      return condition(nodeClaim("quick"), ConditionTypes.DRAINED).filter(c -> c.getStatus().equals("False")).isPresent();
    });

    clock.step(NodeTermination.MIN_DRAIN_TIME.minusSeconds(1));
    for (int pass = 0; pass < 3; pass++) {
      rig.termination.reconcile("node-quick");
    }
    assertThat(condition(nodeClaim("quick"), ConditionTypes.DRAINED)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("False"));
    assertThat(client.nodes().withName("node-quick").get()).isNotNull();
    assertThat(rig.cloudProvider.deleteCalls()).isEmpty();

    clock.step(Duration.ofSeconds(1));
    await().atMost(30, SECONDS).pollInterval(200, MILLISECONDS).until(() -> {
      rig.termination.reconcile("node-quick");
      return Conditions.isTrue(nodeClaim("quick").getStatus().getConditions(), ConditionTypes.DRAINED);
    });
    rig.terminate("quick", "node-quick", () -> {});
  }

  @Test
  void aVolumeAttachmentHoldsTheInstanceUntilItIsDeleted(KubernetesClient client) {
    rig = new TerminationRig(client, Clock.systemUTC());
    rig.registeredNode("volumes", "node-volumes", null);
    String providerId = providerId("volumes");
    rig.boundPod("db", "db", "node-volumes");
    rig.awaitRunning(1);
    String attachment = volumeAttachment(client, "node-volumes");

    client.nodes().withName("node-volumes").delete();
    await().atMost(2, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      rig.termination.reconcile("node-volumes");
      return condition(nodeClaim("volumes"), ConditionTypes.VOLUMES_DETACHED)
          .filter(c -> c.getStatus().equals("Unknown") && c.getReason().equals("AwaitingVolumeDetachment")).isPresent();
    });
    NodeClaim waiting = nodeClaim("volumes");
    assertThat(condition(waiting, ConditionTypes.DRAINED)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(client.pods().withName("db").get()).isNull();
    assertThat(client.nodes().withName("node-volumes").get()).isNotNull();
    assertThat(rig.cloudProvider.get(providerId)).isPresent();
    assertThat(rig.cloudProvider.deleteCalls()).isEmpty();
    assertThat(rig.events.forObject("node-volumes")).extracting(RecordedEvent::reason).contains("AwaitingVolumeDetachment");
    assertThat(client.storage().v1().volumeAttachments().withName(attachment).get()).isNotNull();

    client.storage().v1().volumeAttachments().withName(attachment).delete();
    await().atMost(1, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      rig.termination.reconcile("node-volumes");
      NodeClaim nodeClaim = nodeClaim("volumes");
      return Conditions.isTrue(nodeClaim.getStatus().getConditions(), ConditionTypes.VOLUMES_DETACHED)
          && Conditions.isTrue(nodeClaim.getStatus().getConditions(), ConditionTypes.INSTANCE_TERMINATING);
    });
    rig.terminate("volumes", "node-volumes", () -> {});
    assertThat(rig.cloudProvider.get(providerId)).isEmpty();
  }

  @Test
  void volumeAttachmentsHoldTheNodeOnlyUntilTheTerminationGracePeriodExpires(KubernetesClient client) {
    TestingClock clock = new TestingClock(Instant.now());
    rig = new TerminationRig(client, clock);
    rig.registeredNode("volumes-tgp", "node-volumes-tgp", "5m");
    String attachment = volumeAttachment(client, "node-volumes-tgp");

    client.nodes().withName("node-volumes-tgp").delete();
    await().atMost(2, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      rig.termination.reconcile("node-volumes-tgp");
      rig.lifecycle.reconcile("volumes-tgp");
      clock.step(Duration.ofSeconds(1));
      NodeClaim nodeClaim = nodeClaim("volumes-tgp");
      return nodeClaim.getMetadata().getAnnotations().containsKey(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP)
          && condition(nodeClaim, ConditionTypes.VOLUMES_DETACHED).filter(c -> c.getStatus().equals("Unknown")).isPresent();
    });
    Instant deadline =
        Instant.parse(nodeClaim("volumes-tgp").getMetadata().getAnnotations().get(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP));

    clock.set(deadline);
    await().atMost(1, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      rig.termination.reconcile("node-volumes-tgp");
      return condition(nodeClaim("volumes-tgp"), ConditionTypes.VOLUMES_DETACHED)
          .filter(c -> c.getStatus().equals("False") && c.getReason().equals("TerminationGracePeriodElapsed")).isPresent();
    });
    rig.terminate("volumes-tgp", "node-volumes-tgp", () -> clock.step(Duration.ofSeconds(1)));
    assertThat(client.storage().v1().volumeAttachments().withName(attachment).get()).isNotNull();
  }

  @Test
  void aNotReadyNodeWhoseInstanceIsGoneLosesItsFinalizerWithoutADrain(KubernetesClient client) {
    rig = new TerminationRig(client, Clock.systemUTC());
    rig.registeredNode("vanished", "node-vanished", null, false);
    String providerId = providerId("vanished");
    rig.boundPod("web", "web", "node-vanished");
    rig.cloudProvider.delete(providerId); // the instance went away behind Karpenter's back

    client.nodes().withName("node-vanished").delete();
    await().atMost(30, SECONDS).until(() -> informerSeesDeletion("node-vanished"));
    rig.termination.reconcile("node-vanished");

    assertThat(client.nodes().withName("node-vanished").get()).isNull();
    assertThat(nodeClaim("vanished").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(client.pods().withName("web").get().getMetadata().getDeletionTimestamp()).isNull();
    assertThat(rig.events.events()).extracting(RecordedEvent::reason).doesNotContain("Evicted", "FailedDraining");
    assertThat(rig.metrics.scrape()).containsPattern("karpenter_nodes_terminated_total\\{[^}]*nodepool=\"default\"[^}]*} 1.0");
    rig.terminate("vanished", "node-vanished", () -> {});
  }

  private boolean informerSeesDeletion(String node) {
    var cached = rig.informers.nodes().getStore().getByKey(node);
    return cached != null && cached.getMetadata().getDeletionTimestamp() != null;
  }

  /** A VolumeAttachment of a (made-up) PersistentVolume on {@code node}; deleted after the test. */
  private String volumeAttachment(KubernetesClient client, String node) {
    String name = "va-" + client.getNamespace();
    client.storage().v1().volumeAttachments().resource(new VolumeAttachmentBuilder()
            .withNewMetadata().withName(name).endMetadata()
            .withNewSpec().withAttacher("csi.example.com").withNodeName(node)
              .withNewSource().withPersistentVolumeName("pv-" + client.getNamespace()).endSource()
            .endSpec()
            .build())
        .create();
    cleanup.add(() -> client.storage().v1().volumeAttachments().withName(name).delete());
    await().atMost(30, SECONDS)
        .until(() -> rig.informers.volumeAttachments().getStore().getByKey(name) != null);
    return name;
  }

  /** The app label of every pod of the test namespace, in the order their deletion began. */
  private List<String> deletionOrder(KubernetesClient client) {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    Set<String> seen = ConcurrentHashMap.newKeySet();
    rig.informers.pods().addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {}

      @Override
      public void onUpdate(Pod old, Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
          record(pod);
        }
      }

      @Override
      public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
        record(pod);
      }

      private void record(Pod pod) {
        if (client.getNamespace().equals(pod.getMetadata().getNamespace()) && seen.add(pod.getMetadata().getUid())) {
          order.add(pod.getMetadata().getLabels().get("app"));
        }
      }
    });
    return order;
  }

  private NodeClaim nodeClaim(String name) {
    return rig.client.resources(NodeClaim.class).withName(name).get();
  }

  private String providerId(String nodeClaim) {
    return Metadata.providerId(nodeClaim(nodeClaim));
  }

  private static Optional<Condition> condition(NodeClaim nodeClaim, String type) {
    return Conditions.get(nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions(), type);
  }
}
