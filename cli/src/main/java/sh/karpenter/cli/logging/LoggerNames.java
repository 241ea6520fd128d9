package sh.karpenter.cli.logging;

/**
 * The {@code logger} field of a line: upstream names its loggers {@code controller} and
 * {@code controller.<name>}, so this build's class-named SLF4J loggers map onto that tree by package:
 * the runtime, operator and command log as {@code controller}; a controller package logs as
 * {@code controller.<package path>} ({@code sh.karpenter.controller.nodeclaim.lifecycle.Launch} →
 * {@code controller.nodeclaim.lifecycle}); a cloud provider's classes log as
 * {@code controller.<provider>.<package>} ({@code sh.karpenter.providers.aws.instance.InstanceProvider}
 * → {@code controller.aws.instance}). Libraries keep their own names.
 */
public final class LoggerNames {
  private static final String CONTROLLER = "sh.karpenter.controller.";
  private static final String PROVIDERS = "sh.karpenter.providers.";

  private LoggerNames() {}

  public static String upstream(String loggerName) {
    if (loggerName == null) {
      return "controller";
    }
    if (loggerName.startsWith(CONTROLLER)) {
      String pkg = packageOf(loggerName.substring(CONTROLLER.length()));
      return pkg.isEmpty() || pkg.equals("runtime") || pkg.startsWith("runtime.") || pkg.equals("operator") || pkg.startsWith("operator.")
          ? "controller"
          : "controller." + pkg;
    }
    if (loggerName.startsWith(PROVIDERS)) {
      String pkg = packageOf(loggerName.substring(PROVIDERS.length()));
      return pkg.isEmpty() ? "controller" : "controller." + pkg;
    }
    if (loggerName.startsWith("sh.karpenter.")) {
      return "controller";
    }
    return loggerName;
  }

  /** The package part of a class name below the prefix: everything before the last segment that starts upper case. */
  private static String packageOf(String rest) {
    String[] parts = rest.split("\\.");
    StringBuilder pkg = new StringBuilder();
    for (String part : parts) {
      if (part.isEmpty() || Character.isUpperCase(part.charAt(0))) {
        break;
      }
      if (!pkg.isEmpty()) {
        pkg.append('.');
      }
      pkg.append(part);
    }
    return pkg.toString();
  }
}
