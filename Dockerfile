# The controller's image for those who build with Docker: `docker build -t karpenter-java/controller:0.1.0-SNAPSHOT .`
# scripts/image builds the same image without Docker and without pulling a base image; both have
# the same layout, user, entrypoint and environment (cli's DockerfileTest compares them). See docs/image.md.

# Build stage: the jars, and a JRE of the modules in image/jre-modules, staged under /out/opt/karpenter
# by the same code as scripts/image (`scripts/image stage`).
FROM maven:3.9-eclipse-temurin-25 AS build
WORKDIR /src
COPY . .
RUN scripts/image stage /out

# Final stage: distroless (glibc, libgcc, CA certificates, user nonroot 65532, /tmp), no shell.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY image/rootfs/etc/passwd image/rootfs/etc/group image/rootfs/etc/nsswitch.conf /etc/
COPY --from=build /out/opt/karpenter/jre /opt/karpenter/jre
COPY --from=build /out/opt/karpenter/lib /opt/karpenter/lib
COPY --from=build /out/opt/karpenter/app /opt/karpenter/app
ENV PATH="/opt/karpenter/jre/bin:/usr/bin:/bin"
ENV JAVA_HOME="/opt/karpenter/jre"
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData -Djava.awt.headless=true -Djava.io.tmpdir=/tmp"
LABEL org.opencontainers.image.title="karpenter-java controller"
USER 65532:65532
WORKDIR /opt/karpenter
EXPOSE 8080 8081
ENTRYPOINT ["/opt/karpenter/jre/bin/java", "-cp", "/opt/karpenter/app/*:/opt/karpenter/lib/*", "sh.karpenter.cli.Main", "controller"]
