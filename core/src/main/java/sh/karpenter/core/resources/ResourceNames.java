package sh.karpenter.core.resources;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Interns resource names ("cpu", "nvidia.com/gpu", ...) to small dense indices so that {@link
 * Resources} can be a plain {@code long[]}. The four common dimensions have fixed indices; any other
 * name gets the next free index the first time it is seen. Thread-safe; indices never change.
 */
public final class ResourceNames {
  private ResourceNames() {}

  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String PODS = "pods";
  public static final String EPHEMERAL_STORAGE = "ephemeral-storage";

  public static final int CPU_INDEX = 0;
  public static final int MEMORY_INDEX = 1;
  public static final int PODS_INDEX = 2;
  public static final int EPHEMERAL_STORAGE_INDEX = 3;

  private static final ConcurrentHashMap<String, Integer> INDICES = new ConcurrentHashMap<>();
  private static volatile String[] names = new String[0];

  static {
    index(CPU);
    index(MEMORY);
    index(PODS);
    index(EPHEMERAL_STORAGE);
  }

  /** The index of a resource name, interning it on first use. */
  public static int index(String name) {
    Integer existing = INDICES.get(name);
    if (existing != null) {
      return existing;
    }
    return intern(name);
  }

  /** The index of a resource name, or -1 when it has never been interned (no allocation). */
  public static int indexIfPresent(String name) {
    Integer existing = INDICES.get(name);
    return existing == null ? -1 : existing;
  }

  private static synchronized int intern(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("resource name must not be empty");
    }
    Integer existing = INDICES.get(name);
    if (existing != null) {
      return existing;
    }
    String[] grown = Arrays.copyOf(names, names.length + 1);
    grown[names.length] = name;
    names = grown;
    INDICES.put(name, names.length - 1);
    return names.length - 1;
  }

  /** The name interned at {@code index}. */
  public static String name(int index) {
    return names[index];
  }

  /** How many names have been interned so far. */
  public static int count() {
    return names.length;
  }

  /**
   * True for dimensions measured in bytes, which {@link Quantity#format} prints with binary
   * suffixes: memory, ephemeral-storage, storage and hugepages-*.
   */
  public static boolean isByteSized(String name) {
    return MEMORY.equals(name)
        || EPHEMERAL_STORAGE.equals(name)
        || "storage".equals(name)
        || name.startsWith("hugepages-");
  }
}
