package sh.karpenter.cli.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sh.karpenter.controller.snapshot.SnapshotInputException;

class ManifestReaderTest {
  @TempDir Path dir;
  private final List<String> warnings = new ArrayList<>();
  private final ManifestReader reader = new ManifestReader(warnings::add);

  private Path write(String name, String yaml) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, yaml);
    return file;
  }

  @Test
  void readsMultiDocumentFilesAndDirectoriesRecursively() throws IOException {
    write("a.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: p, namespace: ns}
        spec:
          containers: [{name: c, resources: {requests: {cpu: 100m}}}]
        ---
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: d}
        spec: {template: {spec: {containers: [{name: c}]}}}
        """);
    write("nested/b.yml", "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\n");
    write("nested/ignored.txt", "not yaml");

    var manifests = reader.read(List.of(dir));

    assertThat(manifests).extracting(m -> m.object().getKind()).containsExactly("Pod", "Deployment", "Pod");
    assertThat(manifests.get(1).object()).isInstanceOf(Deployment.class);
    assertThat(manifests.get(1).origin()).isEqualTo(dir.resolve("a.yaml") + ", document 3");
    assertThat(warnings).isEmpty();
  }

  @Test
  void csiNodesAndRuntimeClassesArePartOfAPlan() throws IOException {
    Path file = write("node-objects.yaml", """
        apiVersion: storage.k8s.io/v1
        kind: CSINode
        metadata: {name: node-1}
        spec:
          drivers: [{name: ebs.csi.aws.com, nodeID: i-0123, allocatable: {count: 25}}]
        ---
        apiVersion: node.k8s.io/v1
        kind: RuntimeClass
        metadata: {name: kata}
        handler: kata
        overhead: {podFixed: {cpu: 250m}}
        scheduling: {nodeSelector: {sandbox: kata}}
        """);

    assertThat(reader.read(List.of(file))).extracting(m -> m.object().getKind()).containsExactly("CSINode", "RuntimeClass");
    assertThat(warnings).isEmpty();
    assertThatThrownBy(() -> reader.read(List.of(write("typo.yaml", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: k}\nhandler: k\noverhed: {}\n"))))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageContaining("typo.yaml, document 1: overhed: unknown field");
  }

  @Test
  void unknownKindsAreSkippedWithAWarningAndNodeClassesSilently() throws IOException {
    Path file = write("x.yaml", """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cm}
        ---
        apiVersion: karpenter.kwok.sh/v1alpha1
        kind: KWOKNodeClass
        metadata: {name: default}
        """);

    assertThat(reader.read(List.of(file))).isEmpty();
    assertThat(warnings).singleElement().asString().contains("x.yaml, document 1").contains("ConfigMap");
  }

  @Test
  void unknownFieldIsNamedWithFileDocumentAndPath() throws IOException {
    Path file = write("bad.yaml", """
        apiVersion: v1
        kind: Pod
        metadata: {name: ok}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: bad, namespace: team}
        spec:
          containers:
            - name: c
              resources: {requests: {cpu: 1}, limitz: {}}
        """);

    assertThatThrownBy(() -> reader.read(List.of(file)))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessage(file + ", document 2: spec.containers[0].resources.limitz: unknown field");
  }

  @Test
  void mistypedFieldIsNamed() throws IOException {
    Path file = write("typed.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: many}\n");

    assertThatThrownBy(() -> reader.read(List.of(file)))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(file + ", document 1: spec.replicas: expected");
  }

  @Test
  void malformedYamlNamesDocumentAndLine() throws IOException {
    Path file = write("broken.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkind: [unclosed\n");

    assertThatThrownBy(() -> reader.read(List.of(file)))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(file + ", document 2: invalid YAML: ")
        .hasMessageContaining("line 5");
  }

  @Test
  void missingKindAndMissingFileAreReported() throws IOException {
    Path file = write("nokind.yaml", "apiVersion: v1\nmetadata: {name: a}\n");

    assertThatThrownBy(() -> reader.read(List.of(file)))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessage(file + ", document 1: kind: Required value");
    assertThatThrownBy(() -> reader.read(List.of(dir.resolve("absent.yaml"))))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageContaining("no such file");
  }

  @Test
  void listItemsAreBoundOneByOne() throws IOException {
    Path file = write("list.yaml", """
        apiVersion: v1
        kind: List
        items:
          - {apiVersion: v1, kind: Pod, metadata: {name: a}}
          - {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {nodeNam: typo}}
        """);

    assertThatThrownBy(() -> reader.read(List.of(file)))
        .hasMessage(file + ", document 1, item 2: spec.nodeNam: unknown field");
  }

  @Test
  void invalidNodePoolReportsEveryValidationErrorInTheSameForm() throws IOException {
    Path file = write("pool.yaml", """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec:
          weight: 0
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              requirements: [{key: kubernetes.io/arch, operator: Sometimes, values: [amd64]}]
        """);

    assertThatThrownBy(() -> reader.read(List.of(file)))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith(file + ", document 1: spec.weight: Invalid value: 0: ")
        .hasMessageContaining("; spec.template.spec.requirements[0].operator: Unsupported value: \"Sometimes\"");
  }

  @Test
  void emptyFilesAreWarningsAmongOthersAndNothingToPlanAlone() throws IOException {
    Path pod = write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
    Path empty = write("empty.yaml", "# only a comment\n---\n");
    Files.createDirectories(dir.resolve("no-yaml"));

    assertThat(reader.read(List.of(pod, empty, pod))).hasSize(1);
    assertThat(warnings).containsExactly(
        pod + ": given more than once; read once",
        empty + ": no Kubernetes objects (the file is empty or holds only comments); skipped");
    assertThatThrownBy(() -> reader.read(List.of(empty, dir.resolve("no-yaml"))))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessage("nothing to plan: " + dir.resolve("no-yaml") + ": no *.yaml or *.yml files in the directory; "
            + empty + ": no Kubernetes objects (the file is empty or holds only comments)");
  }

  @Test
  void filesOverTheLimitsAreRefusedNamingTheFlags() throws IOException {
    Path pod = write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
    ManifestReader small = new ManifestReader(warnings::add, new sh.karpenter.api.validation.Manifests.Limits(10, 1000));

    assertThatThrownBy(() -> small.read(List.of(pod)))
        .hasMessage(pod + ": the file is 45 bytes, more than the limit of 10 bytes per file (--max-file-size and --max-input-size raise the limits)");
  }
}
