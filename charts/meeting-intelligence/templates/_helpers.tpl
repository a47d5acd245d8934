{{/*
Names
*/}}
{{- define "mi.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Fully qualified app name (bitnami convention): the release name alone when it already contains the chart name.
Role suffixes (-graphql is the longest) must still fit in 63 characters, so the base is cut at 52.
*/}}
{{- define "mi.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "mi.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mi.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Name of one role's objects: dict "root" $ "role" "mcp" */}}
{{- define "mi.roleName" -}}
{{- printf "%s-%s" (include "mi.fullname" .root) .role | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels
*/}}
{{- define "mi.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mi.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "mi.labels" -}}
helm.sh/chart: {{ include "mi.chart" . }}
{{ include "mi.selectorLabels" . }}
app.kubernetes.io/version: {{ (default .Chart.AppVersion .Values.image.tag) | toString | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: meeting-intelligence
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* dict "root" $ "role" "mcp" */}}
{{- define "mi.roleSelectorLabels" -}}
{{ include "mi.selectorLabels" .root }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "mi.roleLabels" -}}
{{ include "mi.labels" .root }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{/* metadata.annotations from commonAnnotations plus extra ones: dict "root" $ "extra" (dict ...) */}}
{{- define "mi.annotations" -}}
{{- $all := merge (deepCopy (default (dict) .extra)) (deepCopy .root.Values.commonAnnotations) -}}
{{- if $all -}}
annotations:
{{ toYaml $all | indent 2 }}
{{- end -}}
{{- end -}}

{{/*
Image
*/}}
{{- define "mi.image" -}}
{{- $registry := default .Values.image.registry .Values.global.imageRegistry -}}
{{- $repo := .Values.image.repository -}}
{{- $ref := ternary $repo (printf "%s/%s" $registry $repo) (empty $registry) -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $ref .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $ref (default .Chart.AppVersion .Values.image.tag | toString) -}}
{{- end -}}
{{- end -}}

{{- define "mi.imagePullSecrets" -}}
{{- $secrets := concat (default (list) .Values.global.imagePullSecrets) (default (list) .Values.image.pullSecrets) | uniq -}}
{{- if $secrets -}}
imagePullSecrets:
{{- range $secrets }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}

{{/*
Service account
*/}}
{{- define "mi.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "mi.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
Configuration: every setting of services/platform/config.ts. Non-secret ones go to the ConfigMap,
secret ones to the Secret (or come from secrets.existingSecret).
*/}}
{{- define "mi.configMapName" -}}
{{- include "mi.fullname" . -}}
{{- end -}}

{{- define "mi.secretName" -}}
{{- default (include "mi.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* "true" when the chart writes the Secret from secrets.* (not an existing one, not an ExternalSecret's). */}}
{{- define "mi.ownSecret" -}}
{{- and (not .Values.secrets.existingSecret) (not .Values.externalSecret.enabled) -}}
{{- end -}}

{{- define "mi.temporalTlsDir" -}}/etc/meeting-intel/temporal-tls{{- end -}}

{{/* PUBLIC_BASE_URL: the configured one, else the first Ingress/HTTPRoute host, else the port-forward URL. */}}
{{- define "mi.publicBaseUrl" -}}
{{- if .Values.config.publicBaseUrl -}}
{{- .Values.config.publicBaseUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts -}}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls) (first .Values.ingress.hosts) -}}
{{- else if and .Values.httpRoute.enabled .Values.httpRoute.hostnames -}}
{{- printf "https://%s" (first .Values.httpRoute.hostnames) -}}
{{- else -}}
{{- printf "http://localhost:%d" (int .Values.mcp.containerPort) -}}
{{- end -}}
{{- end -}}

{{/* MCP_ALLOWED_HOSTS: the configured list, else loopback + the in-cluster Service names + public hosts. */}}
{{- define "mi.mcpAllowedHosts" -}}
{{- if .Values.config.mcp.allowedHosts -}}
{{- join "," .Values.config.mcp.allowedHosts -}}
{{- else -}}
{{- $svc := include "mi.roleName" (dict "root" . "role" "mcp") -}}
{{- $ns := include "mi.namespace" . -}}
{{- $hosts := list "localhost" "127.0.0.1" "[::1]" $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) -}}
{{- if .Values.ingress.enabled }}{{ $hosts = concat $hosts .Values.ingress.hosts }}{{ end -}}
{{- if .Values.httpRoute.enabled }}{{ $hosts = concat $hosts .Values.httpRoute.hostnames }}{{ end -}}
{{- join "," (uniq $hosts) -}}
{{- end -}}
{{- end -}}

{{- define "mi.configData" -}}
{{- $c := .Values.config -}}
{{- $t := .Values.temporal -}}
{{- $tlsDir := include "mi.temporalTlsDir" . -}}
DATABASE_POOL_MAX: {{ $c.database.poolMax | int64 | toString | quote }}
DATABASE_SSL: {{ $c.database.ssl | toString | quote }}
TEMPORAL_ADDRESS: {{ $t.address | quote }}
TEMPORAL_NAMESPACE: {{ $t.namespace | quote }}
TEMPORAL_TASK_QUEUE: {{ $t.taskQueue | quote }}
{{- /* speech.enabled: speech recognition on a queue of its own, polled by the speech Deployment only. */}}
TEMPORAL_SPEECH_TASK_QUEUE: {{ ternary (printf "%s-speech" $t.taskQueue) "" .Values.speech.enabled | quote }}
TEMPORAL_TLS_CERT_PATH: {{ ternary (printf "%s/%s" $tlsDir $t.tls.certKey) "" $t.tls.enabled | quote }}
TEMPORAL_TLS_KEY_PATH: {{ ternary (printf "%s/%s" $tlsDir $t.tls.keyKey) "" $t.tls.enabled | quote }}
TEMPORAL_TLS_CA_PATH: {{ ternary (printf "%s/%s" $tlsDir $t.tls.caKey) "" (and $t.tls.enabled (ne $t.tls.caKey "")) | quote }}
TEMPORAL_TLS_SERVER_NAME: {{ $t.tls.serverName | quote }}
HOST: {{ .Values.config.host | quote }}
TRUST_PROXY: {{ $c.trustProxy | toString | quote }}
MCP_PORT: {{ .Values.mcp.containerPort | int64 | toString | quote }}
GRAPHQL_PORT: {{ .Values.graphql.containerPort | int64 | toString | quote }}
WORKER_METRICS_PORT: {{ .Values.worker.containerPort | int64 | toString | quote }}
WORKER_MAX_CONCURRENT_ACTIVITIES: {{ .Values.worker.concurrency.maxActivities | int64 | toString | quote }}
WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: {{ .Values.worker.concurrency.maxWorkflowTasks | int64 | toString | quote }}
WORKER_MAX_CONCURRENT_EMBEDDINGS: {{ .Values.worker.concurrency.maxEmbeddings | int64 | toString | quote }}
{{- /* The speech Deployment sets WORKER_KIND=speech on its pods. */}}
WORKER_KIND: "general"
{{- /* Where the worker's Temporal SDK Prometheus exporter listens (empty: not started); worker.temporalMetrics. */}}
TEMPORAL_METRICS_BIND_ADDRESS: {{ ternary (printf "0.0.0.0:%d" (int .Values.worker.temporalMetrics.port)) "" .Values.worker.temporalMetrics.enabled | quote }}
PUBLIC_BASE_URL: {{ include "mi.publicBaseUrl" . | quote }}
MCP_ALLOWED_HOSTS: {{ include "mi.mcpAllowedHosts" . | quote }}
{{- /* Empty: the service accepts the origin of PUBLIC_BASE_URL. */}}
MCP_ALLOWED_ORIGINS: {{ join "," $c.mcp.allowedOrigins | quote }}
MCP_MAX_TRANSCRIPT_TOKENS: {{ $c.mcp.maxTranscriptTokens | int64 | toString | quote }}
RATE_LIMIT_PER_MINUTE: {{ $c.rateLimitPerMinute | int64 | toString | quote }}
SHUTDOWN_GRACE_MS: {{ $c.shutdownGraceMs | int64 | toString | quote }}
LOG_LEVEL: {{ $c.logLevel | quote }}
GRAPHQL_INTROSPECTION: {{ $c.graphql.introspection | toString | quote }}
GRAPHQL_MAX_DEPTH: {{ $c.graphql.maxDepth | int64 | toString | quote }}
GRAPHQL_MAX_QUERY_BYTES: {{ $c.graphql.maxQueryBytes | int64 | toString | quote }}
ALLOW_PRIVATE_NETWORK: {{ $c.allowPrivateNetwork | toString | quote }}
MEDIA_MAX_BYTES: {{ $c.media.maxBytes | int64 | toString | quote }}
MEDIA_MAX_SECONDS: {{ $c.media.maxSeconds | int64 | toString | quote }}
MEDIA_FETCH_TIMEOUT: {{ $c.media.fetchTimeout | quote }}
{{- /* asr.inCluster: the chart's own speech server (templates/asr.yaml, which refuses a config.asr.url beside it). */}}
ASR_ENGINE: {{ $c.asr.engine | quote }}
ASR_URL: {{ ternary (include "mi.asrInClusterUrl" .) $c.asr.url .Values.asr.inCluster.enabled | quote }}
ASR_MODEL: {{ ternary .Values.asr.inCluster.model $c.asr.model .Values.asr.inCluster.enabled | quote }}
ASR_RESPONSE_FORMAT: {{ $c.asr.responseFormat | quote }}
ASR_CHUNK_MAX_BYTES: {{ $c.asr.chunkMaxBytes | int64 | toString | quote }}
ASR_CHUNK_MAX_SECONDS: {{ $c.asr.chunkMaxSeconds | int64 | toString | quote }}
ASR_CHUNK_CONCURRENCY: {{ $c.asr.chunkConcurrency | int64 | toString | quote }}
ASR_SPLIT_CHANNELS: {{ $c.asr.splitChannels | toString | quote }}
{{- /* The image carries the default models in /app/.models; speech.modelsVolume is mounted at /models. */}}
SPEECH_MODELS_DIR: {{ ternary "/models" "/app/.models" (not (empty .Values.speech.modelsVolume)) | quote }}
SPEECH_MODEL: {{ $c.speech.model | quote }}
SPEECH_MODELS: {{ join "," ($c.speech.models | default list) | quote }}
SPEECH_RECOGNIZERS: {{ $c.speech.recognizers | int64 | toString | quote }}
DIARIZATION: {{ $c.speech.diarization | quote }}
EMBEDDING_MODEL_DIR: {{ $c.search.embeddingModelDir | quote }}
{{- /* llm.inCluster: the chart's own llama.cpp server (templates/llm.yaml, which refuses a config.llm.url beside it). */}}
LLM_URL: {{ ternary (include "mi.llmInClusterUrl" .) $c.llm.url .Values.llm.inCluster.enabled | quote }}
LLM_MODEL: {{ ternary .Values.llm.inCluster.alias $c.llm.model .Values.llm.inCluster.enabled | quote }}
LLM_MAX_TOKENS: {{ $c.llm.maxTokens | int64 | toString | quote }}
LLM_PART_CHARS: {{ $c.llm.partChars | int64 | toString | quote }}
LLM_TIMEOUT: {{ $c.llm.timeout | quote }}
WEBHOOK_TIMEOUT: {{ $c.webhook.timeout | quote }}
WEBHOOK_RETRY_SCHEDULE: {{ $c.webhook.retrySchedule | quote }}
WEBHOOK_SECRET_OVERLAP: {{ $c.webhook.secretOverlap | quote }}
LIVE_IDLE_TIMEOUT: {{ $c.live.idleTimeout | quote }}
READ_AUDIT: {{ $c.governance.readAudit | toString | quote }}
READ_AUDIT_FLUSH_INTERVAL: {{ $c.governance.readAuditFlushInterval | quote }}
READ_AUDIT_BATCH_ROWS: {{ $c.governance.readAuditBatchRows | int64 | toString | quote }}
READ_AUDIT_RETENTION: {{ $c.governance.readAuditRetention | quote }}
CHANGES_RETENTION: {{ $c.governance.changesRetention | quote }}
RETENTION_SCHEDULE: {{ $c.governance.retentionSchedule | quote }}
WEB_SESSION_TTL: {{ $c.web.sessionTtl | quote }}
OAUTH_MODE: {{ $c.oauth.mode | quote }}
OAUTH_ISSUER: {{ $c.oauth.issuer | quote }}
OAUTH_JWKS_URL: {{ $c.oauth.jwksUrl | quote }}
OAUTH_AUDIENCE: {{ $c.oauth.audience | quote }}
OAUTH_USER_CLAIM: {{ $c.oauth.userClaim | quote }}
OAUTH_CLOCK_SKEW: {{ $c.oauth.clockSkew | quote }}
OAUTH_ACCESS_TOKEN_TTL: {{ $c.oauth.accessTokenTtl | quote }}
OAUTH_REFRESH_TOKEN_TTL: {{ $c.oauth.refreshTokenTtl | quote }}
OAUTH_SIGNING_ALG: {{ $c.oauth.signingAlg | quote }}
OIDC_ISSUER: {{ $c.oauth.oidc.issuer | quote }}
OIDC_CLIENT_ID: {{ $c.oauth.oidc.clientId | quote }}
{{- range $k, $v := $c.extra }}
{{ $k }}: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* The Secret's data (base64), keyed by the configured key names. */}}
{{- define "mi.secretData" -}}
{{- $s := .Values.secrets -}}
{{ $s.keys.databaseUrl }}: {{ $s.databaseUrl | b64enc | quote }}
{{ $s.keys.secretsKey }}: {{ $s.secretsKey | b64enc | quote }}
{{ $s.keys.asrApiKey }}: {{ $s.asrApiKey | b64enc | quote }}
{{ $s.keys.llmApiKey }}: {{ $s.llmApiKey | b64enc | quote }}
{{ $s.keys.oidcClientSecret }}: {{ $s.oidcClientSecret | b64enc | quote }}
{{- end -}}

{{/* What the pods' checksum/secret annotation hashes: the data, or the reference to an existing Secret. */}}
{{- define "mi.secretChecksum" -}}
{{- if .Values.secrets.existingSecret -}}
{{- printf "%s/%s" .Values.secrets.existingSecret (toJson .Values.secrets.keys) | sha256sum -}}
{{- else if .Values.externalSecret.enabled -}}
{{- toJson .Values.externalSecret | sha256sum -}}
{{- else -}}
{{- include "mi.secretData" . | sha256sum -}}
{{- end -}}
{{- end -}}

{{/*
Environment of every container: the ConfigMap (envFrom) plus the secret keys.
dict "root" $ "role" "mcp" "configMap" <name> "secret" <name>
DATABASE_URL is required everywhere; SECRETS_KEY by the graphql and worker roles (and mcp with the
built-in OAuth server, whose signing keys it encrypts).
*/}}
{{- define "mi.env" -}}
{{- $root := .root -}}
{{- $s := $root.Values.secrets -}}
{{- $needsKey := or (has .role (list "graphql" "worker" "speech")) (and (eq .role "mcp") (eq $root.Values.config.oauth.mode "builtin")) -}}
- name: MI_ROLE
  value: {{ .role | quote }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ $s.keys.databaseUrl }}
- name: SECRETS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ $s.keys.secretsKey }}
      optional: {{ not $needsKey }}
