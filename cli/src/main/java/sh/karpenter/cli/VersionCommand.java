package sh.karpenter.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code karpenter version}: the build's version and the upstream Karpenter version it tracks. */
@Command(name = "version", description = "Print the version.")
public final class VersionCommand implements Runnable {

  @Override
  public void run() {
    for (String line : new Provider().getVersion()) {
      System.out.println(line);
    }
  }

  /** Reads {@code karpenter-version.properties}, filtered by Maven at build time. */
  public static final class Provider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties p = new Properties();
      try (InputStream in = Provider.class.getResourceAsStream("/karpenter-version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        // fall through to defaults
      }
      return new String[] {
        "karpenter " + p.getProperty("version", "unknown"),
        "tracks upstream Karpenter " + p.getProperty("upstream", "v1.15.0") + ", API karpenter.sh/v1",
        "java " + System.getProperty("java.version")
      };
    }
  }
}
