package sh.karpenter.testkit.nodeclaim;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimSpec;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolHash;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.api.v1.ResourceRequirements;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.nodeclaim.lifecycle.NodeClaimLifecycle;
import sh.karpenter.controller.nodepool.NodePoolRegistrationHealth;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.state.nodepoolhealth.NodePoolHealth;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * What the NodeClaim controller ITs share: synced informers, a testing clock for the reconcilers
 * under test, a KWOK cloud provider (on the system clock, so its Nodes appear at once) on the
 * default KWOKNodeClass, and the real lifecycle to launch, register and initialize NodeClaims
 * created as the provisioner would create them for a NodePool.
 */
final class KwokNodeClaims implements AutoCloseable {
  final KubernetesClient client;
  final Informers informers;
  final TestingClock clock = new TestingClock(Instant.now());
  final KwokCloudProvider cloudProvider;
  final Metrics metrics = new Metrics(new CollectorRegistry());
  final TestingEventRecorder events = new TestingEventRecorder(clock);
  /** Shares its launch outcomes with the lifecycle, as in the operator. */
  final NodePoolRegistrationHealth registrationHealth;
  final NodeClaimLifecycle lifecycle;

  /** Unstarted: register informer handlers, then {@link #start()}. */
  KwokNodeClaims(KubernetesClient client) {
    this.client = client;
    this.informers = new Informers(client);
    this.cloudProvider = new KwokCloudProvider(client, InstanceTypeCatalog.kwok(), Clock.systemUTC());
    this.registrationHealth = new NodePoolRegistrationHealth(client, informers, cloudProvider, clock, metrics, new NodePoolHealth());
    this.lifecycle =
        new NodeClaimLifecycle(client, informers, cloudProvider, clock, events, metrics, claimName -> List.of(), registrationHealth);
  }

  /** Starts the informers, waits for their caches, and creates the default KWOKNodeClass. */
  KwokNodeClaims start() {
    SyncedInformers.start(informers);
    TestObjects.createNodeClass(client);
    return this;
  }

  /** Creates a NodePool from its YAML and waits until the informer has it. */
  NodePool createPool(String yaml) {
    NodePool pool = client.resources(NodePool.class).resource(TestObjects.yaml(client, NodePool.class, yaml)).create();
    awaitCachedPool(pool.getMetadata().getName(), cached -> true);
    return pool;
  }

  /** Waits until the informer's copy of the pool satisfies {@code done} (after an edit, say). */
  void awaitCachedPool(String name, Predicate<NodePool> done) {
    await().atMost(30, SECONDS).until(() -> {
      NodePool cached = informers.nodePools().getStore().getByKey(name);
      return cached != null && done.test(cached);
    });
  }

  /**
   * Creates a NodeClaim of {@code pool} as the provisioner would: the template labels and the pool
   * label, the drift hash annotations, an owner reference to the pool, the pool's requirements,
   * nodeClassRef and expireAfter, one CPU.
   */
  NodeClaim createNodeClaim(NodePool pool, String name) {
    var template = pool.getSpec().getTemplate();
    Map<String, String> labels = new LinkedHashMap<>();
    if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
      labels.putAll(template.getMetadata().getLabels());
    }
    labels.put(Labels.NODE_POOL, pool.getMetadata().getName());
    NodeClaim claim = new NodeClaim();
    claim.getMetadata().setName(name);
    claim.getMetadata().setLabels(labels);
    claim.getMetadata().setAnnotations(Map.of(
        Annotations.NODE_POOL_HASH, NodePoolHash.of(pool), Annotations.NODE_POOL_HASH_VERSION, NodePoolHash.VERSION));
    claim.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion(NodePool.API_VERSION)
        .withKind(NodePool.KIND).withName(pool.getMetadata().getName()).withUid(pool.getMetadata().getUid())
        .withBlockOwnerDeletion(true).build()));
    NodeSelectorRequirementWithMinValues poolLabel = new NodeSelectorRequirementWithMinValues();
    poolLabel.setKey(Labels.NODE_POOL);
    poolLabel.setOperator("In");
    poolLabel.setValues(List.of(pool.getMetadata().getName()));
    NodeClaimSpec spec = new NodeClaimSpec();
    spec.setRequirements(new ArrayList<>(List.of(poolLabel)));
    if (template.getSpec().getRequirements() != null) {
      spec.getRequirements().addAll(template.getSpec().getRequirements());
    }
    spec.setNodeClassRef(template.getSpec().getNodeClassRef());
    spec.setExpireAfter(template.getSpec().getExpireAfter());
    ResourceRequirements resources = new ResourceRequirements();
    resources.setRequests(Map.of("cpu", new Quantity("1")));
    spec.setResources(resources);
    claim.setSpec(spec);
    return client.resources(NodeClaim.class).resource(claim).create();
  }

  /** Runs the lifecycle until the NodeClaim is Initialized (KWOK turns its Node Ready); returns it as stored. */
  NodeClaim initialize(String name) {
    return lifecycleUntil(name, claim -> Conditions.isTrue(claim.getStatus().getConditions(), ConditionTypes.INITIALIZED));
  }

  /** Runs the lifecycle until the NodeClaim has launched; returns it as stored. */
  NodeClaim launch(String name) {
    return lifecycleUntil(name, claim -> Conditions.isTrue(claim.getStatus().getConditions(), ConditionTypes.LAUNCHED));
  }

  private NodeClaim lifecycleUntil(String name, Predicate<NodeClaim> done) {
    await().atMost(2, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      lifecycle.reconcile(name);
      NodeClaim claim = get(name);
      return claim != null && claim.getStatus() != null && done.test(claim);
    });
    NodeClaim stored = get(name);
    awaitCached(name, cached -> Objects.equals(cached.getMetadata().getResourceVersion(), stored.getMetadata().getResourceVersion()));
    return stored;
  }

  /** Waits until the informer's copy of the NodeClaim satisfies {@code done}. */
  void awaitCached(String name, Predicate<NodeClaim> done) {
    await().atMost(30, SECONDS).until(() -> {
      NodeClaim cached = informers.nodeClaims().getStore().getByKey(name);
      return cached != null && done.test(cached);
    });
  }

  NodeClaim get(String name) {
    return client.resources(NodeClaim.class).withName(name).get();
  }

  @Override
  public void close() {
    informers.close();
    cloudProvider.close();
  }
}
