# syntax=docker/dockerfile:1
# Build stage: Debian bookworm with the -dev packages the build needs.
FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake g++ make ca-certificates \
      libcpprest-dev rapidjson-dev libssl-dev prometheus-cpp-dev libyaml-cpp-dev \
      libyaml-dev libre2-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake cmake
COPY cmd cmd
COPY pkg pkg
COPY bench bench
COPY test test
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DKSCHED_BUILD_BENCH=OFF \
 && cmake --build build -j "$(nproc)" --target ksched \
 && strip build/cmd/ksched/ksched

# Runtime stage: only the shared libraries ksched links against (a chart
# test checks this list against ldd of the binary).
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libcpprest2.10 libssl3 libyaml-cpp0.7 libyaml-0-2 \
      libprometheus-cpp-core1.0 libre2-9 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/cmd/ksched/ksched /usr/local/bin/ksched
# The same binary as the kubectl plugin `kubectl ksched` (kubectl finds
# kubectl-* executables on the PATH): copy both out of the image with
#   docker cp $(docker create IMAGE):/usr/local/bin/ksched ~/bin/kubectl-ksched
RUN ln -s ksched /usr/local/bin/kubectl-ksched
COPY examples /usr/share/ksched/examples
# A fixed non-root UID so Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/ksched"]
