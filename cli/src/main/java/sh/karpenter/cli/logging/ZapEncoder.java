package sh.karpenter.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.event.KeyValuePair;
import sh.karpenter.api.v1.GoDuration;

/**
 * Log lines in the shape of upstream Karpenter's zap logger (pkg/operator/logging, {@code DefaultZapConfig}):
 * {@code level} (upper case, as zap's CapitalLevelEncoder), {@code time} (RFC 3339 in UTC with
 * milliseconds), {@code logger}, {@code caller} (only when asked for, as upstream does at debug level),
 * {@code message}, then the MDC entries and the SLF4J key-value pairs of the event as fields of their own,
 * and for an event with a throwable {@code error} (the throwable's one-line description) and
 * {@code stacktrace} (its whole stack, causes included, in one field).
 *
 * <p>Format {@code json} writes one JSON object per line; {@code text} writes zap's console layout for
 * people at a terminal: time, level, logger and message separated by tabs, then the fields as one JSON
 * object, and the stack trace on the lines that follow. See docs/behaviour/observability.md#logs.
 */
public final class ZapEncoder extends EncoderBase<ILoggingEvent> {
  /** zap's ISO8601TimeEncoder in UTC: {@code 2024-05-14T18:40:56.285Z}. */
  static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final JsonFactory JSON = new JsonFactory();

  public enum Format { JSON, TEXT }

  private Format format = Format.JSON;
  private boolean caller;

  /** {@code json} or {@code text}; logback calls it with the configuration's {@code <format>}. */
  public void setFormat(String format) {
    this.format = parseFormat(format);
  }

  /** Whether lines carry the {@code caller} field (file:line of the log call), as upstream's do at debug level. */
  public void setCaller(boolean caller) {
    this.caller = caller;
  }

  /** The format named by {@code --log-format}; a clear error for anything else. */
  public static Format parseFormat(String text) {
    return switch (text == null ? "" : text.trim().toLowerCase(Locale.ROOT)) {
      case "json" -> Format.JSON;
      case "text", "console" -> Format.TEXT;
      default -> throw new IllegalArgumentException("--log-format: expected json or text, got \"" + text + "\"");
    };
  }

  @Override
  public byte[] headerBytes() {
    return null;
  }

  @Override
  public byte[] footerBytes() {
    return null;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    String line = format == Format.JSON ? json(event) : text(event);
    return line.getBytes(StandardCharsets.UTF_8);
  }

  private String json(ILoggingEvent event) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("level", level(event.getLevel()));
      json.writeStringField("time", TIME.format(Instant.ofEpochMilli(event.getTimeStamp())));
      json.writeStringField("logger", LoggerNames.upstream(event.getLoggerName()));
      String where = caller(event);
      if (where != null) {
        json.writeStringField("caller", where);
      }
      json.writeStringField("message", event.getFormattedMessage());
      writeFields(json, event);
      IThrowableProxy error = event.getThrowableProxy();
      if (error != null) {
        json.writeStringField("error", describe(error));
        json.writeStringField("stacktrace", stacktrace(error));
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.append('\n').toString();
  }

  private String text(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(160)
        .append(TIME.format(Instant.ofEpochMilli(event.getTimeStamp()))).append('\t')
        .append(level(event.getLevel())).append('\t')
        .append(LoggerNames.upstream(event.getLoggerName())).append('\t');
    String where = caller(event);
    if (where != null) {
      line.append(where).append('\t');
    }
    line.append(event.getFormattedMessage());
    StringWriter fields = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(fields)) {
      json.writeStartObject();
      writeFields(json, event);
      IThrowableProxy error = event.getThrowableProxy();
      if (error != null) {
        json.writeStringField("error", describe(error));
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!fields.toString().equals("{}")) {
      line.append('\t').append(fields);
    }
    line.append('\n');
    if (event.getThrowableProxy() != null) {
      line.append(stacktrace(event.getThrowableProxy())).append('\n');
    }
    return line.toString();
  }

