package main

import (
	"github.com/restoresim/restoresim/sim/sweep"
)

// parseRecord decodes one line of 'sweep --format json'.
func parseRecord(line []byte) (*sweep.Record, error) { return sweep.ParseRecord(line) }
