package sh.karpenter.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The CLI's logging until a command changes it: stdout carries a command's output (a plan's table or
 * JSON), so every line goes to stderr as {@code HH:mm:ss.SSS LEVEL logger - message}; the level is
 * {@code KARPENTER_LOG_LEVEL} (a system property or environment variable, default WARN) and fabric8's
 * loggers stay at WARN. {@code karpenter controller} replaces it with {@code logback-controller.xml}.
 *
 * <p>Logback finds this configurator through {@code META-INF/services} before it looks for a {@code
 * logback.xml}. It is set up in code because reading an XML configuration took about 30 ms of a cold
 * {@code karpenter plan} (SAX and logback's Joran, all interpreted), on the critical path: the first
 * logger is made when the first NodePool is bound. A {@code logback.configurationFile} system
 * property still wins: this configurator then leaves the work to logback's own.
 */
public final class CliLogging extends ContextAwareBase implements Configurator {
  /** The layout of a line. */
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(level(System.getProperty("KARPENTER_LOG_LEVEL", System.getenv("KARPENTER_LOG_LEVEL"))));
    root.addAppender(stderr);
    context.getLogger("io.fabric8").setLevel(Level.WARN);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** The level a {@code KARPENTER_LOG_LEVEL} value names; WARN when unset or not a level. */
  static Level level(String value) {
    return value == null ? Level.WARN : Level.toLevel(value.trim(), Level.WARN);
  }
}