- name: ASR_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ $s.keys.asrApiKey }}
      optional: true
- name: LLM_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ $s.keys.llmApiKey }}
      optional: true
- name: OIDC_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ $s.keys.oidcClientSecret }}
      optional: true
{{- end -}}

{{/* Paths the mcp role answers publicly: the endpoint, RFC 9728 metadata and, in builtin OAuth mode, the authorization server. */}}
{{- define "mi.mcpPublicPaths" -}}
{{- /* The meeting and soundbite pages (transcript_url, share_url) are served by the mcp role too. */ -}}
{{- $paths := list "/mcp" "/.well-known/oauth-protected-resource" "/meetings" "/soundbites" "/signin" "/signout" "/assets" -}}
{{- if eq .Values.config.oauth.mode "builtin" -}}
{{- $paths = concat $paths (list "/.well-known/oauth-authorization-server" "/oauth") -}}
{{- end -}}
{{- join "," $paths -}}
{{- end -}}

{{- define "mi.envFrom" -}}
- configMapRef:
    name: {{ .configMap }}
{{- end -}}

{{/* Volumes every pod has: a writable /tmp (the root filesystem is read-only) and the Temporal client certificate. */}}
{{- define "mi.volumes" -}}
{{- if and (has .role (list "worker" "speech" "mcp" "graphql")) .root.Values.speech.modelsVolume }}
- name: speech-models
  {{- toYaml .root.Values.speech.modelsVolume | nindent 2 }}
{{- end }}
{{- with .root }}
- name: tmp
  emptyDir:
    {{- if .Values.tmpVolume.medium }}
    medium: {{ .Values.tmpVolume.medium }}
    {{- end }}
    sizeLimit: {{ .Values.tmpVolume.sizeLimit }}
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  secret:
    secretName: {{ required "temporal.tls.existingSecret is required when temporal.tls.enabled is true" .Values.temporal.tls.existingSecret }}
    defaultMode: 0440
{{- end }}
{{- end }}
{{- end -}}

