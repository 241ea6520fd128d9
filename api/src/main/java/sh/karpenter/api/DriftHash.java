package sh.karpenter.api;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * The canonical encoding and digest of the static drift hashes ({@code NodePoolHash},
 * {@code EC2NodeClassHash}). Callers write the fields they count, in a fixed order, each as a name and
 * a list of string parts; the digest is the first 64 bits of SHA-256 over the encoding (field name as
 * modified UTF-8, part count, then each part's UTF-8 length and bytes), printed as an unsigned decimal
 * like upstream's hashstructure values. The encoding is part of every hash's contract: changing it
 * re-drifts every NodeClaim, so it changes only with a bump of the hash versions.
 */
public final class DriftHash {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final DataOutputStream data = new DataOutputStream(bytes);

  /** Writes one field. */
  public DriftHash field(String name, List<String> parts) {
    try {
      data.writeUTF(name);
      data.writeInt(parts.size());
      for (String part : parts) {
        byte[] utf8 = part.getBytes(StandardCharsets.UTF_8);
        data.writeInt(utf8.length);
        data.write(utf8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** Writes one field. */
  public DriftHash field(String name, String... parts) {
    return field(name, Arrays.asList(parts));
  }

  /**
   * Several strings as one part, each prefixed with its length ({@code 3:abc0:}); null counts as
   * empty. Used for the elements of fields hashed as sets, which are sorted and de-duplicated as
   * strings.
   */
  public static String tuple(String... parts) {
    return tuple(Arrays.asList(parts));
  }

  /** {@link #tuple(String...)} of a list. */
  public static String tuple(List<String> parts) {
    StringBuilder s = new StringBuilder();
    for (String part : parts) {
      String p = part == null ? "" : part;
      s.append(p.length()).append(':').append(p);
    }
    return s.toString();
  }

  /** The hash of everything written. */
  public String digest() {
    try {
      byte[] sha = MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray());
      return Long.toUnsignedString(ByteBuffer.wrap(sha, 0, Long.BYTES).getLong());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
