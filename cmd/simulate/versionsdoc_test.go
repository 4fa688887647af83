package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/internal/realmeta"
)

// TestVersionsDoc checks docs/versions.md's table: every link to a scenario of
// scenarios/testdata/versions.txt points at a line that starts the heading comment its title
// quotes, and every JIRA of the table is one SPEC-VERSIONS.md names (when shared/ is beside the
// module).
func TestVersionsDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/versions.md")
	if err != nil {
		t.Fatal(err)
	}
	scen, err := os.ReadFile("../../scenarios/testdata/versions.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(scen), "\n")
	links := regexp.MustCompile(`\]\(\.\./scenarios/testdata/versions\.txt#L(\d+) "([^"]+)"\)`).FindAllStringSubmatch(string(doc), -1)
	if len(links) < 5 {
		t.Fatalf("%d scenario links in docs/versions.md, want the worked examples", len(links))
	}
	for _, m := range links {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(lines) || !strings.HasPrefix(lines[n-1], "# "+m[2]) {
			t.Errorf("docs/versions.md links versions.txt#L%s as %q, but that line is not its heading", m[1], m[2])
		}
	}
	var table []string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "| ") {
			table = append(table, regexp.MustCompile(`FLINK-\d+`).FindAllString(l, -1)...)
		}
	}
	if len(table) < 15 {
		t.Fatalf("%d JIRAs in the table, want the differences of SPEC-VERSIONS.md", len(table))
	}
	dir, err := realmeta.Find("")
	if err != nil {
		t.Skip(err)
	}
	spec, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "SPEC-VERSIONS.md"))
	if err != nil {
		t.Skip(err)
	}
	for _, j := range table {
		if !regexp.MustCompile(j + `\b`).Match(spec) {
			t.Errorf("docs/versions.md names %s, which SPEC-VERSIONS.md does not", j)
		}
	}
}
