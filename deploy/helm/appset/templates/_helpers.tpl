{{/* The names of the kustomize installs: Argo CD's, so the chart can take the place of its controller. */}}
{{- define "appset.name" -}}argocd-applicationset-controller{{- end }}

{{/* The labels every object carries: the kustomize installs' for `component`, plus Helm's. */}}
{{- define "appset.labels" -}}
app.kubernetes.io/name: {{ include "appset.name" .context }}
app.kubernetes.io/part-of: argocd
app.kubernetes.io/component: {{ .component | default "applicationset-controller" }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
app.kubernetes.io/managed-by: {{ .context.Release.Service }}
app.kubernetes.io/version: {{ .context.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .context.Chart.Name .context.Chart.Version }}
{{- end }}

{{/* What selects the controller's pods: the kustomize installs' selector, which a Deployment cannot change. */}}
{{- define "appset.selectorLabels" -}}
app.kubernetes.io/name: {{ include "appset.name" . }}
{{- end }}

{{/* The ServiceAccount the pods run as. */}}
{{- define "appset.serviceAccountName" -}}{{ .Values.applicationSet.serviceAccount.name }}{{- end }}

{{/* Helm's labels, for the objects that otherwise carry the labels of their kustomize file. */}}
{{- define "appset.helmLabels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/*
Whether to create one of the objects of a standalone install (deploy/standalone): `create` when it
is a boolean, else `crds.install` (false beside Argo CD, whose own objects of these names exist).
Prints "true" or "false".
*/}}
{{- define "appset.standalone" -}}
{{- if kindIs "bool" .create }}{{ .create }}{{ else }}{{ .context.Values.crds.install }}{{ end }}
{{- end }}
