package sh.karpenter.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import sh.karpenter.benchmarks.workload.CostMix;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.cost.LowerBound;
import sh.karpenter.core.cost.SchedulingLowerBound;
import sh.karpenter.core.disruption.Budgets;
import sh.karpenter.core.disruption.Candidate;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.disruption.ConsolidationPolicy;
import sh.karpenter.core.disruption.Decision;
import sh.karpenter.core.disruption.Disruption;
import sh.karpenter.core.disruption.DisruptionInput;
import sh.karpenter.core.disruption.DisruptionOptions;
import sh.karpenter.core.disruption.Method;
import sh.karpenter.core.disruption.PodBlocker;
import sh.karpenter.core.disruption.PoolPolicy;
import sh.karpenter.core.disruption.StateNode;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.wellknown.Labels;

/**
 * How fast and how well disruption decides on large under-utilised clusters (not a test): synthetic
 * clusters of 100, 1,000 and 5,000 on-demand nodes from the bundled AWS catalogue, each node filled to
 * 15–55% of its CPU and memory with pods of the {@code mixed} cost mix, one NodePool
 * (WhenEmptyOrUnderutilized, consolidateAfter 0s, upstream's default budget of 10%).
 *
 * <p>Each loop is one {@link Disruption#decide} (timed, wall clock and the thread's CPU), whose command
 * is then carried out at once: the candidates go, their pods land where a fresh scheduling pass puts
 * them, replacements come up as their cheapest instance type. Loops run until a decision finds nothing
 * or the loop or time limit is reached. Printed per cluster: the decision time per loop (first, median,
 * max), the commands by method, nodes removed and launched, savings per hour, and the cluster's hourly
 * cost before and after next to the proven lower bound for the same pods ({@link SchedulingLowerBound}),
 * and next to a second proven bound that keeps the nodes no move may remove at their price ({@link
 * Cluster#boundKeepingBlockedNodes}), computed at the start of each phase.
 *
 * <p>With {@code --repack} the decisions also run this project's repack consolidation
 * (docs/behaviour/disruption.md#repack-consolidation) after upstream's methods; {@code --compare}
 * runs every cluster twice, upstream's methods alone and then with repack. {@code --churn R} then
 * plays a churn trace on the converged cluster: R rounds of deleting a random 20% of the pods, adding
 * as many new ones (placed by a provisioning pass, new nodes as their cheapest type), and deciding
 * again to convergence. Printed besides: nodes disrupted and pods evicted, and violations: commands
 * taking more candidates of a pool than its budget leaves, or a candidate holding a pod that blocks
 * eviction (PDB or {@code do-not-disrupt}) or annotated {@code do-not-disrupt}. 2% of the nodes hold
 * such a blocking pod and 1% are annotated {@code do-not-disrupt}.
 *
 * <pre>
 * java -Xmx1g -cp benchmarks/target/benchmarks.jar sh.karpenter.benchmarks.ConsolidationDecisions [options]
 *   --nodes N[,N..]     cluster sizes (default 100,1000,5000)
 *   --max-loops N       loops per cluster at most (default 100; 0 prints the bounds alone)
 *   --time-limit S      seconds per cluster at most, counted in decisions (default 240)
 *   --repack            repack consolidation on (after upstream's methods)
 *   --compare           each cluster twice: upstream's methods alone, then with repack
 *   --payback-horizon M repack's payback horizon in minutes (default 120)
 *   --churn R           after convergence, R rounds of 20% pod churn, each decided to convergence
 *   --verbose           one line per loop: time, method, candidates, replacements, savings; after
 *                       each phase the nodes (type, price, use) and what provisioning from scratch
 *                       would cost: for all the pods, and around the nodes that cannot be disrupted
 * </pre>
 */
public final class ConsolidationDecisions {
  private static final String POOL = BenchmarkClusters.NODE_POOL;
  private static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  private static final List<String> NODE_TYPES =
      List.of("m5.xlarge", "m5.2xlarge", "m5.4xlarge", "c5.2xlarge", "c5.4xlarge", "r5.xlarge", "r5.2xlarge");
  private static final long SEED = 7;
  private static final double CHURN = 0.20;

