{{/* The names of the kustomize installs: Argo CD's, so the chart can take the place of its controller. */}}
{{- define "appset.name" -}}argocd-applicationset-controller{{- end }}

{{/* The labels every object carries: the kustomize installs' for `component`, plus Helm's and `global.additionalLabels`. */}}
{{- define "appset.labels" -}}
app.kubernetes.io/name: {{ include "appset.name" .context }}
app.kubernetes.io/part-of: argocd
app.kubernetes.io/component: {{ .component | default "applicationset-controller" }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
app.kubernetes.io/managed-by: {{ .context.Release.Service }}
app.kubernetes.io/version: {{ .context.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .context.Chart.Name .context.Chart.Version }}
{{- with .context.Values.global.additionalLabels }}
{{ toYaml . }}
{{- end }}
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
{{- with .Values.global.additionalLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Whether to create one of the objects of a standalone install (deploy/standalone): `create` when it
is a boolean, else `crds.install` (false beside Argo CD, whose own objects of these names exist).
Prints "true" or "false".
*/}}
{{- define "appset.standalone" -}}
{{- if kindIs "bool" .create }}{{ .create }}{{ else }}{{ .context.Values.crds.install }}{{ end }}
{{- end }}

{{/*
The pods' affinity: `applicationSet.affinity` when set, else argo-helm's `global.affinity` preset
(anti-affinity between the controller's pods by host, and node affinity by match expressions).
Prints YAML, empty for none.
*/}}
{{- define "appset.affinity" -}}
{{- $preset := .Values.global.affinity -}}
{{- with .Values.applicationSet.affinity -}}
{{ toYaml . }}
{{- else -}}
{{- $term := dict "labelSelector" (dict "matchLabels" (include "appset.selectorLabels" . | fromYaml)) "topologyKey" "kubernetes.io/hostname" -}}
{{- $affinity := dict -}}
{{- if eq $preset.podAntiAffinity "soft" -}}
{{- $_ := set $affinity "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 100 "podAffinityTerm" $term))) -}}
{{- else if eq $preset.podAntiAffinity "hard" -}}
{{- $_ := set $affinity "podAntiAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (list $term)) -}}
{{- end -}}
{{- with $preset.nodeAffinity.matchExpressions -}}
{{- if eq $preset.nodeAffinity.type "soft" -}}
{{- $_ := set $affinity "nodeAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 1 "preference" (dict "matchExpressions" .)))) -}}
{{- else if eq $preset.nodeAffinity.type "hard" -}}
{{- $_ := set $affinity "nodeAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (dict "nodeSelectorTerms" (list (dict "matchExpressions" .)))) -}}
{{- end -}}
{{- end -}}
{{- with $affinity }}{{ toYaml . }}{{ end -}}
{{- end -}}
{{- end }}