{{- define "mi.volumeMounts" -}}
{{- if and (has .role (list "worker" "speech" "mcp" "graphql")) .root.Values.speech.modelsVolume }}
- name: speech-models
  mountPath: /models
  readOnly: true
{{- end }}
{{- with .root }}
- name: tmp
  mountPath: /tmp
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  mountPath: {{ include "mi.temporalTlsDir" . }}
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/* The HTTP port name of a role: mcp and graphql serve "http", the worker and speech workers only "metrics". */}}
{{/* Whether a role's pods expose the Temporal SDK's metrics port: the worker roles, when
worker.temporalMetrics is enabled (the ConfigMap's TEMPORAL_METRICS_BIND_ADDRESS is the same for both). */}}
{{- define "mi.temporalMetrics" -}}
{{- if and (has .role (list "worker" "speech")) .root.Values.worker.temporalMetrics.enabled }}true{{ end -}}
{{- end -}}

{{- define "mi.portName" -}}
{{- ternary "metrics" "http" (has . (list "worker" "speech")) -}}
{{- end -}}

{{/* A probe from values: dict "probe" .Values.mcp.livenessProbe "path" "/healthz" "port" "http" */}}
{{- define "mi.probe" -}}
httpGet:
  path: {{ .path }}
  port: {{ .port }}
