package sh.karpenter.testkit.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The counting behind {@link FaultProxy#gone}: a 410 Status in a relayed stream, however it is split into reads. */
class FaultProxyOccurrencesTest {
  private static final byte[] GONE = "\"code\":410".getBytes(StandardCharsets.US_ASCII);
  private static final String EVENT = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"reason\":\"Expired\",\"code\":410}}\n";

  @Test
  void countsEachStatusOnceWhateverTheReadBoundaries() {
    byte[] stream = (EVENT + "{\"type\":\"ADDED\",\"object\":{\"code\":409}}\n" + EVENT).getBytes(StandardCharsets.US_ASCII);
    for (int pieceSize = 1; pieceSize <= stream.length; pieceSize++) {
      FaultProxy.Occurrences occurrences = new FaultProxy.Occurrences(GONE);
      int count = 0;
      for (int start = 0; start < stream.length; start += pieceSize) {
        int length = Math.min(pieceSize, stream.length - start);
        byte[] piece = new byte[pieceSize + 3]; // longer than what was read, as a reused buffer is
        System.arraycopy(stream, start, piece, 0, length);
        count += occurrences.in(piece, length);
      }
      assertThat(count).as("pieces of %d bytes", pieceSize).isEqualTo(2);
    }
  }

  @Test
  void aStreamWithoutTheStatusCountsNothing() {
    byte[] piece = "{\"type\":\"MODIFIED\",\"object\":{\"code\":409}}".getBytes(StandardCharsets.US_ASCII);
    assertThat(new FaultProxy.Occurrences(GONE).in(piece, piece.length)).isZero();
  }
}
