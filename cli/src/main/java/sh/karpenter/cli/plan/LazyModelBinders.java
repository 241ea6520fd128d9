package sh.karpenter.cli.plan;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.Deserializers;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.util.AccessPattern;
import java.io.IOException;

/**
 * Builds Jackson's binder of a fabric8 model class when a document first holds a value of it, not
 * when the binder of the class that refers to it is built.
 *
 * <p>Jackson builds the binder of a bean together with the binders of every class reachable from
 * it: binding one Pod builds those of the whole pod model (probes, lifecycle hooks, security
 * contexts, some thirty volume sources, the pod's status, ...), about 0.5 s of a fresh JVM's time,
 * although a plan's manifests use a few dozen of those classes. With this module each fabric8
 * property gets a placeholder that asks Jackson for the real binder (built as before, and cached by
 * the mapper) the first time a value of it is read, and then delegates to it. A value that is
 * present is bound by the same binder as without the module, so what is accepted, what is rejected
 * and the field path of a rejection do not change.
 */
final class LazyModelBinders extends SimpleModule {
  private static final long serialVersionUID = 1L;
  private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model.";

  /** The class whose real binder this thread is building: the placeholder must not stand in for it. */
  private static final ThreadLocal<Class<?>> BUILDING = new ThreadLocal<>();

  LazyModelBinders() {
    super("lazy-fabric8-model-binders");
  }

  @Override
  public void setupModule(SetupContext context) {
    super.setupModule(context);
    context.addDeserializers(new Placeholders());
  }

  private static final class Placeholders extends Deserializers.Base {
    @Override
    public JsonDeserializer<?> findBeanDeserializer(JavaType type, DeserializationConfig config, BeanDescription beanDesc) {
      Class<?> raw = type.getRawClass();
      if (!raw.getName().startsWith(MODEL_PACKAGE) || raw == BUILDING.get()) {
        return null;
      }
      return new Placeholder(type, null);
    }
  }

  /** Stands in for the binder of {@code type}, read as {@code property} (null at the root). */
  private static final class Placeholder extends JsonDeserializer<Object> implements ContextualDeserializer {
    private final JavaType type;
    private final BeanProperty property;
    private volatile JsonDeserializer<Object> real;

    Placeholder(JavaType type, BeanProperty property) {
      this.type = type;
      this.property = property;
    }

    @Override
    public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property) {
      return property == this.property ? this : new Placeholder(type, property);
    }

    private JsonDeserializer<Object> real(DeserializationContext ctxt) throws JsonMappingException {
      JsonDeserializer<Object> binder = real;
      if (binder != null) {
        return binder;
      }
      Class<?> outer = BUILDING.get();
      BUILDING.set(type.getRawClass());
      try {
        binder = property == null ? ctxt.findRootValueDeserializer(type) : ctxt.findContextualValueDeserializer(type, property);
      } finally {
        BUILDING.set(outer);
      }
      real = binder;
      return binder;
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      return real(ctxt).deserialize(p, ctxt);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt, Object intoValue) throws IOException {
      return real(ctxt).deserialize(p, ctxt, intoValue);
    }

    @Override
    public Object deserializeWithType(JsonParser p, DeserializationContext ctxt, TypeDeserializer typeDeserializer) throws IOException {
      return real(ctxt).deserializeWithType(p, ctxt, typeDeserializer);
    }

    @Override
    public Object getEmptyValue(DeserializationContext ctxt) throws JsonMappingException {
      return real(ctxt).getEmptyValue(ctxt);
    }

    /** A missing or null bean is null, as with the bean binder itself. */
    @Override
    public AccessPattern getNullAccessPattern() {
      return AccessPattern.ALWAYS_NULL;
    }

    @Override
    public LogicalType logicalType() {
      return LogicalType.POJO;
    }

    @Override
    public Class<?> handledType() {
      return type.getRawClass();
    }

    @Override
    public JsonDeserializer<?> getDelegatee() {
      return real;
    }
  }
}
