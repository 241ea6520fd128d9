package sh.karpenter.providers.aws.amifamily;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MIME multi-part archives as EC2 user data uses them (upstream bootstrap/mime): parsing the parts of
 * a user's archive and writing an archive with boundary {@code //} and no carriage returns, byte for
 * byte as Go's {@code mime/multipart} writer does once upstream strips the {@code \r}s.
 */
public final class Mime {
  private Mime() {}

  public static final String BOUNDARY = "//";
  public static final String CONTENT_TYPE_SHELL_SCRIPT = "text/x-shellscript; charset=\"us-ascii\"";
  public static final String CONTENT_TYPE_NODE_CONFIG = "application/node.eks.aws";

  private static final Pattern BOUNDARY_PARAM = Pattern.compile("(?i)boundary\\s*=\\s*(\"([^\"]*)\"|([^;\\s]+))");

  /**
   * One part: its headers in the order written (Content-Type first when written by us).
   *
   * @param headers header name → value; must contain {@code Content-Type}
   */
  public record Entry(Map<String, String> headers, String content) {
    public Entry {
      headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    public static Entry of(String contentType, String content) {
      return new Entry(Map.of("Content-Type", contentType), content);
    }

    public String contentType() {
      for (Map.Entry<String, String> h : headers.entrySet()) {
        if (h.getKey().equalsIgnoreCase("Content-Type")) {
          return h.getValue();
        }
      }
      return "";
    }
  }

  /** True when {@code userData} starts (after whitespace) with a MIME header, as upstream checks. */
  public static boolean isArchive(String userData) {
    String trimmed = userData.strip();
    return trimmed.startsWith("MIME-Version:") || trimmed.startsWith("Content-Type:");
  }

  /**
   * The parts of a multi-part archive (upstream's {@code NewArchive}): the message headers up to the
   * first blank line, then the parts between {@code --boundary} lines; a part's content ends before
   * the line break that precedes the next delimiter.
   *
   * @throws IllegalArgumentException when the archive has no multipart Content-Type with a boundary
   */
  public static List<Entry> parse(String archive) {
    String text = archive.replace("\r\n", "\n");
    int headerEnd = text.indexOf("\n\n");
    String headerBlock = headerEnd < 0 ? text : text.substring(0, headerEnd);
    String body = headerEnd < 0 ? "" : text.substring(headerEnd + 2);
    Map<String, String> headers = headers(headerBlock);
    String contentType = headers.entrySet().stream()
        .filter(h -> h.getKey().equalsIgnoreCase("Content-Type"))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("archive doesn't have a Content-Type header"));
    if (!contentType.toLowerCase(Locale.ROOT).startsWith("multipart/")) {
      throw new IllegalArgumentException("archive is not in multipart format (Content-Type " + contentType + ")");
    }
    Matcher m = BOUNDARY_PARAM.matcher(contentType);
    if (!m.find()) {
      throw new IllegalArgumentException("archive's Content-Type has no boundary: " + contentType);
    }
    String boundary = m.group(2) != null ? m.group(2) : m.group(3);
    String delimiter = "--" + boundary;
    List<Entry> entries = new ArrayList<>();
    String[] lines = body.split("\n", -1);
    int i = 0;
    while (i < lines.length && !lines[i].stripTrailing().equals(delimiter)) {
      if (lines[i].stripTrailing().equals(delimiter + "--")) {
        return entries;
      }
      i++;
    }
    i++;
    while (i < lines.length) {
      if (java.util.Arrays.stream(lines, i, lines.length).allMatch(String::isBlank)) {
        break; // a delimiter at the very end without "--": no further part
      }
      Map<String, String> partHeaders = new LinkedHashMap<>();
      StringBuilder headerLines = new StringBuilder();
      while (i < lines.length && !lines[i].isEmpty()) {
        headerLines.append(lines[i]).append('\n');
        i++;
      }
      partHeaders.putAll(headers(headerLines.toString()));
      i++; // blank line after the headers
      List<String> content = new ArrayList<>();
      boolean last = true;
      while (i < lines.length) {
        String line = lines[i].stripTrailing();
        if (line.equals(delimiter)) {
          last = false;
          break;
        }
        if (line.equals(delimiter + "--")) {
          break;
        }
        content.add(lines[i]);
        i++;
      }
      entries.add(new Entry(partHeaders, String.join("\n", content)));
      i++;
      if (last) {
        break;
      }
    }
    return entries;
  }

  private static Map<String, String> headers(String block) {
    Map<String, String> headers = new LinkedHashMap<>();
    String name = null;
    for (String line : block.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      if ((line.startsWith(" ") || line.startsWith("\t")) && name != null) {
        headers.put(name, headers.get(name) + " " + line.strip());
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("malformed MIME header line: " + line);
      }
      name = canonicalHeader(line.substring(0, colon).strip());
      headers.put(name, line.substring(colon + 1).strip());
    }
    return headers;
  }

  /** Go's {@code textproto.CanonicalMIMEHeaderKey}: {@code content-type} → {@code Content-Type}. */
  private static String canonicalHeader(String name) {
    StringBuilder out = new StringBuilder(name.length());
    boolean upper = true;
    for (char c : name.toCharArray()) {
      out.append(upper ? Character.toUpperCase(c) : Character.toLowerCase(c));
      upper = c == '-';
    }
    return out.toString();
  }

  /**
   * The archive of {@code entries} (upstream's {@code Archive.Serialize} before base64): the
   * MIME-Version and multipart Content-Type headers, each part's headers sorted by name, and the
   * closing delimiter.
   */
  public static String serialize(List<Entry> entries) {
    StringBuilder out = new StringBuilder();
    out.append("MIME-Version: 1.0\n");
    out.append("Content-Type: multipart/mixed; boundary=\"").append(BOUNDARY).append("\"\n\n");
    boolean first = true;
    for (Entry entry : entries) {
      out.append(first ? "" : "\n").append("--").append(BOUNDARY).append('\n');
      first = false;
      entry.headers().entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(h -> out.append(h.getKey()).append(": ").append(h.getValue()).append('\n'));
      out.append('\n').append(entry.content());
    }
    out.append("\n--").append(BOUNDARY).append("--\n");
    return out.toString().replace("\r", "");
  }
}
