// Command argocd is the reference build of Argo CD used by the test harness: one binary holding the
// three programs the beside-Argo-CD tests run (application controller, repo-server, applicationset
// controller) and the Git askpass helper the repo-server calls. Like Argo CD's own image, it picks the
// program from ARGOCD_BINARY_NAME, else from the name it was started under.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	appsetcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-applicationset-controller/commands"
	gitaskpass "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
)

var programs = map[string]func() *cobra.Command{
	"argocd-application-controller":    appcontroller.NewCommand,
	"argocd-repo-server":               reposerver.NewCommand,
	"argocd-applicationset-controller": appsetcontroller.NewCommand,
	"argocd-git-ask-pass":              gitaskpass.NewCommand,
}

func main() {
	name := os.Getenv("ARGOCD_BINARY_NAME")
	if name == "" {
		name = filepath.Base(os.Args[0])
	}
	build, ok := programs[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "argocd: unknown program %q: set ARGOCD_BINARY_NAME to one of argocd-application-controller, argocd-repo-server, argocd-applicationset-controller, argocd-git-ask-pass\n", name)
		os.Exit(2)
	}
	if err := build().Execute(); err != nil {
		os.Exit(1)
	}
}
