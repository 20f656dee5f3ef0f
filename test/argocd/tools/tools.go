//go:build tools

// The programs Argo CD v3.6's repo-server runs for Helm and Kustomize sources, at the versions Argo
// CD v3.6.2's image ships (its hack/tool-versions.sh): Helm 4.3.2 and Kustomize 5.8.3. build.sh
// builds them beside the Argo CD binary.
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
	_ "sigs.k8s.io/kustomize/kustomize/v5"
)
