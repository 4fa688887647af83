// Command simulate is restoresim's command-line tool: key-group routing and ranges, Flink's
// operator-state repartitioning, seeded checkpoint → restore → rescale simulations, skew
// analytics and savepoint inspection. Run `simulate help` for the list of commands.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
