package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One disruption budget: at most {@code nodes} (a count or a percentage) nodes of the pool may be
 * disrupting at once for the listed {@code reasons} (all reasons when null), either always or only for
 * {@code duration} after each hit of the cron {@code schedule} (UTC).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Budget {
  private List<DisruptionReason> reasons;
  private String nodes;
  private String schedule;
  private GoDuration duration;

  public Budget() {}

  public Budget(String nodes) {
    this.nodes = nodes;
  }

  public List<DisruptionReason> getReasons() { return reasons; }

  public void setReasons(List<DisruptionReason> reasons) { this.reasons = reasons; }

  public String getNodes() { return nodes; }

  public void setNodes(String nodes) { this.nodes = nodes; }

  public String getSchedule() { return schedule; }

  public void setSchedule(String schedule) { this.schedule = schedule; }

  public GoDuration getDuration() { return duration; }

  public void setDuration(GoDuration duration) { this.duration = duration; }
}