  /** MDC entries first (the reconciling controller), then the event's own key-value pairs; a later key wins. */
  private static void writeFields(JsonGenerator json, ILoggingEvent event) throws IOException {
    Map<String, String> mdc = event.getMDCPropertyMap();
    java.util.LinkedHashMap<String, Object> fields = new java.util.LinkedHashMap<>();
    if (mdc != null) {
      fields.putAll(mdc);
    }
    if (event.getKeyValuePairs() != null) {
      for (KeyValuePair pair : event.getKeyValuePairs()) {
        fields.put(pair.key, pair.value);
      }
    }
    for (Map.Entry<String, Object> field : fields.entrySet()) {
      if (RESERVED.contains(field.getKey())) {
        json.writeFieldName("field." + field.getKey()); // never shadow the line's own keys
      } else {
        json.writeFieldName(field.getKey());
      }
      writeValue(json, field.getValue());
    }
  }

  private static final java.util.Set<String> RESERVED = java.util.Set.of("level", "time", "logger", "caller", "message", "stacktrace");

  /** Maps become objects, collections arrays, numbers and booleans stay themselves, durations read as Go's. */
  static void writeValue(JsonGenerator json, Object value) throws IOException {
    switch (value) {
      case null -> json.writeNull();
      case Optional<?> optional -> writeValue(json, optional.orElse(null));
      case Boolean b -> json.writeBoolean(b);
      case Integer i -> json.writeNumber(i);
      case Long l -> json.writeNumber(l);
      case Double d when Double.isFinite(d) -> json.writeNumber(d);
      case Float f when Float.isFinite(f) -> json.writeNumber(f);
      case java.math.BigDecimal d -> json.writeNumber(d);
      case java.math.BigInteger i -> json.writeNumber(i);
      case Duration d -> json.writeString(GoDuration.of(d).toString());
      case Map<?, ?> map -> {
        json.writeStartObject();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          json.writeFieldName(String.valueOf(entry.getKey()));
          writeValue(json, entry.getValue());
        }
        json.writeEndObject();
      }
      case Iterable<?> items -> {
        json.writeStartArray();
        for (Object item : items) {
          writeValue(json, item);
        }
        json.writeEndArray();
      }
      case Throwable t -> json.writeString(t.toString());
      default -> json.writeString(String.valueOf(value));
    }
  }

  static String level(Level level) {
    return switch (level.toInt()) {
      case Level.ERROR_INT -> "ERROR";
      case Level.WARN_INT -> "WARN";
      case Level.INFO_INT -> "INFO";
      default -> "DEBUG";
    };
  }

  private String caller(ILoggingEvent event) {
    if (!caller) {
      return null;
    }
    StackTraceElement[] data = event.getCallerData();
    if (data == null || data.length == 0) {
      return null;
    }
    StackTraceElement top = data[0];
    String className = top.getClassName();
    int dot = className.lastIndexOf('.');
    String pkg = dot < 0 ? "" : className.substring(0, dot);
    String last = pkg.substring(pkg.lastIndexOf('.') + 1);
    return (last.isEmpty() ? "" : last + "/") + top.getFileName() + ":" + top.getLineNumber(); // zap's ShortCallerEncoder: package/file:line
  }

  /** The throwable's one-line description, with its causes' after a colon, as Go's wrapped errors read. */
  static String describe(IThrowableProxy error) {
    StringBuilder text = new StringBuilder(oneLine(error));
    int depth = 0;
    for (IThrowableProxy cause = error.getCause(); cause != null && depth < 8; cause = cause.getCause(), depth++) {
      String described = oneLine(cause);
      if (!text.toString().contains(described)) {
        text.append(": ").append(described);
      }
    }
    return text.toString();
  }

  private static String oneLine(IThrowableProxy error) {
    return error.getMessage() == null ? error.getClassName() : error.getClassName() + ": " + error.getMessage();
  }

  /** The whole stack, causes and suppressed ones included, as logback prints it. */
  static String stacktrace(IThrowableProxy error) {
    return ThrowableProxyUtil.asString(error).stripTrailing();
  }
}