initialDelaySeconds: {{ .probe.initialDelaySeconds }}
periodSeconds: {{ .probe.periodSeconds }}
timeoutSeconds: {{ .probe.timeoutSeconds }}
failureThreshold: {{ .probe.failureThreshold }}
successThreshold: {{ .probe.successThreshold }}
{{- end -}}

{{/* Selector that scopes PromQL to this release's scrape jobs. */}}
{{- define "mi.promSelector" -}}
{{- if .Values.metrics.prometheusRule.selector -}}
{{- .Values.metrics.prometheusRule.selector -}}
{{- else -}}
{{- printf "namespace=\"%s\",job=~\"%s-(mcp|graphql|worker)\"" (include "mi.namespace" .) (include "mi.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
asr.inCluster: the speaches server. Its image is repository:tag@digest (the tag stays readable; the
digest decides what is pulled), and ASR_URL is its Service's in-cluster address.
*/}}
{{- define "mi.asrImage" -}}
{{- $i := .Values.asr.inCluster.image -}}
{{- $registry := default $i.registry .Values.global.imageRegistry -}}
{{- $repo := ternary $i.repository (printf "%s/%s" $registry $i.repository) (empty $registry) -}}
{{- $ref := printf "%s:%s" $repo ($i.tag | toString) -}}
{{- if $i.digest -}}
{{- printf "%s@%s" $ref $i.digest -}}
{{- else -}}
{{- $ref -}}
{{- end -}}
{{- end -}}

{{- /* llm.inCluster: llama.cpp's server image (repository:tag, @digest when one is pinned) and its Service's address. */}}
{{- define "mi.llmImage" -}}
{{- $i := .Values.llm.inCluster.image -}}
{{- $registry := default $i.registry .Values.global.imageRegistry -}}
{{- $repo := ternary $i.repository (printf "%s/%s" $registry $i.repository) (empty $registry) -}}
{{- $ref := printf "%s:%s" $repo ($i.tag | toString) -}}
{{- ternary (printf "%s@%s" $ref $i.digest) $ref (not (empty $i.digest)) -}}
{{- end -}}

{{- define "mi.llmInClusterUrl" -}}
{{- printf "http://%s.%s.svc:%d" (include "mi.roleName" (dict "root" . "role" "llm")) (include "mi.namespace" .) (int .Values.llm.inCluster.servicePort) -}}
{{- end -}}

{{- define "mi.asrInClusterUrl" -}}
{{- printf "http://%s.%s.svc:%d" (include "mi.roleName" (dict "root" . "role" "asr")) (include "mi.namespace" .) (int .Values.asr.inCluster.servicePort) -}}
{{- end -}}
