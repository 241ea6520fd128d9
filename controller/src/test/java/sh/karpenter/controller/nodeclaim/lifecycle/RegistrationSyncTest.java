package sh.karpenter.controller.nodeclaim.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;

class RegistrationSyncTest {

  private static final NodeClaim NODE_CLAIM = Manifests.nodeClaim("""
      metadata:
        name: default-abc12
        uid: 1111-2222
        labels: {karpenter.sh/nodepool: default, team: a}
        annotations: {karpenter.sh/nodepool-hash: '42'}
      spec:
        taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
        startupTaints: [{key: example.com/agent, effect: NoExecute}]
      """);

  private static Node node(String labels, String taints) {
    return Manifests.node("""
        metadata:
          name: n1
          labels: %s
        spec:
          providerID: kwok://n1
          taints: %s
        """.formatted(labels, taints));
  }

  private static Taint taint(String key, String value, String effect) {
    return new Taint(effect, key, null, value);
  }

  @Test
  void firstSyncAddsTaintsStartupTaintsAndRemovesTheUnregisteredTaint() {
    Node node = node("{kubernetes.io/hostname: n1}",
        "[{key: karpenter.sh/unregistered, effect: NoExecute}, {key: dedicated, value: other, effect: NoSchedule}]");

    List<Taint> taints = TaintSync.registered(node, NODE_CLAIM);

    // The Node's own dedicated:NoSchedule stays (same key and effect), the startup taint is added.
    assertThat(taints).containsExactly(taint("dedicated", "other", "NoSchedule"), taint("example.com/agent", null, "NoExecute"));
  }

  @Test
  void startupTaintsAreNotAddedAgainOnceRegistered() {
    Node node = node("{karpenter.sh/registered: 'true'}", "[]");

    assertThat(TaintSync.registered(node, NODE_CLAIM)).containsExactly(taint("dedicated", "gpu", "NoSchedule"));
  }

  @Test
  void doNotSyncTaintsLeavesTaintsAloneButStillRemovesTheUnregisteredTaint() {
    Node node = node("{karpenter.sh/do-not-sync-taints: 'true'}",
        "[{key: karpenter.sh/unregistered, effect: NoExecute}, {key: provider.example.com/x, effect: NoSchedule}]");

    assertThat(TaintSync.registered(node, NODE_CLAIM)).containsExactly(taint("provider.example.com/x", null, "NoSchedule"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void syncPatchCarriesLabelsAnnotationsFinalizerOwnerAndTaints() {
    Node node = node("{kubernetes.io/hostname: n1, team: b}", "[{key: karpenter.sh/unregistered, effect: NoExecute}]");

    Map<String, Object> patch = Registration.syncPatch(node, NODE_CLAIM);

    Map<String, Object> metadata = (Map<String, Object>) patch.get("metadata");
    assertThat((Map<String, String>) metadata.get("labels"))
        .containsEntry("kubernetes.io/hostname", "n1")
        .containsEntry("team", "a")
        .containsEntry("karpenter.sh/nodepool", "default")
        .containsEntry("karpenter.sh/registered", "true");
    assertThat((Map<String, String>) metadata.get("annotations")).containsEntry("karpenter.sh/nodepool-hash", "42");
    assertThat((List<String>) metadata.get("finalizers")).containsExactly("karpenter.sh/termination");
    List<OwnerReference> owners = (List<OwnerReference>) metadata.get("ownerReferences");
    assertThat(owners).singleElement().satisfies(o -> {
      assertThat(o.getKind()).isEqualTo("NodeClaim");
      assertThat(o.getApiVersion()).isEqualTo("karpenter.sh/v1");
      assertThat(o.getName()).isEqualTo("default-abc12");
      assertThat(o.getUid()).isEqualTo("1111-2222");
      assertThat(o.getBlockOwnerDeletion()).isTrue();
    });
    assertThat((Map<String, List<Taint>>) patch.get("spec"))
        .containsEntry("taints", List.of(taint("dedicated", "gpu", "NoSchedule"), taint("example.com/agent", null, "NoExecute")));
  }

  @Test
  void aSyncedNodeNeedsNoPatch() {
    Node node = Manifests.node("""
        metadata:
          name: n1
          labels: {karpenter.sh/nodepool: default, team: a, karpenter.sh/registered: 'true'}
          annotations: {karpenter.sh/nodepool-hash: '42'}
          finalizers: [karpenter.sh/termination]
          ownerReferences: [{apiVersion: karpenter.sh/v1, kind: NodeClaim, name: default-abc12, uid: 1111-2222}]
        spec:
          taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
        """);

    assertThat(Registration.syncPatch(node, NODE_CLAIM)).isEmpty();
  }
}
