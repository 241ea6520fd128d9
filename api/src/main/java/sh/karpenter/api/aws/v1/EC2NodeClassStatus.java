package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * What the AWS provider resolved for an EC2NodeClass: the subnets, security groups, capacity
 * reservations and AMIs its selectors match, the instance profile, and the conditions
 * ({@link EC2NodeClassConditions}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EC2NodeClassStatus {
  private List<Subnet> subnets;
  private List<SecurityGroup> securityGroups;
  private List<CapacityReservation> capacityReservations;
  private List<AMI> amis;
  private String instanceProfile;
  private List<Condition> conditions;

  public List<Subnet> getSubnets() { return subnets; }

  public void setSubnets(List<Subnet> subnets) { this.subnets = subnets; }

  public List<SecurityGroup> getSecurityGroups() { return securityGroups; }

  public void setSecurityGroups(List<SecurityGroup> securityGroups) { this.securityGroups = securityGroups; }

  public List<CapacityReservation> getCapacityReservations() { return capacityReservations; }

  public void setCapacityReservations(List<CapacityReservation> capacityReservations) { this.capacityReservations = capacityReservations; }

  public List<AMI> getAmis() { return amis; }

  public void setAmis(List<AMI> amis) { this.amis = amis; }

  /** The instance profile nodes launch with: the one Karpenter manages for {@code spec.role}, or {@code spec.instanceProfile}. */
  public String getInstanceProfile() { return instanceProfile; }

  public void setInstanceProfile(String instanceProfile) { this.instanceProfile = instanceProfile; }

  public List<Condition> getConditions() { return conditions; }

  public void setConditions(List<Condition> conditions) { this.conditions = conditions; }
}
