package sqlkey

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestGoldenSQLKeyGroups checks every row of sql_key_groups.csv, produced by Flink's own
// BinaryRowWriter, BinaryRowData.hashCode and KeyGroupRangeAssignment (release-1.18; see
// sql_key_groups.md): the hash code, the key group at 128, 4,096 and 32,768, and the operator
// index at parallelism 7 of 128.
func TestGoldenSQLKeyGroups(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "flink", "sql_key_groups.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	const header = "types,values,hash_code,key_group_128,key_group_4096,key_group_32768,operator_index_p7_m128"
	if got := strings.Join(rows[0], ","); got != header {
		t.Fatalf("header %q, want %q", got, header)
	}
	names, rows := rows[0], rows[1:]
	if len(rows) != 2000 {
		t.Fatalf("%d rows, want 2000", len(rows))
	}
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	bad := 0
	for n, row := range rows {
		rt, err := ParseRowType("row<" + strings.ReplaceAll(row[0], ";", ",") + ">")
		if err != nil {
			t.Fatalf("line %d: %s: %v", n+2, row[0], err)
		}
		h, _, err := rt.Hash(row[1])
		if err != nil {
			t.Errorf("line %d: %s %s: %v", n+2, row[0], row[1], err)
			bad++
			continue
		}
		got := []int{
			int(h),
			model.ComputeKeyGroupForKeyHash(h, 128),
			model.ComputeKeyGroupForKeyHash(h, 4096),
			model.ComputeKeyGroupForKeyHash(h, 32768),
			model.ComputeOperatorIndexForKeyGroup(128, 7, model.ComputeKeyGroupForKeyHash(h, 128)),
		}
		for i, g := range got {
			if want := atoi(row[2+i]); g != want {
				t.Errorf("line %d: %s %s: %s = %d, want %d", n+2, row[0], row[1], names[2+i], g, want)
				bad++
				break
			}
		}
		if bad > 20 {
			t.Fatal("too many mismatches")
		}
	}
	t.Logf("%d rows, %d mismatches", len(rows), bad)
}
