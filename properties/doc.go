// Package properties holds restoresim's property-based test suite (pgregory.net/rapid) over
// package model and the simulator: run it with `go test ./properties`.
package properties
