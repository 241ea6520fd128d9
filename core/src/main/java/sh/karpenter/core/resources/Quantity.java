package sh.karpenter.core.resources;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Exact Kubernetes quantities ({@code resource.Quantity}) as milli-units in a {@code long}.
 *
 * <p>Parsing accepts every form Kubernetes does: an optional sign, a decimal number ({@code 1},
 * {@code 1.5}, {@code .5}, {@code 5.}), then nothing, a decimal SI suffix ({@code n u m k M G T P
 * E}), a binary suffix ({@code Ki Mi Gi Ti Pi Ei}) or a decimal exponent ({@code e3}, {@code E-2}).
 * The value is computed exactly and rounded away from zero to a whole milli-unit, as Kubernetes'
 * {@code MilliValue()} does ({@code 0.1m} reads as {@code 1m}).
 */
public final class Quantity {
  private Quantity() {}

  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final String[] BINARY_SUFFIXES = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
  private static final int[] BINARY_SHIFTS = {60, 50, 40, 30, 20, 10};

  /**
   * Exact parse of a Kubernetes quantity ("100m", "1.5Gi", "2e3", "1Ki"), in milli-units, rounded up
   * (away from zero) like Kubernetes' MilliValue.
   *
   * <p>Magnitudes beyond a {@code long} of milli-units (about 9.2e15 units, e.g. upstream's
   * "effectively unlimited" NodePool limit {@code 10000000Gi}) saturate at {@link Long#MAX_VALUE}
   * (or {@link Long#MIN_VALUE}); {@link Resources} arithmetic saturates too, so such a value keeps
   * meaning "unbounded".
   *
   * @throws IllegalArgumentException naming the offending text when it is not a quantity
   */
  public static long parseMilli(String text) {
    if (text == null) {
      throw new IllegalArgumentException("quantity must not be null");
    }
    int n = text.length();
    int i = 0;
    boolean negative = false;
    if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
      negative = text.charAt(i) == '-';
      i++;
    }
    int numberStart = i;
    int digits = 0;
    boolean dot = false;
    long whole = 0; // fast path: integer mantissa that fits comfortably
    boolean fast = true;
    for (; i < n; i++) {
      char c = text.charAt(i);
      if (c >= '0' && c <= '9') {
        digits++;
        if (dot || digits > 15) {
          fast = false;
        } else {
          whole = whole * 10 + (c - '0');
        }
      } else if (c == '.' && !dot) {
        dot = true;
        fast = false;
      } else {
        break;
      }
    }
    if (digits == 0) {
      throw invalid(text);
    }
    String number = text.substring(numberStart, i);
    String suffix = text.substring(i);
    // The multiplier as 2^shift * 10^exponent, applied to the mantissa; exponent counts in milli.
    int shift = 0;
    int exponent = 3;
    switch (suffix) {
      case "" -> {}
      case "n" -> exponent -= 9;
      case "u" -> exponent -= 6;
      case "m" -> exponent -= 3;
      case "k" -> exponent += 3;
      case "M" -> exponent += 6;
      case "G" -> exponent += 9;
      case "T" -> exponent += 12;
      case "P" -> exponent += 15;
      case "E" -> exponent += 18;
      case "Ki" -> shift = 10;
      case "Mi" -> shift = 20;
      case "Gi" -> shift = 30;
      case "Ti" -> shift = 40;
      case "Pi" -> shift = 50;
      case "Ei" -> shift = 60;
      default -> exponent += parseExponent(text, suffix);
    }
    if (fast && shift == 0 && exponent >= 0 && exponent <= 3) {
      long scaled = whole * (exponent == 3 ? 1000 : exponent == 0 ? 1 : exponent == 1 ? 10 : 100);
      return negative ? -scaled : scaled;
    }
    BigDecimal value = new BigDecimal(number.endsWith(".") ? number + "0" : number);
    if (shift > 0) {
      value = value.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(shift)));
    }
    value = value.scaleByPowerOfTen(exponent).setScale(0, RoundingMode.UP);
    if (negative) {
      value = value.negate();
    }
    if (value.compareTo(LONG_MAX) > 0) {
      return Long.MAX_VALUE;
    }
    if (value.compareTo(LONG_MIN) < 0) {
      return Long.MIN_VALUE;
    }
    return value.longValueExact();
  }

  private static int parseExponent(String text, String suffix) {
    if (suffix.length() < 2 || (suffix.charAt(0) != 'e' && suffix.charAt(0) != 'E')) {
      throw invalid(text);
    }
    int j = 1;
    boolean negative = false;
    if (suffix.charAt(j) == '+' || suffix.charAt(j) == '-') {
      negative = suffix.charAt(j) == '-';
      j++;
    }
    if (j == suffix.length() || suffix.length() - j > 4) {
      throw invalid(text);
    }
    int value = 0;
    for (; j < suffix.length(); j++) {
      char c = suffix.charAt(j);
      if (c < '0' || c > '9') {
        throw invalid(text);
      }
      value = value * 10 + (c - '0');
    }
    if (value > 64) { // beyond any long of milli-units (saturates) or below one nano-unit
      return negative ? -64 : 64;
    }
    return negative ? -value : value;
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException("invalid quantity: \"" + text + "\"");
  }

  /**
   * Canonical, readable text for a milli-value of the named resource: millis only when the value is
   * not whole ("1930m"); byte-sized resources ({@link ResourceNames#isByteSized}) with the largest
   * exact binary suffix ("7134Mi", "20Gi"); otherwise a plain integer ("2", "29"). {@link
   * #parseMilli} reads the result back to the same value.
   */
  public static String format(String resourceName, long milli) {
    if (milli % 1000 != 0) {
      return milli + "m";
    }
    long whole = milli / 1000;
    if (whole != 0 && ResourceNames.isByteSized(resourceName)) {
      long magnitude = Math.abs(whole);
      for (int s = 0; s < BINARY_SHIFTS.length; s++) {
        long unit = 1L << BINARY_SHIFTS[s];
        if (magnitude % unit == 0) {
          return (whole / unit) + BINARY_SUFFIXES[s];
        }
      }
    }
    return Long.toString(whole);
  }
}
