// Package lint holds tests that check the module's structure rather than its behaviour: the
// import graph between its packages (importgraph_test.go). It has no code of its own.
package lint
