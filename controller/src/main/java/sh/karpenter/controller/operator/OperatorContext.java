package sh.karpenter.controller.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.util.concurrent.Callable;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.SingletonLoop;

/**
 * What an {@link OperatorExtension} gets from the {@link Operator}: the shared client, informers,
 * clock, event recorder, metrics and options, and the means to add informers, per-object controllers
 * and singleton loops that live and die with the Operator (controllers and loops run only on the
 * leader). Valid only during {@link OperatorExtension#register}.
 */
public interface OperatorContext {
  KubernetesClient client();

  /** The shared informers (NodeClaims, Nodes, Pods, ...); add handlers to them, never start them. */
  Informers informers();

  Clock clock();

  EventRecorder events();

  Metrics metrics();

  Options options();

  /** An informer of the extension's own kind, started, waited for ({@code /readyz}) and closed with the shared ones. */
  <T extends HasMetadata> SharedIndexInformer<T> informer(SharedIndexInformer<T> informer);

  /**
   * A per-object controller named {@code name} with {@code workers} workers on the Operator's clock,
   * reporting to its controller metrics; enqueue keys from informer handlers.
   */
  Controller<String> controller(String name, Reconciler<String> reconciler, int workers);

  /**
   * Tells core's controllers that a NodeClass changed (spec, annotations or status; added or
   * deleted): the NodeClaims whose {@code nodeClassRef} names it are judged again for drift and
   * consolidation, and the NodePools naming it for {@code NodeClassReady} (upstream's
   * {@code NodeClassEventHandler}). Call it from the NodeClass informer's handlers.
   */
  void nodeClassChanged(String group, String kind, String name);

  /** A singleton loop running {@code body} over and over while this replica leads. */
  SingletonLoop loop(String name, Callable<Result> body);
}
