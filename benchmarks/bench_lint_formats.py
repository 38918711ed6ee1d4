"""How long `kcliff lint` takes on a platform repo of 200 YAML files, most of them not Kafka's: Helm
charts (Chart.yaml, values.yaml, templates/ with {{ }}), kustomize bases of Deployments, Services and
ConfigMaps, docker-compose files of other services, CI workflows, a game server's ConfigMap holding a
server.properties, and the Kafka files among them: a three-node apache/kafka compose file and a
StatefulSet with its ConfigMaps. The repo is generated into a temporary directory from those templates.

Printed: the wall time of `kcliff lint DIR` from the shell, start to exit (the issue's figure, with
bytecode cached as after pip install, in a temporary PYTHONPYCACHEPREFIX; `python -c pass` timed in the
same rounds as the floor), and in-process the time of discovery alone (which files are Kafka's: the
content sniffing of every YAML file) and of configrepo.load (discovery, reading, validation).

    .venv/bin/python benchmarks/bench_lint_formats.py [--runs 10] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KCLIFF = Path(sys.executable).parent / "kcliff"
FILES = 200
SERVICES = ("orders", "payments", "billing", "catalog", "search", "checkout", "inventory", "shipping", "users",
            "notifications", "gateway", "reports")
BASES = ("auth", "cart", "reviews", "pricing", "media", "audit", "ledger", "quotes", "fraud", "loyalty", "coupons",
         "tax", "invoices", "returns", "stock", "vendors", "warehouse", "routing", "tracking", "sessions", "feeds",
         "ads", "emails", "sms", "webhooks")

CHART = """\
apiVersion: v2
name: {name}
description: The {name} service
type: application
version: 1.4.{n}
appVersion: "2.{n}.0"
dependencies:
  - name: common
    version: 2.x.x
    repository: oci://registry-1.docker.io/bitnamicharts
"""
VALUES = """\
# Default values for {name}.
replicaCount: 2
image:
  repository: registry.example.com/platform/{name}
  pullPolicy: IfNotPresent
  tag: ""
imagePullSecrets: []
serviceAccount:
  create: true
  annotations: {{}}
podAnnotations:
  prometheus.io/scrape: "true"
  prometheus.io/port: "9090"
securityContext:
  runAsNonRoot: true
  runAsUser: 1000
service:
  type: ClusterIP
  port: 8080
ingress:
  enabled: true
  className: nginx
  hosts:
    - host: {name}.example.com
      paths:
        - path: /
          pathType: Prefix
resources:
  limits:
    cpu: 500m
    memory: 512Mi
  requests:
    cpu: 100m
    memory: 256Mi
autoscaling:
  enabled: true
  minReplicas: 2
  maxReplicas: 10
  targetCPUUtilizationPercentage: 80
env:
  SPRING_PROFILES_ACTIVE: prod
  KAFKA_BOOTSTRAP_SERVERS: kafka-0.kafka-headless:9092,kafka-1.kafka-headless:9092
  KAFKA_CONSUMER_GROUP: {name}-service
  DATABASE_URL: postgres://{name}-db:5432/{name}
nodeSelector: {{}}
tolerations: []
affinity: {{}}
"""
DEPLOYMENT_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{{{ include "{name}.fullname" . }}}}
  labels:
    {{{{- include "{name}.labels" . | nindent 4 }}}}
spec:
  {{{{- if not .Values.autoscaling.enabled }}}}
  replicas: {{{{ .Values.replicaCount }}}}
  {{{{- end }}}}
  selector:
    matchLabels:
      {{{{- include "{name}.selectorLabels" . | nindent 6 }}}}
  template:
    spec:
      containers:
        - name: {{{{ .Chart.Name }}}}
          image: "{{{{ .Values.image.repository }}}}:{{{{ .Values.image.tag | default .Chart.AppVersion }}}}"
          env:
            {{{{- range $key, $value := .Values.env }}}}
            - name: {{{{ $key }}}}
              value: {{{{ $value | quote }}}}
            {{{{- end }}}}
          ports:
            - name: http
              containerPort: {{{{ .Values.service.port }}}}
"""
SERVICE_TEMPLATE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{{{ include "{name}.fullname" . }}}}
spec:
  type: {{{{ .Values.service.type }}}}
  ports:
    - port: {{{{ .Values.service.port }}}}
      targetPort: http
