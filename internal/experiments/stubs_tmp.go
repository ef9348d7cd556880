package experiments

import (
	"context"
	"errors"
)

var errTODO = errors.New("experiments: not implemented yet")

func runMNIST(ctx context.Context, opt Options) (*Result, error) { return nil, errTODO }
func runYale(ctx context.Context, opt Options) (*Result, error)  { return nil, errTODO }
func runETH80(ctx context.Context, opt Options) (*Result, error) { return nil, errTODO }
