package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Informer event handlers for controllers that react the same way to every change. */
public final class EventHandlers {
  private EventHandlers() {}

  /** Calls {@code onChange} with the object on add, on update (the new version) and on delete. */
  public static <T> ResourceEventHandler<T> onChange(Consumer<T> onChange) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        onChange.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        onChange.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        onChange.accept(obj);
      }
    };
  }
}
