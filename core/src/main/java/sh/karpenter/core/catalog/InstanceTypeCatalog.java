package sh.karpenter.core.catalog;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import sh.karpenter.core.catalog.AwsDataReader.AwsDataFile;
import sh.karpenter.core.instancetype.InstanceType;

/**
 * The instance types a simulation or {@code karpenter plan} offers NodePools, with a description of
 * where they and their prices come from. Entry points: {@link #aws()} (the bundled AWS snapshot, the
 * default catalogue), {@link #fake(int)} and {@link #kwok()} (upstream's test providers) and {@link
 * #fromFile(Path)} (an AWS-format or KWOK-format JSON file).
 *
 * @param description one line naming the source, e.g. for CLI output
 * @param instanceTypes the types, in catalogue order
 * @param spotPrices how spot prices were made, or null when the source priced spot itself
 * @param notes facts a reader of a report should know (fallbacks taken, types skipped)
 */
public record InstanceTypeCatalog(
    String description, List<InstanceType> instanceTypes, SpotPriceModel spotPrices, List<String> notes) {

  /** Where the bundled AWS snapshot lives on the class path. */
  public static final String BUNDLED_AWS_RESOURCE = "/catalog/aws-instance-types.json";

  public InstanceTypeCatalog {
    instanceTypes = List.copyOf(instanceTypes);
    notes = List.copyOf(notes);
  }

  /** Whether any price in the catalogue is invented (see {@link #spotPrices()}). */
  public boolean pricesSimulated() {
    return spotPrices != null && spotPrices.simulated();
  }

  /** The bundled AWS snapshot in us-east-1a/b/c with simulated spot prices. */
  public static InstanceTypeCatalog aws() {
    return aws(AwsCatalogOptions.DEFAULT);
  }

  /** The bundled AWS snapshot in the given zones with the given spot prices. */
  public static InstanceTypeCatalog aws(List<String> zones, SpotPriceModel spotPrices) {
    return aws(AwsCatalogOptions.DEFAULT.withZones(zones).withSpotPrices(spotPrices));
  }

  public static InstanceTypeCatalog aws(AwsCatalogOptions options) {
    return aws(BundledAws.DATA, "bundled AWS snapshot", options);
  }

  /**
   * The entries of the bundled AWS snapshot, in file order: the AWS provider's static on-demand price
   * list and its tables of facts DescribeInstanceTypes lacks (branch ENIs, network bandwidth).
   */
  public static List<AwsInstanceTypeInfo> bundledAwsInstanceTypes() {
    return BundledAws.DATA.instanceTypes();
  }

  /** The region the bundled AWS snapshot's prices are for. */
  public static String bundledAwsRegion() {
    return BundledAws.DATA.region();
  }

  /** When the bundled AWS snapshot's on-demand prices were generated (ISO-8601). */
  public static String bundledAwsPricesGeneratedAt() {
    return BundledAws.DATA.pricesGeneratedAt();
  }

  /** Upstream's fake-provider generation rule: {@code fake-it-0 ..} (see {@link FakeInstanceTypes}). */
  public static InstanceTypeCatalog fake(int count) {
    return new InstanceTypeCatalog(
        "fake provider: " + count + " generated types", FakeInstanceTypes.instanceTypes(count), null, List.of());
  }

  /** The KWOK provider's 144 generated types. */
  public static InstanceTypeCatalog kwok() {
    return new InstanceTypeCatalog("KWOK provider: 144 generated types", KwokInstanceTypes.generated(), null, List.of());
  }

  /** A JSON file: AWS format (an object with {@code instanceTypes}) with default options, else KWOK format. */
  public static InstanceTypeCatalog fromFile(Path path) throws IOException {
    return fromFile(path, AwsCatalogOptions.DEFAULT);
  }

  /**
   * A JSON file, detected by its shape: an object with an {@code instanceTypes} field is the AWS data
   * format (built with {@code options}); an array is the KWOK format.
   *
   * @throws IOException when the file cannot be read
   * @throws IllegalArgumentException when the file is not JSON or is neither format, naming the file,
   *     the entry and the field at fault
   */
  public static InstanceTypeCatalog fromFile(Path path, AwsCatalogOptions options) throws IOException {
    byte[] content = Files.readAllBytes(path);
    try {
      JsonToken first;
      try (JsonParser parser = AwsDataReader.JSON.createParser(content)) {
        first = parser.nextToken();
      }
      if (first == JsonToken.START_ARRAY) {
        List<InstanceType> types = KwokInstanceTypes.fromJson(new ObjectMapper().readTree(content));
        return new InstanceTypeCatalog("KWOK-format file " + path + ": " + types.size() + " types", types, null, List.of());
      }
      if (first == JsonToken.START_OBJECT) {
        try (JsonParser parser = AwsDataReader.JSON.createParser(content)) {
          return aws(AwsDataReader.read(parser), path.toString(), options);
        }
      }
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(path + ": not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
    throw new IllegalArgumentException(
        path + ": expected an AWS instance-type file (an object with \"instanceTypes\") or a KWOK one (an array)");
  }

  private static InstanceTypeCatalog aws(AwsDataFile data, String source, AwsCatalogOptions options) {
    List<String> notes = new ArrayList<>();
    List<String> withoutEni = new ArrayList<>();
    int unpriced = 0;
    for (AwsInstanceTypeInfo info : data.instanceTypes()) {
      if (info.onDemandPricePerHour() == null) {
        unpriced++;
      } else if (!info.hasEniData()) {
        withoutEni.add(info.name());
      }
    }
    if (!withoutEni.isEmpty()) {
      notes.add(
          withoutEni.size() + " types have no ENI data and get " + AwsInstanceTypes.FALLBACK_MAX_PODS + " pods: "
              + String.join(", ", withoutEni));
    }
    if (unpriced > 0) {
      notes.add(unpriced + " types have no on-demand price and were left out");
    }
    notes.add("zones " + String.join(", ", options.zones()) + " assumed for every type (the data has no zones)");
    notes.add(options.spotPrices().description());
    List<InstanceType> types = AwsInstanceTypes.of(data.instanceTypes(), data.region(), options);
    return new InstanceTypeCatalog(
        source + " (" + data.region() + ", " + types.size() + " types, prices as of " + data.pricesGeneratedAt() + ")",
        types,
        options.spotPrices(),
        notes);
  }

  /** The bundled snapshot, parsed once per JVM on first use. */
  static final class BundledAws {
    static final AwsDataFile DATA = load();

    private static AwsDataFile load() {
      try (InputStream in = InstanceTypeCatalog.class.getResourceAsStream(BUNDLED_AWS_RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("missing class-path resource " + BUNDLED_AWS_RESOURCE);
        }
        try (JsonParser parser = AwsDataReader.JSON.createParser(in)) {
          return AwsDataReader.read(parser);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + BUNDLED_AWS_RESOURCE, e);
      }
    }
  }
}
