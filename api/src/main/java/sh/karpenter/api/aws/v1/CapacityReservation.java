package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A capacity reservation the capacity reservation selectors matched. {@code reservationType} defaults to
 * {@link #TYPE_DEFAULT} and {@code state} to {@link #STATE_ACTIVE}; a capacity block is
 * {@link #STATE_EXPIRING} within {@link #EXPIRATION_PERIOD_MINUTES} minutes of its end.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapacityReservation {
  public static final String TYPE_DEFAULT = "default";
  public static final String TYPE_CAPACITY_BLOCK = "capacity-block";
  public static final String STATE_ACTIVE = "active";
  public static final String STATE_EXPIRING = "expiring";
  public static final String MATCH_OPEN = "open";
  public static final String MATCH_TARGETED = "targeted";
  /** How long before its end time a capacity block counts as expiring (upstream's 40 minutes). */
  public static final int EXPIRATION_PERIOD_MINUTES = 40;

  private String availabilityZone;
  private String endTime;
  private String id;
  private String instanceMatchCriteria;
  private String instanceType;
  private String ownerID;
  private String reservationType;
  private Boolean interruptible;
  private String state;

  public String getAvailabilityZone() { return availabilityZone; }

  public void setAvailabilityZone(String availabilityZone) { this.availabilityZone = availabilityZone; }

  /** RFC 3339 end of the reservation, or null when it does not end. */
  public String getEndTime() { return endTime; }

  public void setEndTime(String endTime) { this.endTime = endTime; }

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }

  /** {@link #MATCH_OPEN} or {@link #MATCH_TARGETED}. */
  public String getInstanceMatchCriteria() { return instanceMatchCriteria; }

  public void setInstanceMatchCriteria(String instanceMatchCriteria) { this.instanceMatchCriteria = instanceMatchCriteria; }

  public String getInstanceType() { return instanceType; }

  public void setInstanceType(String instanceType) { this.instanceType = instanceType; }

  @JsonProperty("ownerID")
  public String getOwnerID() { return ownerID; }

  public void setOwnerID(String ownerID) { this.ownerID = ownerID; }

  /** {@link #TYPE_DEFAULT} or {@link #TYPE_CAPACITY_BLOCK}. */
  public String getReservationType() { return reservationType; }

  public void setReservationType(String reservationType) { this.reservationType = reservationType; }

  public Boolean getInterruptible() { return interruptible; }

  public void setInterruptible(Boolean interruptible) { this.interruptible = interruptible; }

  /** {@link #STATE_ACTIVE} or {@link #STATE_EXPIRING}. */
  public String getState() { return state; }

  public void setState(String state) { this.state = state; }
}
