//go:build tools

// The OCI registry the tests run (CNCF Distribution, the reference implementation of the OCI
// distribution spec) and the oras program that pushes artifacts to it. build.sh builds both.
package tools

import (
	_ "github.com/distribution/distribution/v3/cmd/registry"
	_ "oras.land/oras/cmd/oras"
)
