package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/** A subnet the subnet selectors matched: its ID, zone and zone ID. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Subnet {
  private String id;
  private String zone;
  private String zoneID;

  public Subnet() {}

  public Subnet(String id, String zone, String zoneID) {
    this.id = id;
    this.zone = zone;
    this.zoneID = zoneID;
  }

  public String getId() { return id; }

  public void setId(String id) { this.id = id; }

  public String getZone() { return zone; }

  public void setZone(String zone) { this.zone = zone; }

  @JsonProperty("zoneID")
  public String getZoneID() { return zoneID; }

  public void setZoneID(String zoneID) { this.zoneID = zoneID; }
}
