package sh.karpenter.core.catalog;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the AWS instance-type data format with Jackson's streaming parser. {@code karpenter plan}
 * reads the bundled 1 MB snapshot on every run, and streaming it costs a fraction of what binding it
 * to records by reflection does on a cold JVM. Unknown fields are skipped, so newer data files load.
 */
final class AwsDataReader {
  private AwsDataReader() {}

  static final JsonFactory JSON = new JsonFactory();

  /** The top level of the AWS data format. */
  record AwsDataFile(String region, String pricesGeneratedAt, List<AwsInstanceTypeInfo> instanceTypes) {}

  /**
   * Reads a document positioned before its first token.
   *
   * @throws IllegalArgumentException when it is not an object with {@code region} and {@code
   *     instanceTypes}, naming the entry and field at fault
   */
  static AwsDataFile read(JsonParser parser) throws IOException {
    expect(parser.nextToken() == JsonToken.START_OBJECT, "expected a JSON object");
    String region = null;
    String pricesGeneratedAt = null;
    List<AwsInstanceTypeInfo> types = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      switch (field) {
        case "region" -> region = parser.getValueAsString();
        case "pricesGeneratedAt" -> pricesGeneratedAt = parser.getValueAsString();
        case "instanceTypes" -> {
          expect(value == JsonToken.START_ARRAY, "instanceTypes must be an array");
          types = new ArrayList<>(1400);
          while (parser.nextToken() == JsonToken.START_OBJECT) {
            types.add(readType(parser, types.size()));
          }
        }
        default -> parser.skipChildren();
      }
    }
    expect(types != null, "missing instanceTypes");
    expect(region != null && !region.isEmpty(), "missing region");
    return new AwsDataFile(region, pricesGeneratedAt, List.copyOf(types));
  }

  private static AwsInstanceTypeInfo readType(JsonParser parser, int index) throws IOException {
    String name = null;
    int vcpu = 0;
    long memoryMiB = 0;
    String arch = null;
    int gpuCount = 0;
    String gpuName = null;
    long gpuMemoryMiB = 0;
    String gpuManufacturer = null;
    String acceleratorName = null;
    int acceleratorCount = 0;
    Integer ipv4PerEni = null;
    Integer defaultCardMaxEnis = null;
    Integer podEni = null;
    String family = null;
    String category = null;
    Integer generation = null;
    String size = null;
    String hypervisor = null;
    String cpuManufacturer = null;
    Integer cpuClockSpeedMhz = null;
    Long networkBandwidthMbps = null;
    Long ebsBandwidthMbps = null;
    long localNvmeGb = 0;
    boolean flex = false;
    Double onDemandPrice = null;
    AwsInstanceTypeInfo.DocAllocatable doc = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      boolean isNull = value == JsonToken.VALUE_NULL;
      switch (field) {
        case "name" -> name = parser.getValueAsString();
        case "vcpu" -> vcpu = parser.getValueAsInt();
        case "memoryMiB" -> memoryMiB = parser.getValueAsLong();
        case "arch" -> arch = parser.getValueAsString();
        case "gpuCount" -> gpuCount = parser.getValueAsInt();
        case "gpuName" -> gpuName = parser.getValueAsString();
        case "gpuMemoryMiB" -> gpuMemoryMiB = parser.getValueAsLong();
        case "gpuManufacturer" -> gpuManufacturer = parser.getValueAsString();
        case "acceleratorName" -> acceleratorName = parser.getValueAsString();
        case "acceleratorCount" -> acceleratorCount = parser.getValueAsInt();
        case "ipv4PerENI" -> ipv4PerEni = isNull ? null : parser.getValueAsInt();
        case "defaultCardMaxENIs" -> defaultCardMaxEnis = isNull ? null : parser.getValueAsInt();
        case "podENI" -> podEni = isNull ? null : parser.getValueAsInt();
        case "family" -> family = parser.getValueAsString();
        case "category" -> category = parser.getValueAsString();
        case "generation" -> generation = isNull ? null : parser.getValueAsInt();
        case "size" -> size = parser.getValueAsString();
        case "hypervisor" -> hypervisor = parser.getValueAsString();
        case "cpuManufacturer" -> cpuManufacturer = parser.getValueAsString();
        case "cpuClockSpeedMHz" -> cpuClockSpeedMhz = isNull ? null : parser.getValueAsInt();
        case "networkBandwidthMbps" -> networkBandwidthMbps = isNull ? null : parser.getValueAsLong();
        case "ebsBandwidthMbps" -> ebsBandwidthMbps = isNull ? null : parser.getValueAsLong();
        case "localNvmeGB" -> localNvmeGb = parser.getValueAsLong();
        case "flex" -> flex = parser.getValueAsBoolean();
        case "onDemandPricePerHour" -> onDemandPrice = isNull ? null : parser.getValueAsDouble();
        case "docAllocatable" -> doc = isNull ? null : readDocAllocatable(parser);
        default -> parser.skipChildren();
      }
    }
    String where = "instanceTypes[" + index + "]" + (name == null ? "" : " (" + name + ")");
    expect(name != null && !name.isEmpty(), where + ": missing name");
    expect(vcpu > 0, where + ": missing or invalid vcpu");
    expect(memoryMiB > 0, where + ": missing or invalid memoryMiB");
    expect("amd64".equals(arch) || "arm64".equals(arch), where + ": arch must be amd64 or arm64, not " + arch);
    expect(family != null, where + ": missing family");
    return new AwsInstanceTypeInfo(
        name, vcpu, memoryMiB, arch, gpuCount, gpuName, gpuMemoryMiB, gpuManufacturer, acceleratorName,
        acceleratorCount, ipv4PerEni, defaultCardMaxEnis, podEni, family, category, generation, size, hypervisor,
        cpuManufacturer, cpuClockSpeedMhz, networkBandwidthMbps, ebsBandwidthMbps, localNvmeGb, flex, onDemandPrice,
        doc);
  }

  private static AwsInstanceTypeInfo.DocAllocatable readDocAllocatable(JsonParser parser) throws IOException {
    long cpuMillis = 0;
    long memoryMiB = 0;
    double ephemeralStorageGiB = 0;
    long pods = 0;
    Integer nvidiaGpu = null;
    Integer amdGpu = null;
    Integer awsNeuron = null;
    Integer awsNeuronCore = null;
    Integer efa = null;
    Integer podEni = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      parser.nextToken();
      switch (field) {
        case "cpuMillis" -> cpuMillis = parser.getValueAsLong();
        case "memoryMiB" -> memoryMiB = parser.getValueAsLong();
        case "ephemeralStorageGiB" -> ephemeralStorageGiB = parser.getValueAsDouble();
        case "pods" -> pods = parser.getValueAsLong();
        case "nvidiaGpu" -> nvidiaGpu = parser.getValueAsInt();
        case "amdGpu" -> amdGpu = parser.getValueAsInt();
        case "awsNeuron" -> awsNeuron = parser.getValueAsInt();
        case "awsNeuronCore" -> awsNeuronCore = parser.getValueAsInt();
        case "efa" -> efa = parser.getValueAsInt();
        case "podENI" -> podEni = parser.getValueAsInt();
        default -> parser.skipChildren();
      }
    }
    return new AwsInstanceTypeInfo.DocAllocatable(
        cpuMillis, memoryMiB, ephemeralStorageGiB, pods, nvidiaGpu, amdGpu, awsNeuron, awsNeuronCore, efa, podEni);
  }

  private static void expect(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
