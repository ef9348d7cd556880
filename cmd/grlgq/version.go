package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/model"
)

// runVersion is "grlgq version": the module version, the Go version and
// platform, the kernels chosen for this CPU (model.Kernels; GRLGQ_KERNELS
// caps them) and the model file versions read.
func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("version")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	v := map[string]any{"version": base.Version(), "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH,
		"kernels": model.Kernels(), "kernels_env": os.Getenv("GRLGQ_KERNELS"), "model_format": model.FormatVersion}
	if *asJSON {
		return writeJSON(e.stdout, v)
	}
	fmt.Fprintf(e.stdout, "grlgq %s\n%s %s\nkernels %s (GRLGQ_KERNELS=%s)\nmodel files: versions 1 to %d\n", v["version"], v["go"], v["platform"], v["kernels"], v["kernels_env"], model.FormatVersion)
	return nil
}