"""
SIMPLE_TEMPLATES = {
    "ingress.yaml": "{{{{- if .Values.ingress.enabled }}}}\napiVersion: networking.k8s.io/v1\nkind: Ingress\n"
                    "metadata:\n  name: {name}\nspec:\n  ingressClassName: nginx\n{{{{- end }}}}\n",
    "hpa.yaml": "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: {name}\nspec:\n"
                "  minReplicas: {{{{ .Values.autoscaling.minReplicas }}}}\n",
    "serviceaccount.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {name}\n",
    "configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-config\ndata:\n"
                      "  application.properties: |\n    server.port=8080\n    management.endpoints.web.exposure.include=health\n"
                      "    spring.kafka.consumer.group-id={name}\n",
}
BASE_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app: {name}}}
spec:
  replicas: 3
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
        - name: {name}
          image: registry.example.com/platform/{name}:1.{n}.0
          envFrom:
            - configMapRef: {{name: {name}-env}}
          env:
            - name: KAFKA_BOOTSTRAP_SERVERS
              value: kafka-0.kafka-headless.kafka:9092
            - name: JAVA_TOOL_OPTIONS
              value: -XX:MaxRAMPercentage=75
          readinessProbe:
            httpGet: {{path: /ready, port: 8080}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}-env
data:
  LOG_LEVEL: info
  KAFKA_TOPIC: {name}-events
"""
BASE_SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  selector: {{app: {name}}}\n" \
               "  ports:\n    - port: 80\n      targetPort: 8080\n"
KUSTOMIZATION = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: {name}\nresources:\n" \
                "  - deployment.yaml\n  - service.yaml\n"
COMPOSE_OTHER = """\
services:
  {name}:
    image: registry.example.com/platform/{name}:latest
    environment:
      KAFKA_BOOTSTRAP_SERVERS: kafka:9092
      DATABASE_URL: postgres://postgres:5432/{name}
    depends_on: [postgres, redis]
  postgres:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: example
  redis:
    image: redis:7-alpine
"""
WORKFLOW = """\
name: {name}
on:
  push:
    branches: [main]
  pull_request:
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-java@v4
        with: {{distribution: temurin, java-version: "21"}}
      - run: ./gradlew build
"""
KAFKA_COMPOSE = """\
x-kafka: &kafka
  image: apache/kafka:3.9.1
  environment: &kafka-env
    KAFKA_PROCESS_ROLES: broker,controller
    KAFKA_CONTROLLER_QUORUM_VOTERS: 1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093
    KAFKA_LISTENERS: PLAINTEXT://:9092,CONTROLLER://:9093
    KAFKA_CONTROLLER_LISTENER_NAMES: CONTROLLER
    KAFKA_NUM_PARTITIONS: 6
    KAFKA_DEFAULT_REPLICATION_FACTOR: 3
    KAFKA_MIN_INSYNC_REPLICAS: 2
    KAFKA_LOG_RETENTION_HOURS: 72
    CLUSTER_ID: MkU3OEVBNTcwNTJENDM2Qk
services:
  kafka-1:
    <<: *kafka
    environment:
      <<: *kafka-env
      KAFKA_NODE_ID: 1
  kafka-2:
    <<: *kafka
    environment:
      <<: *kafka-env
      KAFKA_NODE_ID: 2
  kafka-3:
    <<: *kafka
    environment:
      <<: *kafka-env
      KAFKA_NODE_ID: 3
"""
KAFKA_STATEFULSET = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kafka-broker-properties
  labels: {app: kafka}
data:
  server.properties: |
    num.network.threads=3
    num.io.threads=8
    log.retention.hours=168
    log.segment.bytes=1073741824
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kafka
spec:
  serviceName: kafka-headless
  replicas: 3
  template:
    spec:
      containers:
        - name: kafka
          image: apache/kafka:3.9.1
          env:
            - name: KAFKA_NUM_PARTITIONS
              value: "6"
            - name: KAFKA_MIN_INSYNC_REPLICAS
              value: "2"
