package sh.karpenter.providers.aws.nodeclass;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.operator.OperatorContext;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.EventHandlers;

/**
 * Adds the AWS provider's EC2NodeClass controllers to the Operator: an EC2NodeClass informer, the
 * {@link NodeClassController} and the {@link NodeClassHashController} (10 workers each, as upstream),
 * both enqueued on every change of a class (which also has core judge the class's NodeClaims again
 * for drift, through {@link OperatorContext#nodeClassChanged}), and the status controller also when a NodeClaim that
 * references a class is deleted (so a class waiting on its NodeClaims lets go at once). Build it from
 * the {@link NodeClassProviders}, the {@link NodeClassSettings} and the cleanups the finalizer runs.
 */
public final class NodeClassExtension implements OperatorExtension {
  static final int WORKERS = 10;

  private final NodeClassProviders providers;
  private final NodeClassSettings settings;
  private final List<NodeClassCleanup> cleanups;
  private volatile SharedIndexInformer<EC2NodeClass> nodeClasses;

  public NodeClassExtension(NodeClassProviders providers, NodeClassSettings settings, List<NodeClassCleanup> cleanups) {
    this.providers = providers;
    this.settings = settings;
    this.cleanups = List.copyOf(cleanups);
  }

  @Override
  public void register(OperatorContext context) {
    var client = context.client();
    SharedIndexInformer<EC2NodeClass> informer = context.informer(client.resources(EC2NodeClass.class).runnableInformer(0));
    this.nodeClasses = informer;
    Controller<String> status = context.controller(NodeClassController.NAME,
        new NodeClassController(client, informer, context.informers(), providers, settings, cleanups,
            context.clock(), context.events(), context.metrics()),
        WORKERS);
    Controller<String> hash = context.controller(NodeClassHashController.NAME,
        new NodeClassHashController(client, informer, context.informers(), settings.caBundle()), WORKERS);
    informer.addEventHandler(EventHandlers.onChange((EC2NodeClass nodeClass) -> {
      String name = nodeClass.getMetadata().getName();
      status.enqueue(name);
      hash.enqueue(name);
      // its NodeClaims are judged again for drift (AMI, subnets, security groups, static hash)
      context.nodeClassChanged(EC2NodeClass.GROUP, EC2NodeClass.KIND, name);
    }));
    context.informers().nodeClaims().addEventHandler(new ResourceEventHandler<NodeClaim>() {
      @Override public void onAdd(NodeClaim claim) {}

      @Override public void onUpdate(NodeClaim before, NodeClaim after) {}

      @Override
      public void onDelete(NodeClaim claim, boolean finalStateUnknown) {
        String name = NodeClassLookup.nodeClassName(claim);
        if (name != null) {
          status.enqueue(name);
        }
      }
    });
  }

  /** The EC2NodeClass informer, once {@link #register} ran (e.g. for the cloud provider to read classes from); else null. */
  public SharedIndexInformer<EC2NodeClass> nodeClasses() {
    return nodeClasses;
  }
}
