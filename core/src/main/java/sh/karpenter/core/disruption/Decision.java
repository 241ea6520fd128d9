package sh.karpenter.core.disruption;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The outcome of one disruption loop: the commands of the first method that produced any (only one
 * method acts per loop), why other nodes were left alone, and what the metrics report.
 *
 * @param method the method that produced the commands, or null when none did
 * @param allowedDisruptions per NodePool and reason, how many nodes the budgets allow now
 * @param eligibleNodes per reason, the candidates found
 * @param scores Balanced-policy moves considered
 * @param timedOut the consolidation methods that stopped at their timeout this loop
 * @param moves the consolidation moves judged this loop ({@link ConsolidationMove})
 * @param undisrupted every managed node the loop leaves alone, with its one current reason
 *     (docs/behaviour/disruption.md#why-not)
 */
public record Decision(
    Method method,
    List<Command> commands,
    List<Blocked> blocked,
    Map<String, Map<Reason, Integer>> allowedDisruptions,
    Map<Reason, Integer> eligibleNodes,
    List<ScoredMove> scores,
    Set<Method> timedOut,
    List<ConsolidationMove> moves,
    List<Undisrupted> undisrupted) {
  public Decision {
    commands = List.copyOf(commands);
    blocked = List.copyOf(blocked);
    allowedDisruptions = Map.copyOf(allowedDisruptions);
    eligibleNodes = Map.copyOf(eligibleNodes);
    scores = List.copyOf(scores);
    timedOut = timedOut == null ? Set.of() : Set.copyOf(timedOut);
    moves = moves == null ? List.of() : List.copyOf(moves);
    undisrupted = undisrupted == null ? List.of() : List.copyOf(undisrupted);
  }

  /** A decision that explains no node. */
  public Decision(
      Method method,
      List<Command> commands,
      List<Blocked> blocked,
      Map<String, Map<Reason, Integer>> allowedDisruptions,
      Map<Reason, Integer> eligibleNodes,
      List<ScoredMove> scores,
      Set<Method> timedOut,
      List<ConsolidationMove> moves) {
    this(method, commands, blocked, allowedDisruptions, eligibleNodes, scores, timedOut, moves, List.of());
  }

  /** A decision without consolidation moves. */
  public Decision(
      Method method,
      List<Command> commands,
      List<Blocked> blocked,
      Map<String, Map<Reason, Integer>> allowedDisruptions,
      Map<Reason, Integer> eligibleNodes,
      List<ScoredMove> scores,
      Set<Method> timedOut) {
    this(method, commands, blocked, allowedDisruptions, eligibleNodes, scores, timedOut, List.of());
  }

  /** A decision in which no method timed out. */
  public Decision(
      Method method,
      List<Command> commands,
      List<Blocked> blocked,
      Map<String, Map<Reason, Integer>> allowedDisruptions,
      Map<Reason, Integer> eligibleNodes,
      List<ScoredMove> scores) {
    this(method, commands, blocked, allowedDisruptions, eligibleNodes, scores, Set.of());
  }

  public boolean isEmpty() {
    return commands.isEmpty();
  }
}
