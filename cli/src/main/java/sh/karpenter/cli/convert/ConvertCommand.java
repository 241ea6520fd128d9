package sh.karpenter.cli.convert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import sh.karpenter.api.validation.InvalidManifestException;
import sh.karpenter.api.validation.Manifest;
import sh.karpenter.api.validation.Manifests;
import sh.karpenter.api.validation.Validated;
import sh.karpenter.api.validation.ValidationError;
import sh.karpenter.api.validation.Validator;

/**
 * {@code karpenter convert}: reads older Karpenter manifests (files, directories, or {@code -} for stdin)
 * and writes them as {@code karpenter.sh/v1} and {@code karpenter.k8s.aws/v1} to stdout, each document
 * headed by comments saying where it came from and what had no v1 equivalent (docs/convert.md). Every
 * Karpenter object written is first checked with the offline validator; bad input or an object that
 * would not be valid ends the command with exit code 2 and one line naming the document, object and field.
 */
@Command(
    name = "convert",
    description = "Convert v1alpha5 Provisioners, v1alpha1 AWSNodeTemplates and v1beta1 NodePools, NodeClaims and EC2NodeClasses to v1.",
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class ConvertCommand implements Callable<Integer> {
  static final int BAD_INPUT = 2;

  /** The YAML writer, built on first use: picocli creates every command when any one runs. */
  private static final class Yaml {
    static final YAMLMapper MAPPER = YAMLMapper.builder(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build())
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .build();
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(paramLabel = "FILE", arity = "1..*",
      description = "Manifest files or directories (YAML or JSON, multi-document); - reads stdin.")
  List<String> inputs;

  @Option(names = "--role", paramLabel = "ROLE", defaultValue = Converter.ROLE_PLACEHOLDER,
      description = "Node IAM role of EC2NodeClasses converted from AWSNodeTemplates without an instanceProfile. Default: ${DEFAULT-VALUE} (a placeholder).")
  String role;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String yaml;
    try {
      yaml = convert(read(), role);
    } catch (ConversionException | InvalidManifestException | IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    } catch (IOException e) {
      err.println("error: reading stdin: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    }
    out.print(yaml);
    out.flush();
    return 0;
  }

  private List<Manifest> read() throws IOException {
    List<Manifest> manifests = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    for (String input : inputs) {
      if (input.equals("-")) {
        manifests.addAll(Manifests.read(readStdin(System.in), "<stdin>"));
      } else {
        files.add(Path.of(input));
      }
    }
    if (!files.isEmpty()) {
      manifests.addAll(Manifests.read(files));
    }
    return manifests;
  }

  private static String readStdin(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
  }

  /**
   * The converted manifests as multi-document YAML; each Karpenter object is validated first.
   *
   * @throws ConversionException when an object cannot be converted or would not be valid in v1
   */
  public static String convert(List<Manifest> manifests, String role) {
    List<Converted> converted = new Converter(role).convert(manifests);
    Validator validator = Validator.standard();
    StringBuilder yaml = new StringBuilder();
    for (Converted object : converted) {
      Manifest manifest = new Manifest(object.source(), object.object());
      if (validator.handles(manifest)) {
        Validated<?> validated = validator.validate(manifest);
        if (!validated.isValid()) {
          ValidationError first = validated.errors().getFirst();
          throw new ConversionException(object.source(), object.kind() + " " + object.name(), first.fieldPath(),
              "the converted object is not valid v1: " + first.message());
        }
      }
      if (!yaml.isEmpty()) {
        yaml.append("---\n");
      }
      yaml.append(document(object));
    }
    return yaml.toString();
  }

  /** One YAML document: the source and notes as comments, then the object. */
  static String document(Converted object) {
    StringBuilder text = new StringBuilder();
    text.append("# karpenter convert: from ").append(object.source()).append('\n');
    for (String note : object.notes()) {
      text.append("# karpenter convert: ").append(note.replace("\n", " ")).append('\n');
    }
    try {
      text.append(Yaml.MAPPER.writeValueAsString(object.object()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("writing " + object.kind() + " " + object.name(), e);
    }
    return text.toString();
  }
}
