package sh.karpenter.controller.disruption;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.core.cost.BoundBudget;
import sh.karpenter.core.cost.NodePoolCost;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;

/**
 * The NodePool cost-gap metrics (docs/behaviour/observability.md#nodepool-cost-gap): on every pass
 * of the disruption loop, from the snapshot that pass already took, each NodePool with a template
 * gets core's {@link NodePoolCost} (current cost, lower bound on its running pods, gap ratio)
 * exported as {@code karpenter_nodepools_cost_*}.
 *
 * <p>The loop only compares each pool's inputs ({@link NodePoolCost#inputKey}) with those of the last
 * computation and hands the pools whose inputs changed to a background executor; the bound never runs
 * on the loop thread, so it never delays a disruption decision. Only the newest input of a pool
 * waiting there is computed. Each bound has the {@link #BUDGET budget}: at most {@link
 * BoundBudget#DEFAULT_MAX_STEPS} steps and {@link #TIME_LIMIT} from its start (then it settles for
 * the per-resource bound, still valid). A pool that loses its template (deleted, or not Ready) loses
 * its series.
 */
public final class NodePoolCosts implements AutoCloseable {
  /** How long one pool's bound may take before it settles for what it has. */
  static final Duration TIME_LIMIT = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(NodePoolCosts.class);

  /** One pool's input waiting for the executor, with its key. */
  private record Job(NodeClaimTemplate template, List<ExistingNode> nodes, List<Pod> daemonSetPods, List<Object> key) {}

  private final Metrics metrics;
  private final Executor executor;
  private final BoundBudget budget;
  private final Clock clock;
  /** The key of each pool's latest computation (done or waiting), by pool; removed when the pool goes. */
  private final Map<String, List<Object>> keys = new ConcurrentHashMap<>();
  private final Map<String, Job> waiting = new ConcurrentHashMap<>();
  private final AtomicBoolean draining = new AtomicBoolean();

  /**
   * @param executor runs the bounds; {@link #background} gives the controller's own thread, tests a
   *     direct executor
   */
  NodePoolCosts(Metrics metrics, Executor executor, Clock clock) {
    this.metrics = metrics;
    this.executor = executor;
    this.clock = clock;
    this.budget = BoundBudget.DEFAULT.withDeadline(clock, TIME_LIMIT);
  }

  /** The {@link #budget} of each pool's bound. */
  BoundBudget budget() {
    return budget;
  }

  /** The controller's: bounds computed on one daemon thread of their own, stopped by {@link #close()}. */
  public static NodePoolCosts background(Metrics metrics, Clock clock) {
    ExecutorService executor = Executors.newSingleThreadExecutor(task -> {
      Thread thread = new Thread(task, "nodepool-costs");
      thread.setDaemon(true);
      return thread;
    });
    return new NodePoolCosts(metrics, executor, clock);
  }

  /** Exports nothing (tests of the loop that do not look at cost). */
  public static NodePoolCosts none() {
    return new NodePoolCosts(Metrics.noop(), task -> {}, Clock.systemUTC());
  }

  /**
   * One pass (never throws): the pools whose nodes, pods, DaemonSets or offerings changed since their last
   * computation are queued for the executor; pools without a template lose their series. Cheap: one
   * pass over the snapshot's nodes, pods and the pools' offerings.
   */
  public void observe(ClusterSnapshot cluster) {
    try {
      queueChanged(cluster);
    } catch (RuntimeException e) {
      // the metrics must never fail the disruption loop
      LOG.atWarn().setMessage("updating the nodepool cost metrics failed").addKeyValue("error", e.toString()).log();
    }
  }

  private void queueChanged(ClusterSnapshot cluster) {
    Map<String, NodeClaimTemplate> templates = new HashMap<>();
    for (NodeClaimTemplate template : cluster.templates()) {
      templates.put(template.nodePoolName(), template);
    }
    synchronized (keys) { // not between compute's look at the key and its publish
      for (Iterator<String> it = keys.keySet().iterator(); it.hasNext(); ) {
        String pool = it.next();
        if (!templates.containsKey(pool)) {
          it.remove();
          waiting.remove(pool);
          metrics.cost().nodePoolGone(pool);
        }
      }
    }
    Map<String, List<ExistingNode>> nodes = new HashMap<>();
    for (ExistingNode node : cluster.nodes()) {
      if (node.nodePoolName() != null && templates.containsKey(node.nodePoolName())) {
        nodes.computeIfAbsent(node.nodePoolName(), k -> new ArrayList<>()).add(node);
      }
    }
    boolean queued = false;
    for (NodeClaimTemplate template : templates.values()) {
      String pool = template.nodePoolName();
      List<ExistingNode> poolNodes = nodes.getOrDefault(pool, List.of());
      List<Object> key = NodePoolCost.inputKey(template, poolNodes, cluster.daemonSetPods());
      if (key.equals(keys.get(pool))) {
        continue;
      }
      keys.put(pool, key);
      waiting.put(pool, new Job(template, poolNodes, cluster.daemonSetPods(), key));
      queued = true;
    }
    if (queued && draining.compareAndSet(false, true)) {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        draining.set(false); // closed
      }
    }
  }

  /** Computes the waiting pools until none is left. */
  private void drain() {
    try {
      while (!waiting.isEmpty()) {
        for (String pool : List.copyOf(waiting.keySet())) {
          Job job = waiting.remove(pool);
          if (job != null) {
            compute(pool, job);
          }
        }
      }
    } finally {
      draining.set(false);
    }
    // a pool queued between the last look and the flag's reset
    if (!waiting.isEmpty() && draining.compareAndSet(false, true)) {
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        draining.set(false);
      }
    }
  }

  private void compute(String pool, Job job) {
    Instant start = clock.instant();
    NodePoolCost cost;
    try {
      cost = NodePoolCost.of(job.template(), job.nodes(), job.daemonSetPods(), budget);
    } catch (RuntimeException e) {
      LOG.atWarn().setMessage("computing the cost of a nodepool failed").addKeyValue("NodePool", pool)
          .addKeyValue("error", e.toString()).log();
      keys.remove(pool, job.key()); // the next pass tries again
      return;
    }
    // only the pool's latest input is published; a pool gone meanwhile (or while publishing) stays gone
    synchronized (keys) {
      if (keys.get(pool) != job.key()) {
        return;
      }
      metrics.cost().nodePoolCost(pool, cost.currentPerHour(), cost.lowerBound().perHour(), cost.gapRatio());
    }
    LOG.atDebug().setMessage("computed nodepool cost").addKeyValue("NodePool", pool)
        .addKeyValue("current", cost.currentPerHour()).addKeyValue("lowerBound", cost.lowerBound().perHour())
        .addKeyValue("gapRatio", cost.gapRatio()).addKeyValue("nodes", cost.nodes()).addKeyValue("unpricedNodes", cost.unpricedNodes())
        .addKeyValue("pods", cost.pods()).addKeyValue("bound", cost.lowerBound().describe())
        .addKeyValue("duration", Duration.between(start, clock.instant())).log();
  }

  /** Stops the background thread; a bound being computed finishes first, unseen. */
  @Override
  public void close() {
    if (executor instanceof ExecutorService service) {
      service.shutdownNow();
    }
  }
}
