package sh.karpenter.core.disruption;

import sh.karpenter.core.wellknown.Annotations;

/**
 * Why a managed node was not disrupted in a pass (docs/behaviour/disruption.md#why-not): every managed
 * node a pass leaves alone gets exactly one, the most important of the reasons that hold for it. The
 * declaration order is the precedence, most important first: states in which no method may touch the
 * node at all, then the user's protections, then the NodePool's configuration, then its disruption
 * budget, then the economics of the moves that were judged, then what the pass did not look at.
 * {@link #SHADOW_MODE} is not a competing reason: it replaces the decision of a node that shadow mode
 * would have disrupted (the controller sets it).
 */
public enum WhyNot {
  /** The node or its NodeClaim is deleting, or a command already holds it (marked for deletion). */
  BEING_DELETED("BeingDeleted"),
  /** Not initialized yet (upstream's candidate filter); only node repair looks at such nodes. */
  NOT_INITIALIZED("NotInitialized"),
  /** Provisioning nominated it for pending pods (upstream's candidate filter). */
  NOMINATED("Nominated"),
  /** {@code karpenter.sh/do-not-disrupt} on the Node or on one of its pods (the message names the pod). */
  DO_NOT_DISRUPT("DoNotDisrupt"),
  /** A pod covered by a PodDisruptionBudget that allows no disruption, or by several (names the PDB and the pod). */
  PDB("PodDisruptionBudget"),
  /** The NodePool's consolidation policy excludes it: {@code consolidateAfter: Never}, or {@code WhenEmpty} and the node is not empty. */
  POLICY("ConsolidationPolicy"),
  /** Inside its NodePool's {@code consolidateAfter} window (not {@code Consolidatable} yet; the message says until when). */
  WITHIN_CONSOLIDATE_AFTER("WithinConsolidateAfter"),
  /** The NodePool's disruption budget for the reason allows no more disruptions now. */
  BUDGET("DisruptionBudget"),
  /** The Balanced policy rejected its move: the savings are too small for the disruption. */
  BALANCED_SCORE("BalancedScoreTooLow"),
  /** A move was found but would take too long to pay back its disruption (an {@code Unconsolidatable} "payback ..." message). */
  PAYBACK_TOO_LONG("PaybackTooLong"),
  /** Its pods fit nowhere cheaper: they fit nowhere else, would need more than one new node, or no cheaper replacement exists. */
  NO_CHEAPER_PLACEMENT("NoCheaperPlacement"),
  /** No method looked at it this pass: another method's command ended the pass, or a consolidation timed out first. */
  NOT_EVALUATED("NotEvaluated"),
  /** Shadow mode decided to disrupt it and did not act (docs/behaviour/disruption.md#shadow-mode). */
  SHADOW_MODE("ShadowMode"),
  /** Anything else (an unresolvable NodePool or instance type, a drift replacement that cannot place the pods, node repair withheld). */
  OTHER("Other");

  private final String apiName;

  WhyNot(String apiName) {
    this.apiName = apiName;
  }

  /** The condition reason and CLI value, e.g. {@code PodDisruptionBudget}. */
  public String apiName() {
    return apiName;
  }

  /** The value with this API name, or null. */
  public static WhyNot ofApiName(String name) {
    for (WhyNot why : values()) {
      if (why.apiName.equals(name)) {
        return why;
      }
    }
    return null;
  }

  /** Whether this reason is more important than {@code other} (null counts as least important). */
  public boolean outranks(WhyNot other) {
    return other == null || ordinal() < other.ordinal();
  }

  /**
   * The class of a {@link Blocked} entry from its event and message, for entries that do not say it
   * themselves: an {@code Unconsolidatable} message starting with "payback" is {@link
   * #PAYBACK_TOO_LONG}, one naming something that "can't be resolved" {@link #OTHER}, any other {@link
   * #NO_CHEAPER_PLACEMENT}; a {@code DisruptionBlocked} message is classed by what it names (the
   * do-not-disrupt annotation, a PDB, a budget, the nomination), else {@link #OTHER}.
   */
  public static WhyNot classify(String event, String message) {
    String text = message == null ? "" : message;
    if (Candidates.UNCONSOLIDATABLE.equals(event)) {
      if (text.startsWith("payback")) {
        return PAYBACK_TOO_LONG;
      }
      return text.contains("can't be resolved") ? OTHER : NO_CHEAPER_PLACEMENT;
    }
    if (Candidates.DISRUPTION_BLOCKED.equals(event)) {
      if (text.contains(Annotations.DO_NOT_DISRUPT + "\" annotation")) {
        return DO_NOT_DISRUPT;
      }
      if (text.startsWith("pdb ") || text.contains("multiple PDBs")) {
        return PDB;
      }
      if (text.startsWith("budget ")) {
        return BUDGET;
      }
      if (text.startsWith("node is nominated")) {
        return NOMINATED;
      }
    }
    return OTHER;
  }
}
