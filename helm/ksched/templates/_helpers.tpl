{{/* The chart's name, or nameOverride. */}}
{{- define "ksched.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Name of the release's objects: the release name, with the chart's name
appended unless the release name contains it already.
*/}}
{{- define "ksched.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ksched.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ksched.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ksched.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ksched.labels" -}}
helm.sh/chart: {{ include "ksched.chart" . }}
{{ include "ksched.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: scheduler
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "ksched.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ksched.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Leader election: explicitly on or off, else on with several replicas. */}}
{{- define "ksched.leaderElect" -}}
{{- if kindIs "bool" .Values.leaderElection.enabled -}}
{{- .Values.leaderElection.enabled -}}
{{- else -}}
{{- gt (int .Values.replicaCount) 1 -}}
{{- end -}}
{{- end -}}

{{/* The extender's settings, checked: what needs what. */}}
{{- define "ksched.checkExtender" -}}
{{- $e := .Values.extender -}}
{{- if and (eq $e.auth.mode "clientCertificate") (not $e.tlsSecretName) -}}
{{- fail "extender.auth.mode clientCertificate needs extender.tlsSecretName: a kubernetes.io/tls Secret whose ca.crt signs the clients' certificates" -}}
{{- end -}}
{{- if and $e.bind.enabled (eq $e.auth.mode "none") -}}
{{- fail "extender.bind.enabled writes Bindings for whoever calls it: set extender.auth.mode to clientCertificate or token" -}}
{{- end -}}
{{- end -}}
