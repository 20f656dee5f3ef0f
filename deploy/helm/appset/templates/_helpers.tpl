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
