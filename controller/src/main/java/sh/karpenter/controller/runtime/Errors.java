package sh.karpenter.controller.runtime;

/** Error text for logs and events. */
public final class Errors {
  private Errors() {}

  /**
   * The exception's message followed by its causes' ({@code "a: b: c"}), repeats left out: fabric8's
   * own message is often only "An error has occurred." with the reason in a cause.
   */
  public static String describe(Throwable error) {
    StringBuilder text = new StringBuilder();
    String last = null;
    int depth = 0;
    for (Throwable t = error; t != null && depth < 8; t = t.getCause(), depth++) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (message.equals(last) || (last != null && last.endsWith(message))) {
        continue;
      }
      if (!text.isEmpty()) {
        text.append(": ");
      }
      text.append(message);
      last = message;
    }
    return text.toString();
  }
}
