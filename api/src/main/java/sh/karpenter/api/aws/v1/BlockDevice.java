package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.Quantity;

/** The EBS volume of a block device mapping; {@code snapshotID} or {@code volumeSize} is set. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BlockDevice {
  private Boolean deleteOnTermination;
  private Boolean encrypted;
  private Long iops;
  private String kmsKeyID;
  private String snapshotID;
  private Long throughput;
  private Integer volumeInitializationRate;
  private Quantity volumeSize;
  private String volumeType;

  public Boolean getDeleteOnTermination() { return deleteOnTermination; }

  public void setDeleteOnTermination(Boolean deleteOnTermination) { this.deleteOnTermination = deleteOnTermination; }

  public Boolean getEncrypted() { return encrypted; }

  public void setEncrypted(Boolean encrypted) { this.encrypted = encrypted; }

  /** Provisioned IOPS (io1, io2, gp3). */
  @JsonProperty("iops")
  public Long getIops() { return iops; }

  public void setIops(Long iops) { this.iops = iops; }

  /** Key ID, alias or ARN of the KMS key encrypting the volume. */
  @JsonProperty("kmsKeyID")
  public String getKmsKeyID() { return kmsKeyID; }

  public void setKmsKeyID(String kmsKeyID) { this.kmsKeyID = kmsKeyID; }

  @JsonProperty("snapshotID")
  public String getSnapshotID() { return snapshotID; }

  public void setSnapshotID(String snapshotID) { this.snapshotID = snapshotID; }

  /** gp3 throughput in MiB/s. */
  public Long getThroughput() { return throughput; }

  public void setThroughput(Long throughput) { this.throughput = throughput; }

  /** MiB/s at which a volume created from a snapshot is initialised, 100..300; needs {@code snapshotID}. */
  public Integer getVolumeInitializationRate() { return volumeInitializationRate; }

  public void setVolumeInitializationRate(Integer volumeInitializationRate) { this.volumeInitializationRate = volumeInitializationRate; }

  /** A quantity in {@code Gi}, {@code G}, {@code Ti} or {@code T}, at most 64T. */
  public Quantity getVolumeSize() { return volumeSize; }

  public void setVolumeSize(Quantity volumeSize) { this.volumeSize = volumeSize; }

  /** {@code standard}, {@code io1}, {@code io2}, {@code gp2}, {@code sc1}, {@code st1} or {@code gp3}. */
  public String getVolumeType() { return volumeType; }

  public void setVolumeType(String volumeType) { this.volumeType = volumeType; }
}