  private static boolean verbose;

  private ConsolidationDecisions() {}

  public static void main(String[] args) {
    List<Integer> sizes = List.of(100, 1000, 5000);
    int maxLoops = 100;
    long timeLimitNanos = Duration.ofSeconds(240).toNanos();
    List<Boolean> repackRuns = List.of(false);
    Duration horizon = DisruptionOptions.DEFAULT_PAYBACK_HORIZON;
    int churnRounds = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--nodes" -> sizes = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
        case "--max-loops" -> maxLoops = Integer.parseInt(args[++i]);
        case "--time-limit" -> timeLimitNanos = Duration.ofSeconds(Long.parseLong(args[++i])).toNanos();
        case "--repack" -> repackRuns = List.of(true);
        case "--compare" -> repackRuns = List.of(false, true);
        case "--payback-horizon" -> horizon = Duration.ofMinutes(Long.parseLong(args[++i]));
        case "--churn" -> churnRounds = Integer.parseInt(args[++i]);
        case "--verbose" -> verbose = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (see the class javadoc)");
      }
    }
    List<InstanceType> catalogue = InstanceTypeCatalog.aws().instanceTypes();
    SchedulingInput template = BenchmarkClusters.onDemandLinux(catalogue, List.of());
    System.out.println("# consolidation decisions: bundled AWS catalogue (" + catalogue.size() + " types), on-demand, one NodePool"
        + (repackRuns.contains(true) ? ", repack payback horizon " + horizon : ""));
    // JIT warm-up on a small cluster, not reported
    for (boolean repack : repackRuns) {
      run(new Cluster(template, 60, SEED + 1, options(repack, horizon)), 20, timeLimitNanos, null);
    }
    System.out.println(
        "| nodes | methods | phase | pods | loops | decision s (first / median / max) | CPU s (median / max) | commands (multi/single/empty/repack) | nodes disrupted / launched | pods evicted | savings $/h | cost $/h before -> after | lower bound $/h | after / bound | violations | bound keeping blocked nodes $/h | after / that bound |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (int size : sizes) {
      for (boolean repack : repackRuns) {
        Cluster cluster = new Cluster(template, size, SEED, options(repack, horizon));
        String label = String.format(Locale.ROOT, "| %,d | %s |", size, repack ? "upstream + repack" : "upstream");
        run(cluster, maxLoops, timeLimitNanos, label + " converge |");
        Random churn = new Random(SEED + size);
        for (int round = 1; round <= churnRounds; round++) {
          cluster.churn(churn, round);
          run(cluster, maxLoops, timeLimitNanos, label + " churn " + round + " |");
        }
      }
    }
  }

  private static DisruptionOptions options(boolean repack, Duration horizon) {
    return DisruptionOptions.defaults(Clock.system(ZoneOffset.UTC)).withRepackConsolidation(repack, horizon);
  }

  /** Decides and applies to convergence (or the limits); prints a row after {@code label} unless it is null. */
  private static void run(Cluster cluster, int maxLoops, long timeLimitNanos, String label) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    int pods = cluster.allPods().size();
    double before = cluster.cost();
    LowerBound bound = SchedulingLowerBound.of(BenchmarkClusters.onDemandLinux(cluster.template.templates().getFirst().instanceTypes(), cluster.allPods()), cluster.allPods());
    double boundKeepingBlocked = cluster.boundKeepingBlockedNodes();
    List<Long> wall = new ArrayList<>();
    List<Long> cpu = new ArrayList<>();
    Map<Method, Integer> commands = new HashMap<>();
    int removed = 0;
    int launched = 0;
    int evicted = 0;
    int violations = 0;
    double savings = 0;
    long spent = 0;
    for (int loop = 0; loop < maxLoops && spent < timeLimitNanos; loop++) {
      DisruptionInput input = cluster.input();
      long cpuStart = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      Decision decision = Disruption.decide(input);
      long elapsed = System.nanoTime() - start;
      wall.add(elapsed);
      cpu.add(threads.getCurrentThreadCpuTime() - cpuStart);
      spent += elapsed;
      if (verbose && label != null) {
        System.out.printf(
            Locale.ROOT,
            "#   loop %d: %.3f s, %s%n",
            loop,
            elapsed / 1e9,
            decision.isEmpty() ? "nothing" : describe(decision.commands().getFirst()));
      }
      if (decision.isEmpty()) {
        break;
      }
      for (Command command : decision.commands()) {
        violations += violations(input, command);
        commands.merge(command.method(), 1, Integer::sum);
        removed += command.candidates().size();
        launched += command.replacements().size();
        for (Candidate candidate : command.candidates()) {
          evicted += candidate.reschedulablePods().size();
        }
        savings += command.savings();
        cluster.apply(command);
      }
    }
    if (label == null) {
      return;
    }
    if (verbose) {
      cluster.describeNodes();
      SchedulingResult scratch = new Scheduler(new SchedulingInput(
          cluster.template.templates(), List.of(), cluster.allPods(), List.of(), null, cluster.template.options())).solve();
      double scratchCost = scratch.newNodeClaims().stream().mapToDouble(c -> c.cheapestOffering().price()).sum();
      System.out.printf(Locale.ROOT, "#   provisioning from scratch: %d nodes, %.2f $/h, %.3f of the bound%n",
          scratch.newNodeClaims().size(), scratchCost, scratchCost / bound.perHour());
      Map<String, Integer> types = new TreeMap<>();
      scratch.newNodeClaims().forEach(c -> types.merge(c.cheapestInstanceType().name(), 1, Integer::sum));
      System.out.println("#   scratch types " + types);
      Blocked blocked = cluster.blocked();
      SchedulingResult around = new Scheduler(new SchedulingInput(
          cluster.template.templates(), blocked.nodes(), blocked.freePods(), List.of(), null, cluster.template.options())).solve();
      double aroundCost = blocked.cost() + around.newNodeClaims().stream().mapToDouble(c -> c.cheapestOffering().price()).sum();
      System.out.printf(Locale.ROOT, "#   provisioning around the %d blocked nodes: %.2f $/h, %.3f of the bound%n",
          blocked.nodes().size(), aroundCost, aroundCost / bound.perHour());
    }
    double after = cluster.cost();
    System.out.printf(
        Locale.ROOT,
        "%s %,d | %d | %.2f / %.2f / %.2f | %.2f / %.2f | %d (%d/%d/%d/%d) | %d / %d | %,d | %.2f | %.2f -> %.2f | %.2f | %.3f | %d | %.2f | %.3f |%n",
        label,
        pods,
        wall.size(),
        (wall.isEmpty() ? 0 : wall.getFirst()) / 1e9,
        median(wall) / 1e9,
        max(wall) / 1e9,
        median(cpu) / 1e9,
        max(cpu) / 1e9,
        commands.values().stream().mapToInt(Integer::intValue).sum(),
        commands.getOrDefault(Method.MULTI_NODE_CONSOLIDATION, 0),
        commands.getOrDefault(Method.SINGLE_NODE_CONSOLIDATION, 0),
        commands.getOrDefault(Method.EMPTINESS, 0),
        commands.getOrDefault(Method.REPACK_CONSOLIDATION, 0),
        removed,
        launched,
        evicted,
        savings,
        before,
        after,
        bound.perHour(),
        after / bound.perHour(),
        violations,
        boundKeepingBlocked,
        after / boundKeepingBlocked);
  }

  /**
   * Safety violations of a command: candidates of a pool beyond what its budget leaves for the reason,
   * plus candidates holding a pod that blocks eviction or annotated do-not-disrupt.
   */
  private static int violations(DisruptionInput input, Command command) {
    Map<String, Integer> remaining = Budgets.remaining(input, command.reason());
    Map<String, Integer> taken = new HashMap<>();
    int violations = 0;
    for (Candidate candidate : command.candidates()) {
      taken.merge(candidate.nodePoolName(), 1, Integer::sum);
      if (!candidate.state().blockers().isEmpty() || candidate.state().doNotDisrupt()) {
        violations++;
      }
    }
    for (Map.Entry<String, Integer> pool : taken.entrySet()) {
      violations += Math.max(0, pool.getValue() - remaining.getOrDefault(pool.getKey(), 0));
    }
    return violations;
  }

  /**
   * A command in one line: method, how many candidates go and how many replacements come, then which
   * nodes, the replacements' cheapest type and offering and their instance-type options (count and a
   * hash of the names in order), and the savings, so that two runs can be compared decision by decision.
   */
  private static String describe(Command command) {
    StringBuilder s = new StringBuilder()
        .append(command.method().label()).append(' ')
        .append(command.candidates().size()).append(" -> ").append(command.replacements().size())
        .append(' ').append(command.candidates().stream().map(Candidate::name).toList());
    for (PlannedNodeClaim replacement : command.replacements()) {
      s.append(" -> ").append(replacement.cheapestInstanceType().name()).append(' ').append(replacement.cheapestOffering())
          .append(" of ").append(replacement.instanceTypeOptions().size()).append(" types (")
          .append(String.format(Locale.ROOT, "%08x", replacement.instanceTypeOptions().stream().map(InstanceType::name).toList().hashCode()))
          .append(')');
    }
    return s.append(String.format(Locale.ROOT, ", saves %.4f $/h", command.savings())).toString();
  }

  private static long median(List<Long> values) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  private static long max(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).max().orElse(0);
  }

  /** {@link Cluster#blocked}: the blocked nodes as existing nodes, their hourly cost, the pods of the others. */
  private record Blocked(List<ExistingNode> nodes, double cost, List<Pod> freePods) {}

  /** A node of the synthetic cluster: its instance type, offering and bound pods. */
  private static final class Node {
    final String name;
    final InstanceType type;
    final Offering offering;
    final List<Pod> pods = new ArrayList<>();
    /** The node holds a pod a PDB protects (allowing no disruption): it blocks voluntary disruption. */
    boolean pdbBlocked;
    /** The Node is annotated {@code karpenter.sh/do-not-disrupt}. */
    boolean doNotDisrupt;

    Node(String name, InstanceType type, Offering offering) {
      this.name = name;
      this.type = type;
      this.offering = offering;
    }

    ExistingNode existing() {
      Map<String, String> labels = new HashMap<>(type.requirements().labels());
      labels.put(Labels.HOSTNAME, name);
      labels.put(Labels.ZONE, offering.zone());
      labels.put(Labels.CAPACITY_TYPE, offering.capacityType());
      labels.put(Labels.INSTANCE_TYPE, type.name());
      labels.put(Labels.NODE_POOL, POOL);
      labels.put(Labels.OS, "linux");
      return new ExistingNode(name, labels, List.of(), type.allocatable(), pods, true, POOL);
    }

    StateNode state() {
      return new StateNode(
          existing(), name, NOW.minus(Duration.ofDays(2)), NOW.minus(Duration.ofHours(1)), NOW.minus(Duration.ofDays(2)), Duration.ofHours(720),
          true, null, true, false, false, false, false, doNotDisrupt, false, pods, blockers(), null);
    }

    private List<PodBlocker> blockers() {
      if (!pdbBlocked || pods.isEmpty()) {
        return List.of();
      }
      return List.of(new PodBlocker(pods.getFirst().key(), "pdb default/guarded allows 0 disruptions"));
    }
  }

  /** An under-utilised cluster that disruption commands are applied to. */
  private static final class Cluster {
    final SchedulingInput template;
    final List<Node> nodes = new ArrayList<>();
    private final DisruptionOptions options;
    private final Map<String, InstanceType> types = new HashMap<>();
    private int nextNode;

    /**
     * A lower bound on the cost of any cluster that consolidation can reach from this one: the nodes
     * no voluntary disruption may remove (holding a pod a PDB protects, or annotated do-not-disrupt)
     * stay with their pods, at their price, and the LP bound prices the other pods over new nodes and
     * the free room of those kept nodes (at no cost). Every move keeps those nodes and never moves
     * their pods, so no converged cost can be lower; the plain bound ignores them.
     */
    double boundKeepingBlockedNodes() {
      Blocked blocked = blocked();
      SchedulingInput base = BenchmarkClusters.onDemandLinux(template.templates().getFirst().instanceTypes(), blocked.freePods());
      SchedulingInput input =
          new SchedulingInput(base.templates(), blocked.nodes(), blocked.freePods(), base.daemonSetPods(), base.volumes(), base.options());
      return blocked.cost() + SchedulingLowerBound.of(input, blocked.freePods()).perHour();
    }

    /** The nodes no voluntary disruption may remove, what they cost, and the other nodes' pods (unbound). */
    Blocked blocked() {
      List<ExistingNode> kept = new ArrayList<>();
      List<Pod> free = new ArrayList<>();
      double cost = 0;
      for (Node node : nodes) {
        if ((node.pdbBlocked && !node.pods.isEmpty()) || node.doNotDisrupt) {
          kept.add(node.existing());
          cost += node.offering.price();
        } else {
          node.pods.forEach(p -> free.add(p.toBuilder().nodeName(null).build()));
        }
      }
      return new Blocked(kept, cost, free);
    }

    Cluster(SchedulingInput template, int size, long seed, DisruptionOptions options) {
      this.template = template;
      this.options = options;
      for (InstanceType type : template.templates().getFirst().instanceTypes()) {
        types.put(type.name(), type);
      }
      Random random = new Random(seed);
      java.util.LinkedList<Pod> mix = new java.util.LinkedList<>(CostMix.MIXED.pods(size * 20));
      for (int i = 0; i < size; i++) {
        InstanceType type = types.get(NODE_TYPES.get(random.nextInt(NODE_TYPES.size())));
        Offering offering = onDemand(type, random);
        Node node = new Node("node-" + nextNode++, type, offering);
        double target = 0.15 + 0.40 * random.nextDouble();
        Resources allocatable = type.allocatable();
        Resources used = Resources.EMPTY;
        // first fit from the front of the queue, looking a little way ahead, up to the node's target use
        java.util.Iterator<Pod> queue = mix.iterator();
        for (int looked = 0; looked < 2000 && queue.hasNext(); looked++) {
          Pod pod = queue.next();
          Resources with = used.plus(pod.requests());
          if (with.cpuMilli() <= target * allocatable.cpuMilli() && with.memoryMilli() <= target * allocatable.memoryMilli()) {
            node.pods.add(pod.toBuilder().nodeName(node.name).build());
            used = with;
            queue.remove();
          }
        }
        int guard = random.nextInt(100);
        node.pdbBlocked = guard < 2;
        node.doNotDisrupt = guard == 2;
        nodes.add(node);
      }
    }

    /**
     * One round of churn: a random 20% of the pods go, as many new pods of the mix
     * come and are placed by a provisioning pass (cost post-pass on), new nodes as their cheapest type.
     */
    void churn(Random random, int round) {
      List<Pod> all = allPods();
      int count = (int) Math.round(all.size() * CHURN);
      Set<String> gone = new HashSet<>();
      List<Pod> shuffled = new ArrayList<>(all);
      java.util.Collections.shuffle(shuffled, random);
      shuffled.subList(0, count).forEach(p -> gone.add(p.key()));
      nodes.forEach(n -> n.pods.removeIf(p -> gone.contains(p.key())));
      List<Pod> fresh = new ArrayList<>(count);
      List<Pod> drawn = CostMix.MIXED.pods(count * 3);
      for (int i = 0; i < count; i++) {
        fresh.add(drawn.get(random.nextInt(drawn.size())).toBuilder().name("churn-" + round + "-" + i).build());
      }
      place(fresh, template.options(), List.of(), false);
    }

    private static Offering onDemand(InstanceType type, Random random) {
      List<Offering> offerings = type.offerings().stream().filter(o -> Labels.CAPACITY_TYPE_ON_DEMAND.equals(o.capacityType()) && o.available()).toList();
      return offerings.get(random.nextInt(offerings.size()));
    }

    List<Pod> allPods() {
      List<Pod> pods = new ArrayList<>();
      nodes.forEach(n -> pods.addAll(n.pods));
      return pods;
    }

    double cost() {
      return nodes.stream().mapToDouble(n -> n.offering.price()).sum();
    }

    /** For --verbose: each node's type, price, CPU and memory use, and whether it can be disrupted. */
    void describeNodes() {
      List<Node> sorted = new ArrayList<>(nodes);
      sorted.sort(Comparator.comparingDouble((Node n) -> -n.offering.price()).thenComparing(n -> n.name));
      for (Node node : sorted) {
        Resources used = Resources.EMPTY;
        for (Pod pod : node.pods) {
          used = used.plus(pod.requests());
        }
        Resources allocatable = node.type.allocatable();
        System.out.printf(
            Locale.ROOT,
            "#   node %s %s $%.4f cpu %.0f%% memory %.0f%% pods %d%s%n",
            node.name,
            node.type.name(),
            node.offering.price(),
            100.0 * used.cpuMilli() / allocatable.cpuMilli(),
            100.0 * used.memoryMilli() / allocatable.memoryMilli(),
            node.pods.size(),
            node.pdbBlocked && !node.pods.isEmpty() ? " (pdb)" : node.doNotDisrupt ? " (do-not-disrupt)" : "");
      }
    }

    DisruptionInput input() {
      List<StateNode> states = new ArrayList<>(nodes.size());
      nodes.forEach(n -> states.add(n.state()));
      PoolPolicy pool = new PoolPolicy(POOL, ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of());
      return new DisruptionInput(states, Map.of(POOL, pool), template, NOW, options);
    }

    /**
     * Carries out a command at once: the candidates' pods go where a fresh scheduling pass over the
     * other nodes puts them (the pass the decision simulated), the replacements come up as their
     * cheapest instance type and offering.
     */
    void apply(Command command) {
      Set<String> gone = new HashSet<>();
      List<Pod> moving = new ArrayList<>();
      for (Candidate candidate : command.candidates()) {
        gone.add(candidate.name());
        moving.addAll(candidate.reschedulablePods());
      }
      nodes.removeIf(n -> gone.contains(n.name));
      // repack consolidation simulates with the cost post-pass, upstream's methods without it
      boolean repack = command.method() == Method.REPACK_CONSOLIDATION;
      SchedulerOptions options =
          template.options().withReservedOfferingMode(SchedulerOptions.ReservedOfferingMode.Fallback).withCostRepacking(repack);
      place(moving, options, command.replacements(), true);
    }

    /**
     * Places pods with a scheduling pass over the nodes: onto existing nodes where it puts them, and
     * onto new nodes, started as the cheapest type and offering of {@code replacements} (a command's,
     * which the pass must match when {@code command}) or else of the pass's own NodeClaims.
     */
    private void place(List<Pod> pods, SchedulerOptions options, List<PlannedNodeClaim> replacements, boolean command) {
      Map<String, Node> byName = new HashMap<>();
      List<ExistingNode> existing = new ArrayList<>();
      for (Node node : nodes) {
        byName.put(node.name, node);
        existing.add(node.existing());
      }
      SchedulingResult result =
          new Scheduler(new SchedulingInput(template.templates(), existing, pods, List.of(), null, options)).solve();
      if (!result.unschedulable().isEmpty() || (command && result.newNodeClaims().size() != replacements.size())) {
        throw new IllegalStateException("the command no longer matches a scheduling pass: " + result.newNodeClaims().size() + " new nodes, " + replacements);
      }
      result.existingNodePlacements().forEach((name, placed) -> {
        Node node = byName.get(name);
        placed.forEach(p -> node.pods.add(p.toBuilder().nodeName(node.name).build()));
      });
      for (int i = 0; i < result.newNodeClaims().size(); i++) {
        PlannedNodeClaim planned = i < replacements.size() ? replacements.get(i) : result.newNodeClaims().get(i);
        Node node = new Node("node-" + nextNode++, planned.cheapestInstanceType(), planned.cheapestOffering());
        result.newNodeClaims().get(i).pods().forEach(p -> node.pods.add(p.toBuilder().nodeName(node.name).build()));
        nodes.add(node);
      }
    }
  }
}
