package savepoint

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// kafka-enum1 holds 1,215 state bytes: three operator-state streams (350, 389 and 350 bytes,
// each a 233-byte header and 39-byte split entries) and a 126-byte enumerator state. At P=2
// the bytes read by the subtasks and the coordinator state cover every one of them: each
// subtask reads the headers of the two streams it takes entries from (the middle one is cut
// between both, so its header is read twice) and its five entries.
func TestBytesReadCoversKafkaEnum(t *testing.T) {
	sp := openReal(t, "kafka-enum1.metadata")
	pl, err := PlanRestore(sp, Options{Flink: model.Flink118, Parallelism: 2})
	if err != nil || !pl.Restorable || pl.DroppedStateBytes != 0 {
		t.Fatalf("plan: %v, restorable %v, dropped %d", err, pl.Restorable, pl.DroppedStateBytes)
	}
	var read, coord, total int64
	for i := range pl.Operators {
		o := &pl.Operators[i]
		for _, s := range o.Subtasks {
			read += s.BytesRead
		}
		if o.BytesRead != sumRead(o) {
			t.Errorf("operator %s: bytes_read %d, subtasks sum to %d", o.OperatorID, o.BytesRead, sumRead(o))
		}
		coord += o.CoordinatorStateBytes
		total += stateBytesOf(&sp.File.Operators[i]).total()
	}
	if total != 1215 || coord != 126 {
		t.Fatalf("state %d bytes, coordinator %d; want 1215, 126", total, coord)
	}
	// 4 headers (the middle stream's twice) + 10 entries of 39 bytes.
	if want := int64(4*233 + 10*39); read != want || read+coord < total {
		t.Errorf("bytes read %d (+%d coordinator), want %d, covering %d", read, coord, want, total)
	}
	src := &pl.Operators[1]
	if src.ReadAmplification == nil || *src.ReadAmplification != float64(read+coord)/1215 {
		t.Errorf("read amplification %v", src.ReadAmplification)
	}
	var b strings.Builder
	if err := pl.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "  bytes read: 1322 by 2 subtasks (661..661 each) + 126 coordinator state (on the JobManager), read amplification 1.19x\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
}

func sumRead(o *OperatorPlan) int64 {
	var n int64
	for _, s := range o.Subtasks {
		n += s.BytesRead
	}
	return n
}

// A Flink 1.7 RocksDB full savepoint: subtask 0's key-groups handle is 54,453 bytes, a
// 54,383-byte header (the RocksDB column-family metadata) before the 70 bytes of its one key
// group; restoring it reads all 54,453, not 70.
func TestBytesReadRocksDBHeader(t *testing.T) {
	sp := openReal(t, "target.test-classes.stateful-scala-with-broadcast-udf-migration-itcase-flink1.7-rocksdb-savepoint.metadata")
	pl, err := PlanRestore(sp, Options{Flink: model.Flink118, KeepParallelism: true})
	if err != nil || !pl.Restorable {
		t.Fatalf("plan: %v, restorable %v", err, pl.Restorable)
	}
	for _, o := range pl.Operators {
		if o.OperatorID != "add2ad1ab50ccfbdd5ddb85805c0d0d1" {
			continue
		}
		s := o.Subtasks[0]
		if s.KeyedBytes() != 70 || s.BytesRead != 54453 {
			t.Errorf("subtask 0: keyed %d bytes, read %d; want 70, 54453", s.KeyedBytes(), s.BytesRead)
		}
		if o.BytesRead != 223736 || *o.ReadAmplification != 1 {
			t.Errorf("operator reads %d (amplification %v), want all 223736 (1)", o.BytesRead, *o.ReadAmplification)
		}
		return
	}
	t.Fatal("operator add2ad1ab50ccfbdd5ddb85805c0d0d1 not planned")
}

// ReadsAt gives every new subtask's bytes read at each target; a refused target is an error.
func TestReadsAt(t *testing.T) {
	sp := openReal(t, "kafka-enum1.metadata")
	rows, err := ReadsAt(sp, model.Flink118, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteReadsCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "to,operator_id,subtask,bytes_read\n1,cb16aa5adb311e8ac72482def19accbe,0,1089\n" +
		"2,cb16aa5adb311e8ac72482def19accbe,0,661\n2,cb16aa5adb311e8ac72482def19accbe,1,661\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
	if _, err := ReadsAt(sp, model.Flink118, []int{129}); err == nil || !strings.Contains(err.Error(), "at parallelism 129 the restore is refused") {
		t.Errorf("P=129: %v", err)
	}
}

// TestElementBytesIsKeyGroupBytes: an operator-state entry's bytes (elementBytes) follow the
// byte rule of key groups (model.KeyGroupBytes), for offsets in order (a key-groups handle's),
// with zeros (empty key groups), repeats and a step back.
func TestElementBytesIsKeyGroupBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for c := range 500 {
		offs := make([]int64, 1+rng.IntN(40))
		at := int64(0)
		for k := range offs {
			switch rng.IntN(6) {
			case 0:
				offs[k] = 0
			case 1:
				offs[k] = int64(rng.IntN(int(at) + 1)) // a step back
			default:
				at += int64(rng.IntN(20))
				offs[k] = at
			}
		}
		sorted := sortedPositive(offs)
		size := at + int64(rng.IntN(30)) - 5
		want := model.KeyGroupBytes(offs, size)
		for k, off := range offs {
			if got := elementBytes(sorted, off, size); got != want[k] {
				t.Fatalf("case %d: offsets %v, size %d: offset %d has %d bytes, key group %d has %d", c, offs, size, off, got, k, want[k])
			}
		}
	}
}
