package sh.karpenter.controller.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A parsed Prometheus text 0.0.4 exposition, for asserting on what a scrape really exports (family
 * names, types, label names, sample values) rather than on the collectors behind it.
 */
public final class ScrapedText {
  /** One sample line. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private final Map<String, String> types = new LinkedHashMap<>();
  private final List<Sample> samples = new ArrayList<>();

  private ScrapedText() {}

  public static ScrapedText parse(String text) {
    ScrapedText parsed = new ScrapedText();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("# HELP ")) continue;
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.substring("# TYPE ".length()).split(" ");
        if (parsed.types.put(parts[0], parts[1]) != null) {
          throw new IllegalArgumentException("family " + parts[0] + " declared twice");
        }
        continue;
      }
      parsed.samples.add(parseSample(line));
    }
    return parsed;
  }

  private static Sample parseSample(String line) {
    int brace = line.indexOf('{');
    int space = line.lastIndexOf(' ');
    Map<String, String> labels = new TreeMap<>();
    String name;
    if (brace < 0 || brace > space) {
      name = line.substring(0, space);
    } else {
      name = line.substring(0, brace);
      int i = brace + 1;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        String key = line.substring(i, eq);
        StringBuilder value = new StringBuilder();
        int j = eq + 2; // skip ="
        while (line.charAt(j) != '"') {
          char c = line.charAt(j);
          if (c == '\\') {
            char next = line.charAt(++j);
            value.append(next == 'n' ? '\n' : next);
          } else {
            value.append(c);
          }
          j++;
        }
        labels.put(key, value.toString());
        i = j + 1;
        if (line.charAt(i) == ',') i++;
      }
    }
    return new Sample(name, labels, Double.parseDouble(line.substring(space + 1)));
  }

  /** Family name to type ({@code counter}, {@code gauge}, {@code histogram}, ...). */
  public Map<String, String> types() {
    return types;
  }

  public List<Sample> samples() {
    return samples;
  }

  /** The label names each family's samples carry ({@code le} of histogram buckets excluded). */
  public Map<String, Set<String>> labelNames() {
    Map<String, Set<String>> result = new TreeMap<>();
    for (String family : types.keySet()) result.put(family, new TreeSet<>());
    for (Sample sample : samples) {
      String family = familyOf(sample.name());
      Set<String> names = new TreeSet<>(sample.labels().keySet());
      names.remove("le");
      result.get(family).addAll(names);
    }
    return result;
  }

  /** The samples named exactly {@code name}. */
  public List<Sample> samples(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).toList();
  }

  /** The value of the sample {@code name} with exactly these labels. */
  public Optional<Double> value(String name, Map<String, String> labels) {
    return samples.stream()
        .filter(s -> s.name().equals(name) && s.labels().equals(labels))
        .map(Sample::value)
        .findFirst();
  }

  private String familyOf(String sampleName) {
    if (types.containsKey(sampleName)) return sampleName;
    for (String suffix : List.of("_bucket", "_count", "_sum")) {
      if (sampleName.endsWith(suffix)) {
        String family = sampleName.substring(0, sampleName.length() - suffix.length());
        if ("histogram".equals(types.get(family))) return family;
      }
    }
    throw new IllegalArgumentException("sample " + sampleName + " belongs to no declared family");
  }
}
