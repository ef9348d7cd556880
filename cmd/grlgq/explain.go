package main

import (
	"context"
	"errors"
)

func runExplain(ctx context.Context, e *env, args []string) error { return errors.New("TODO") }
