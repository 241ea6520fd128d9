package sh.karpenter.testkit.reliability;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import sh.karpenter.api.v1.Budget;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Watches a cluster while a fault test runs and records every moment Karpenter breaks one of its
 * promises, with the time it happened, rather than only looking at the end state
 * (RELIABILITY.md#invariants). It uses nothing but a plain fabric8 client and the {@code karpenter.sh}
 * kinds, so it works for any cloud provider.
 *
 * <p>Checked on every watch event (pods, PodDisruptionBudgets, NodeClaims, Nodes, NodePools):
 * <ul>
 *   <li><b>pdb</b>: a Ready pod leaving a node Karpenter is taking away (tainted {@code
 *       karpenter.sh/disrupted}, being deleted, or gone) leaves every PodDisruptionBudget selecting it
 *       with at least its floor of other Ready pods ({@code minAvailable}, or {@code status.expectedPods
 *       - maxUnavailable}; integers only);
 *   <li><b>do-not-disrupt</b>: a bound pod annotated {@code karpenter.sh/do-not-disrupt: "true"} is never
 *       deleted, unless the test said it would ({@link #expectRemoval});
 *   <li><b>budget</b>: a NodePool whose budgets are all plain node counts (no schedule) never has more
 *       NodeClaims disrupting ({@link #disrupting}) than its smallest budget;
 *   <li><b>launched-twice</b>: a NodeClaim never records a second provider ID.
 * </ul>
 *
 * {@link #awaitSettled} then waits until the cluster is quiet and checks the end state: every pod of
 * the given namespaces Running, no NodeClaim or Node deleting, no Node left tainted {@code
 * karpenter.sh/disrupted} (an abandoned disruption), every NodeClaim launched with its Node
 * registered, every Node carrying the {@code karpenter.sh/nodepool} label owned by a NodeClaim (nothing
 * leaked either way), and the heap after a full collection within a bound of where it started.
 *
 * <p>Start it before the fault, {@link #close} it before the test's cleanup deletes anything.
 */
public final class Invariants implements AutoCloseable {
  /** What a test may let the heap grow by (after a full collection) over the whole run. */
  public static final long DEFAULT_HEAP_GROWTH_BYTES = 256L << 20;
  private static final int TIMELINE_LENGTH = 400;
  private static final Duration POLL = Duration.ofMillis(500);

  /** One broken promise: when it was seen, which invariant, and what. */
  public record Violation(Instant at, String invariant, String detail) {
    @Override
    public String toString() {
      return at + " " + invariant + ": " + detail;
    }
  }

  private final KubernetesClient client;
  private final Clock clock;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<PodDisruptionBudget> pdbs;
  private final SharedIndexInformer<NodeClaim> nodeClaims;
  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<NodePool> nodePools;
  private final List<Violation> violations = new ArrayList<>();
  private final Deque<String> timeline = new ArrayDeque<>();
  private final Set<String> removalsSeen = ConcurrentHashMap.newKeySet();
  private final Set<String> expectedRemovals = ConcurrentHashMap.newKeySet();
  private final Map<String, String> providerIds = new ConcurrentHashMap<>();
  private final Set<String> nodeClaimsSeen = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread thread = new Thread(r, "invariants-heap");
    thread.setDaemon(true);
    return thread;
  });
  private final long heapAtStart;
  private volatile long heapPeak;

  private Invariants(KubernetesClient client, String namespace, Clock clock) {
    this.client = client;
    this.clock = clock;
    this.heapAtStart = heapAfterGc();
    this.pods = inform(client.pods().inNamespace(namespace).runnableInformer(0), this::podChanged, this::podRemoved);
    this.pdbs = inform(client.policy().v1().podDisruptionBudget().inNamespace(namespace).runnableInformer(0), pdb -> { }, pdb -> { });
    this.nodeClaims = inform(client.resources(NodeClaim.class).runnableInformer(0), this::nodeClaimChanged, claim -> checkBudgets());
    this.nodes = inform(client.nodes().runnableInformer(0), node -> checkBudgets(), node -> checkBudgets());
    this.nodePools = inform(client.resources(NodePool.class).runnableInformer(0), pool -> checkBudgets(), pool -> { });
    for (SharedIndexInformer<?> informer : informers) {
      informer.start();
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!informers.stream().allMatch(SharedIndexInformer::hasSynced)) {
      if (System.nanoTime() > deadline) {
        close();
        throw new IllegalStateException("the invariant monitor's informers did not sync within a minute");
      }
      sleep(Duration.ofMillis(50));
    }
    sampler.scheduleAtFixedRate(this::sampleHeap, 0, 1, TimeUnit.SECONDS);
  }

  /**
   * Starts watching through {@code client}: the pods and PodDisruptionBudgets of {@code namespace} (the
   * test's, so that an earlier test's namespace still being cleaned up is not judged), NodeClaims, Nodes
   * and NodePools cluster-wide. Returns once its caches are synced.
   */
  public static Invariants watch(KubernetesClient client, String namespace) {
    return new Invariants(client, namespace, Clock.systemUTC());
  }

  private <T extends HasMetadata> SharedIndexInformer<T> inform(SharedIndexInformer<T> informer, Consumer<T> changed, Consumer<T> removed) {
    informer.addEventHandler(new ResourceEventHandler<T>() {
      @Override
      public void onAdd(T object) {
        changed.accept(object);
      }

      @Override
      public void onUpdate(T before, T after) {
        changed.accept(after);
      }

      @Override
      public void onDelete(T object, boolean unknownFinalState) {
        removed.accept(object);
      }
    });
    informers.add(informer);
    return informer;
  }

  /** The test is about to remove this pod itself (namespace/name): its removal breaks nothing. */
  public void expectRemoval(String namespace, String name) {
    expectedRemovals.add(namespace + "/" + name);
  }

  /** Every violation seen so far, oldest first. */
  public synchronized List<Violation> violations() {
    return List.copyOf(violations);
  }

  /** How many distinct NodeClaims existed at some point while watching. */
  public int nodeClaimsSeen() {
    return nodeClaimsSeen.size();
  }

  /** The highest heap use sampled (once a second) while watching, in bytes. */
  public long heapPeakBytes() {
    return heapPeak;
  }

  /** The last events the monitor saw, for a failure report. */
  public synchronized String timeline() {
    return String.join("\n", timeline);
  }

  /** Fails with every violation and the recent timeline when there is any. */
  public void assertNoViolations() {
    List<Violation> seen = violations();
    if (!seen.isEmpty()) {
      throw new AssertionError(seen.size() + " invariant violation(s):\n  "
          + seen.stream().map(Violation::toString).collect(Collectors.joining("\n  ")) + "\nrecent events:\n" + timeline());
    }
  }

  /**
   * Waits (up to {@code timeout}) until the cluster settles, then checks the end state: every pod of
   * {@code namespaces} Running; no NodeClaim or Node deleting; no Node tainted {@code
   * karpenter.sh/disrupted}; every NodeClaim launched and its Node
   * present; every Node labelled {@code karpenter.sh/nodepool} owned by a NodeClaim; the heap after a
   * full collection at most {@link #DEFAULT_HEAP_GROWTH_BYTES} above the start. Fails naming what was
   * still unsettled, and with any violation recorded during the run.
   */
  public void awaitSettled(Duration timeout, Collection<String> namespaces) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> unsettled = unsettled(namespaces);
    while (!unsettled.isEmpty() && System.nanoTime() < deadline) {
      sleep(POLL);
      unsettled = unsettled(namespaces);
    }
    if (!unsettled.isEmpty()) {
      throw new AssertionError("not settled after " + timeout + ":\n  " + String.join("\n  ", unsettled)
          + "\nviolations: " + violations() + "\nrecent events:\n" + timeline());
    }
    long growth = heapAfterGc() - heapAtStart;
    if (growth > DEFAULT_HEAP_GROWTH_BYTES) {
      violation("memory", "heap after a full collection grew by " + (growth >> 20) + " MiB over the run");
    }
    assertNoViolations();
  }

  /** What keeps the cluster from being settled; empty when it is. Reads the API server, not the caches. */
  List<String> unsettled(Collection<String> namespaces) {
    List<String> problems = new ArrayList<>();
    for (String namespace : namespaces) {
      for (Pod pod : client.pods().inNamespace(namespace).list().getItems()) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (!"Running".equals(phase) && !"Succeeded".equals(phase)) {
          problems.add("pod " + key(pod) + " is " + phase + " on " + pod.getSpec().getNodeName());
        }
      }
    }
    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    List<Node> allNodes = client.nodes().list().getItems();
    Map<String, Node> nodesByProviderId = new HashMap<>();
    for (Node node : allNodes) {
      if (node.getSpec() != null && node.getSpec().getProviderID() != null) {
        nodesByProviderId.put(node.getSpec().getProviderID(), node);
      }
      if (deleting(node)) {
        problems.add("node " + node.getMetadata().getName() + " is still being deleted");
      } else if (node.getSpec() != null && node.getSpec().getTaints() != null
          && node.getSpec().getTaints().stream().anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey()))) {
        problems.add("node " + node.getMetadata().getName() + " is still tainted " + TaintKeys.DISRUPTED);
      }
    }
    Set<String> claimedProviderIds = new HashSet<>();
    for (NodeClaim claim : claims) {
      String name = claim.getMetadata().getName();
      String providerId = claim.getStatus() == null ? null : claim.getStatus().getProviderID();
      if (providerId != null && !providerId.isEmpty()) {
        claimedProviderIds.add(providerId);
      }
      if (deleting(claim)) {
        problems.add("nodeclaim " + name + " is still being deleted");
      } else if (providerId == null || providerId.isEmpty()) {
        problems.add("nodeclaim " + name + " has not launched");
      } else if (!nodesByProviderId.containsKey(providerId)) {
        problems.add("nodeclaim " + name + " has no Node for " + providerId + " (leaked NodeClaim)");
      } else if (!Conditions.isTrue(claim.getStatus().getConditions(), ConditionTypes.REGISTERED)) {
        problems.add("nodeclaim " + name + " is not registered");
      }
    }
    for (Node node : allNodes) {
      Map<String, String> labels = node.getMetadata().getLabels();
      String providerId = node.getSpec() == null ? null : node.getSpec().getProviderID();
      if (labels != null && labels.containsKey(Labels.NODE_POOL) && !claimedProviderIds.contains(providerId)) {
        problems.add("node " + node.getMetadata().getName() + " (" + providerId + ") has no NodeClaim (leaked Node)");
      }
    }
    return problems;
  }

  /**
   * Whether a NodeClaim counts against its NodePool's disruption budgets: being deleted, or its Node
   * tainted {@code karpenter.sh/disrupted}; once its instance is terminating it no longer counts
   * (upstream's {@code InstanceTerminating} rule).
   */
  public static boolean disrupting(NodeClaim claim, Node node) {
    var conditions = claim.getStatus() == null ? null : claim.getStatus().getConditions();
    if (Conditions.isTrue(conditions, ConditionTypes.INSTANCE_TERMINATING)) {
      return false;
    }
    boolean tainted = node != null && node.getSpec() != null && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey()));
    return deleting(claim) || tainted;
  }

  private void podChanged(Pod pod) {
    if (deleting(pod)) {
      podRemoved(pod);
    }
  }

  private void podRemoved(Pod pod) {
    String key = key(pod);
    if (!removalsSeen.add(pod.getMetadata().getUid())) {
      return; // judged when its deletion began
    }
    String nodeName = pod.getSpec().getNodeName();
    note("pod " + key + " removed from " + nodeName);
    if (nodeName == null || expectedRemovals.contains(key)) {
      return;
    }
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    if (annotations != null && "true".equals(annotations.get(Annotations.DO_NOT_DISRUPT))) {
      violation("do-not-disrupt", "pod " + key + " on node " + nodeName + " was removed");
    }
    if (ready(pod) && disruptedNode(nodeName)) {
      checkPdbs(pod);
    }
  }

  /** Whether Karpenter is taking the node away: tainted {@code karpenter.sh/disrupted}, being deleted, or gone. */
  private boolean disruptedNode(String nodeName) {
    Node node = nodes.getStore().getByKey(nodeName);
    return node == null || deleting(node) || (node.getSpec() != null && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey())));
  }

  /**
   * A Ready pod leaves a disrupted node: every PodDisruptionBudget selecting it must still have at
   * least its floor of other Ready pods. The pod watch delivers events in the API server's order, so a
   * replacement that turned Ready before the eviction was allowed is already counted here.
   */
  private synchronized void checkPdbs(Pod removed) {
    String namespace = removed.getMetadata().getNamespace();
    for (PodDisruptionBudget pdb : pdbs.getStore().list()) {
      Integer floor = floor(pdb);
      LabelSelector selector = pdb.getSpec().getSelector();
      if (floor == null || !namespace.equals(pdb.getMetadata().getNamespace()) || !selects(selector, removed)) {
        continue;
      }
      long others = pods.getStore().list().stream()
          .filter(p -> namespace.equals(p.getMetadata().getNamespace()) && !deleting(p) && selects(selector, p) && ready(p)
              && !p.getMetadata().getUid().equals(removed.getMetadata().getUid()))
          .count();
      if (others < floor) {
        violation("pdb", "pod " + key(removed) + " left disrupted node " + removed.getSpec().getNodeName() + " while pdb " + key(pdb)
            + " had " + others + " other ready pods, below its floor " + floor);
      }
    }
  }

  private static Integer floor(PodDisruptionBudget pdb) {
    IntOrString min = pdb.getSpec().getMinAvailable();
    if (min != null) {
      return min.getIntVal();
    }
    IntOrString max = pdb.getSpec().getMaxUnavailable();
    Integer expected = pdb.getStatus() == null ? null : pdb.getStatus().getExpectedPods();
    if (max != null && max.getIntVal() != null && expected != null && expected > 0) {
      return expected - max.getIntVal();
    }
    return null;
  }

  private void nodeClaimChanged(NodeClaim claim) {
    String uid = claim.getMetadata().getUid();
    if (nodeClaimsSeen.add(uid)) {
      note("nodeclaim " + claim.getMetadata().getName() + " created");
    }
    String providerId = claim.getStatus() == null ? null : claim.getStatus().getProviderID();
    if (providerId != null && !providerId.isEmpty()) {
      String earlier = providerIds.putIfAbsent(uid, providerId);
      if (earlier != null && !earlier.equals(providerId)) {
        violation("launched-twice", "nodeclaim " + claim.getMetadata().getName() + " launched " + earlier + " and then " + providerId);
      }
    }
    checkBudgets();
  }

  private synchronized void checkBudgets() {
    Map<String, Node> nodesByName = new HashMap<>();
    for (Node node : nodes.getStore().list()) {
      nodesByName.put(node.getMetadata().getName(), node);
    }
    Map<String, Integer> disruptingByPool = new HashMap<>();
    for (NodeClaim claim : nodeClaims.getStore().list()) {
      Map<String, String> labels = claim.getMetadata().getLabels();
      String pool = labels == null ? null : labels.get(Labels.NODE_POOL);
      String nodeName = claim.getStatus() == null ? null : claim.getStatus().getNodeName();
      if (pool != null && disrupting(claim, nodeName == null ? null : nodesByName.get(nodeName))) {
        disruptingByPool.merge(pool, 1, Integer::sum);
      }
    }
    for (NodePool pool : nodePools.getStore().list()) {
      Integer allowed = nodeBudget(pool);
      int disrupting = disruptingByPool.getOrDefault(pool.getMetadata().getName(), 0);
      if (allowed != null && disrupting > allowed) {
        violation("budget", "nodepool " + pool.getMetadata().getName() + " has " + disrupting + " nodes disrupting, budget " + allowed);
      }
    }
  }

  /** The smallest budget of a pool whose budgets are all unscheduled plain node counts; null otherwise. */
  private static Integer nodeBudget(NodePool pool) {
    var disruption = pool.getSpec() == null ? null : pool.getSpec().getDisruption();
    List<Budget> budgets = disruption == null ? null : disruption.getBudgets();
    if (budgets == null || budgets.isEmpty()) {
      return null;
    }
    int smallest = Integer.MAX_VALUE;
    for (Budget budget : budgets) {
      if (budget.getSchedule() != null || budget.getNodes() == null || !budget.getNodes().matches("\\d+")) {
        return null;
      }
      smallest = Math.min(smallest, Integer.parseInt(budget.getNodes()));
    }
    return smallest;
  }

  private static boolean selects(LabelSelector selector, Pod pod) {
    if (selector == null) {
      return false;
    }
    Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    if (selector.getMatchLabels() != null) {
      for (var entry : selector.getMatchLabels().entrySet()) {
        if (!entry.getValue().equals(labels.get(entry.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (var expression : selector.getMatchExpressions()) {
        String value = labels.get(expression.getKey());
        List<String> values = expression.getValues() == null ? List.of() : expression.getValues();
        boolean matches = switch (expression.getOperator()) {
          case "In" -> value != null && values.contains(value);
          case "NotIn" -> value == null || !values.contains(value);
          case "Exists" -> value != null;
          case "DoesNotExist" -> value == null;
          default -> false;
        };
        if (!matches) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean ready(Pod pod) {
    return pod.getStatus() != null && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean deleting(HasMetadata object) {
    return object.getMetadata().getDeletionTimestamp() != null;
  }

  private static String key(HasMetadata object) {
    return object.getMetadata().getNamespace() == null
        ? object.getMetadata().getName()
        : object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
  }

  private synchronized void violation(String invariant, String detail) {
    Violation violation = new Violation(clock.instant(), invariant, detail);
    violations.add(violation);
    note("VIOLATION " + violation);
  }

  private synchronized void note(String event) {
    timeline.addLast(clock.instant() + " " + event);
    while (timeline.size() > TIMELINE_LENGTH) {
      timeline.removeFirst();
    }
  }

  private void sampleHeap() {
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    if (used > heapPeak) {
      heapPeak = used;
    }
  }

  private static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Stops watching; the violations stay readable. */
  @Override
  public void close() {
    sampler.shutdownNow();
    informers.forEach(SharedIndexInformer::close);
  }
}
