package sh.karpenter.providers.aws.interruption;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Real EventBridge events as the interruption queue receives them (the JSON files under {@code
 * src/test/resources/interruption}, shaped as AWS documents each event), about the instance and at the
 * time a test chooses.
 */
public final class InterruptionSamples {
  /** The instance ID and time in the sample files. */
  static final String SAMPLE_INSTANCE = "i-0b662ef9931388ba0";
  static final String SAMPLE_TIME = "2026-11-26T01:00:00Z";

  private InterruptionSamples() {}

  public static String spotInterruption(String instanceId, Instant time) {
    return sample("spot-interruption", instanceId, time);
  }

  public static String rebalanceRecommendation(String instanceId, Instant time) {
    return sample("rebalance-recommendation", instanceId, time);
  }

  /** An AWS Health scheduled change of EC2 naming this instance and {@code i-05a2d7ef1c5e8e2b1}. */
  public static String scheduledChange(String instanceId, Instant time) {
    return sample("scheduled-change", instanceId, time);
  }

  /** A state change to {@code state} (stopping, stopped, shutting-down, terminated, pending, running). */
  public static String stateChange(String instanceId, String state, Instant time) {
    return sample("state-change", instanceId, time).replace("\"STATE\"", "\"" + state + "\"");
  }

  public static String capacityReservationInterruption(String instanceId, Instant time) {
    return sample("capacity-reservation-interruption", instanceId, time);
  }

  /** The file {@code name}.json as it is. */
  public static String sample(String name) {
    try (InputStream in = InterruptionSamples.class.getResourceAsStream("/interruption/" + name + ".json")) {
      if (in == null) {
        throw new IllegalArgumentException("no sample interruption/" + name + ".json");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sample(String name, String instanceId, Instant time) {
    return sample(name).replace(SAMPLE_INSTANCE, instanceId).replace(SAMPLE_TIME, time.toString());
  }
}