"""
MINECRAFT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: game-server
data:
  server.properties: |
    #Minecraft server properties
    server-port=25565
    hardcore=false
    allow-flight=false
    view-distance=12
    white-list=true
"""


def generate(root: Path) -> int:
    """The repo's files under `root`; the number of YAML files written."""
    files: dict[str, str] = {}
    for n, name in enumerate(SERVICES):
        chart = f"charts/{name}"
        files[f"{chart}/Chart.yaml"] = CHART.format(name=name, n=n)
        files[f"{chart}/values.yaml"] = VALUES.format(name=name)
        files[f"{chart}/templates/deployment.yaml"] = DEPLOYMENT_TEMPLATE.format(name=name)
        files[f"{chart}/templates/service.yaml"] = SERVICE_TEMPLATE.format(name=name)
        for file, text in SIMPLE_TEMPLATES.items():
            files[f"{chart}/templates/{file}"] = text.format(name=name)
        files[f"{chart}/templates/_helpers.tpl"] = '{{- define "%s.fullname" -}}%s{{- end }}\n' % (name, name)
    for n, name in enumerate(BASES):
        files[f"k8s/base/{name}/deployment.yaml"] = BASE_DEPLOYMENT.format(name=name, n=n)
        files[f"k8s/base/{name}/service.yaml"] = BASE_SERVICE.format(name=name)
        files[f"k8s/base/{name}/kustomization.yaml"] = KUSTOMIZATION.format(name=name)
    files["kafka/docker-compose.yml"] = KAFKA_COMPOSE
    files["k8s/kafka/kafka.yaml"] = KAFKA_STATEFULSET
    files["k8s/games/minecraft.yaml"] = MINECRAFT
    yaml = sum(1 for f in files if f.endswith((".yaml", ".yml")))
    for n in range(FILES - yaml):
        name = (SERVICES + BASES)[n % len(SERVICES + BASES)]
        where = f"dev/{name}/docker-compose.yml" if n % 2 else f".github/workflows/{name}-{n}.yml"
        files[where] = (COMPOSE_OTHER if n % 2 else WORKFLOW).format(name=name)
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return sum(1 for f in files if f.endswith((".yaml", ".yml")))


def spread(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:6.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def wall(argv: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr}")
    return time.perf_counter() - began


def in_process(repo: Path, runs: int) -> tuple[list[float], list[float], int]:
    """(discovery seconds, load seconds, files read) of `runs` runs in this process, after one to warm up."""
    from kcliff import configrepo
    configrepo.load([str(repo)])
    discovered, loaded = [], []
    for _ in range(runs):
        began = time.perf_counter()
        files, _, _ = configrepo.discover([str(repo)])
        discovered.append(time.perf_counter() - began)
        began = time.perf_counter()
        configrepo.load([str(repo)])
        loaded.append(time.perf_counter() - began)
    return discovered, loaded, len(files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="write the generated repo here (and keep it) instead of a temp dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lint-formats-") as tmp:
        repo = args.keep or Path(tmp) / "platform-repo"
        shutil.rmtree(repo, ignore_errors=True)
        yaml_files = generate(repo)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        subjects = {"python -c pass": [sys.executable, "-c", "pass"], "kcliff lint": [str(KCLIFF), "lint", str(repo)]}
        for argv in subjects.values():
            wall(argv, env)  # unmeasured: writes the bytecode cache
        times: dict[str, list[float]] = {label: [] for label in subjects}
        for i in range(args.runs):
            for label in list(subjects)[i % 2:] + list(subjects)[:i % 2]:
                times[label].append(wall(subjects[label], env))
        discovered, loaded, read = in_process(repo, args.runs)
        print(f"a repo of {yaml_files} YAML files ({read} of them Kafka's); {args.runs} runs; load average "
              f"{os.getloadavg()[0]:.1f} at the end on {os.cpu_count()} cores; bytecode cached")
        for label, runs in times.items():
            print(f"  {label:22} {spread(runs)}   wall, start to exit")
        print(f"  {'discovery':22} {spread(discovered)}   in-process: which files are Kafka's")
        print(f"  {'configrepo.load':22} {spread(loaded)}   in-process: discovery, reading, validation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
