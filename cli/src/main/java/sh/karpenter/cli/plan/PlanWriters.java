package sh.karpenter.cli.plan;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Renders a {@link PlanReport} as the contract's JSON or as a table for people. */
public final class PlanWriters {
  private PlanWriters() {}

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
          .build();

  /** How many instance-type options the table shows before summarising the rest. */
  private static final int OPTIONS_SHOWN = 3;

  /**
   * Writes the plan as JSON, exactly per the plan contract, then a line break, without building it
   * in memory first (plans of 100,000 pods are large).
   */
  public static void json(PlanReport report, PrintWriter out) {
    try {
      JSON.writer().without(JsonGenerator.Feature.AUTO_CLOSE_TARGET).writeValue(out, report);
    } catch (java.io.IOException e) {
      throw new UncheckedIOException(e);
    }
    out.println();
    out.flush();
  }

  /**
   * The plan as text: new NodeClaims, existing nodes receiving pods, unschedulable pods with their
   * reasons, then a summary with the cost, the lower bound and the gap between them, then the notes
   * (such as how spot prices were simulated).
   */
  public static void table(PlanReport report, List<String> notes, PrintWriter out) {
    if (!report.nodeClaims().isEmpty()) {
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"NODECLAIM", "NODEPOOL", "INSTANCE TYPE", "ZONE", "CAPACITY", "$/HOUR", "PODS", "OPTIONS"});
      for (PlanReport.NodeClaim claim : report.nodeClaims()) {
        rows.add(
            new String[] {
              claim.name(),
              claim.nodePool(),
              claim.instanceType(),
              claim.zone(),
              claim.capacityType(),
              dollars(claim.pricePerHour()),
              Integer.toString(claim.pods().size()),
              options(claim.instanceTypeOptions())
            });
      }
      printColumns(rows, out);
      out.println();
    }
    if (!report.existingNodes().isEmpty()) {
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"EXISTING NODE", "NEW PODS"});
      for (PlanReport.ExistingNode node : report.existingNodes()) {
        rows.add(new String[] {node.name(), Integer.toString(node.pods().size())});
      }
      printColumns(rows, out);
      out.println();
    }
    if (!report.unschedulable().isEmpty()) {
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"UNSCHEDULABLE POD", "REASON"});
      for (PlanReport.Unschedulable pod : report.unschedulable()) {
        rows.add(new String[] {pod.pod(), pod.reason()});
      }
      printColumns(rows, out);
      out.println();
    }
    out.println(summaryLine(report.summary()));
    out.println("Lower bound: " + report.lowerBoundMethod() + ", computed in " + report.lowerBoundMillis() + " ms.");
    if (!report.costRepackingOutOfBudget().isEmpty()) {
      out.println(costRepackingNote(report.costRepackingOutOfBudget()));
    }
    for (String note : notes) {
      out.println("Note: " + note);
    }
    out.flush();
  }

  /** The line saying which NodePools' cost post-pass stopped at its step budget. */
  static String costRepackingNote(List<String> nodePools) {
    return "Cost post-pass: stopped at its step budget for nodepool " + String.join(", ", nodePools)
        + "; their NodeClaims are the cheapest plan found by then.";
  }

  static String summaryLine(PlanReport.Summary s) {
    int unschedulable = s.pendingPods() - s.scheduledPods();
    return String.format(
        Locale.ROOT,
        "Plan: %d pending pods, %d scheduled, %d unschedulable; %d new NodeClaims costing %s/h;"
            + " lower bound %s/h (gap %s); solved in %d ms.",
        s.pendingPods(),
        s.scheduledPods(),
        unschedulable,
        s.newNodeClaims(),
        dollars(s.costPerHour()),
        dollars(s.lowerBoundPerHour()),
        gap(s.costPerHour(), s.lowerBoundPerHour()),
        s.solveMillis());
  }

  /** How far the plan's cost is above the lower bound, relative to the bound. */
  static String gap(BigDecimal cost, BigDecimal lowerBound) {
    if (cost.compareTo(lowerBound) <= 0) {
      return "0.0%";
    }
    if (lowerBound.signum() == 0) {
      return "n/a";
    }
    BigDecimal percent = cost.subtract(lowerBound).multiply(BigDecimal.valueOf(100)).divide(lowerBound, 1, RoundingMode.HALF_UP);
    return percent.toPlainString() + "%";
  }

  private static String dollars(BigDecimal amount) {
    return "$" + amount.setScale(4, RoundingMode.HALF_UP).toPlainString();
  }

  private static String options(List<String> options) {
    if (options.size() <= OPTIONS_SHOWN) {
      return String.join(", ", options);
    }
    return String.join(", ", options.subList(0, OPTIONS_SHOWN)) + " +" + (options.size() - OPTIONS_SHOWN) + " more";
  }

  private static void printColumns(List<String[]> rows, PrintWriter out) {
    int columns = rows.getFirst().length;
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int c = 0; c < columns - 1; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        line.append(row[c]);
        if (c < columns - 1) {
          line.append(" ".repeat(widths[c] - row[c].length() + 2));
        }
      }
      out.println(line);
    }
  }
}
