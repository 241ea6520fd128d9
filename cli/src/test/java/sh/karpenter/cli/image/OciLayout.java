package sh.karpenter.cli.image;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * An OCI image layout tarball as {@code scripts/image} writes it, unpacked with the system's
 * {@code tar}: its one manifest (from {@code index.json}), the image configuration, and the layers
 * applied in the manifest's order into a root filesystem. The test's image has no whiteout files, so
 * applying a layer is extracting it.
 */
record OciLayout(Path dir, String manifestDigest, JsonNode manifest, JsonNode config) {

  static OciLayout unpack(Path tarball, Path dir) throws IOException, InterruptedException {
    ImageSandbox.deleteTree(dir);
    Files.createDirectories(dir);
    ImageSandbox.exec(List.of("tar", "-xf", tarball.toString(), "-C", dir.toString()), Path.of("."));
    JsonNode index = ImageSandbox.readJson(dir.resolve("index.json"));
    JsonNode manifests = index.get("manifests");
    if (manifests == null || manifests.size() != 1) {
      throw new IllegalStateException(tarball + ": index.json should list exactly one manifest: " + index);
    }
    String digest = hex(manifests.get(0).get("digest").asText());
    JsonNode manifest = ImageSandbox.readJson(blob(dir, digest));
    JsonNode config = ImageSandbox.readJson(blob(dir, hex(manifest.get("config").get("digest").asText())));
    return new OciLayout(dir, digest, manifest, config);
  }

  /** Extracts every layer, bottom first, into {@code rootfs}, and returns it. */
  Path extractLayers(Path rootfs) throws IOException, InterruptedException {
    Files.createDirectories(rootfs);
    for (JsonNode layer : manifest.get("layers")) {
      String mediaType = layer.get("mediaType").asText();
      if (!mediaType.equals("application/vnd.oci.image.layer.v1.tar+gzip")) {
        throw new IllegalStateException("layer " + layer.get("digest") + " has media type " + mediaType + ", expected tar+gzip");
      }
      ImageSandbox.exec(List.of("tar", "-xzf", blob(dir, hex(layer.get("digest").asText())).toString(), "-C", rootfs.toString()), Path.of("."));
    }
    return rootfs;
  }

  private static Path blob(Path dir, String hex) {
    return dir.resolve("blobs/sha256").resolve(hex);
  }

  private static String hex(String digest) {
    if (!digest.startsWith("sha256:")) {
      throw new IllegalStateException("digest " + digest + " is not sha256");
    }
    return digest.substring("sha256:".length());
  }
}
