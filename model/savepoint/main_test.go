package savepoint_test

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// exampleMetadataDir is where ExamplePlanRestore reads kafka-enum1.metadata: the real Flink
// files beside the clone (an example shows a plain path, not a lookup).
const exampleMetadataDir = "../../../shared/flink-metadata/real"

// TestMain leaves the examples out, with one line saying why, when the real Flink files are not
// beside the clone (a plain clone of the repository; the tests that read them skip the same way
// through internal/realmeta). In CI (CI set) they run and fail loudly instead.
//
// With RESTORESIM_PRODUCTION_CHILD set it is instead the child process of the Production
// benchmarks (production_bench_test.go): it runs that one operation and exits.
func TestMain(m *testing.M) {
	if op := os.Getenv(productionChildEnv); op != "" {
		if err := runProductionChild(op, os.Getenv(productionFileEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "production child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	flag.Parse()
	if _, err := os.Stat(exampleMetadataDir); err != nil && os.Getenv("CI") == "" {
		if run := flag.Lookup("test.run"); run != nil && run.Value.String() == "" {
			fmt.Fprintf(os.Stderr, "model/savepoint: examples not run: %s not found (they read the real Flink files there)\n", exampleMetadataDir)
			_ = flag.Set("test.run", "^Test")
		}
	}
	code := m.Run()
	productionCleanup()
	os.Exit(code)
}
