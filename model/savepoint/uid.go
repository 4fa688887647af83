package savepoint

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/restoresim/restoresim/internal/excerpt"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/metadata"
)

// UIDs are operator uids (the .uid(...) of a DataStream program), indexed by the operator ID
// Flink derives from each (model.OperatorIDFromUID), to name the operators of a file that
// stores no uid (format versions before 5). The zero value is empty and ready to use.
type UIDs struct {
	byID map[model.OperatorID]string
}

// Add adds uids; an empty uid is an error.
func (u *UIDs) Add(uids ...string) error {
	if u.byID == nil {
		u.byID = map[model.OperatorID]string{}
	}
	for _, s := range uids {
		if s == "" {
			return errors.New("empty uid")
		}
		u.byID[model.OperatorIDFromUID(s)] = s
	}
	return nil
}

// Len is the number of distinct uids.
func (u *UIDs) Len() int { return len(u.byID) }

// Lookup gives the uid whose operator ID is id.
func (u *UIDs) Lookup(id model.OperatorID) (string, bool) {
	s, ok := u.byID[id]
	return s, ok
}

// Label sets the UID of every operator of f that stores none and whose ID is the hash of one of
// the uids, and gives how many it named. A uid the file stores is kept.
func (u *UIDs) Label(f *metadata.File) int {
	n := 0
	for i := range f.Operators {
		op := &f.Operators[i]
		if s, ok := u.byID[op.ID]; ok && op.UID == "" {
			op.UID = s
			n++
		}
	}
	return n
}

// UIDLine is one line of `simulate uid`: the uid and its operator ID, CSV-quoted when the uid
// needs it.
func UIDLine(uid string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write([]string{uid, model.OperatorIDFromUID(uid).String()}) // a strings.Builder does not fail
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// ReadUIDs reads a uids file: one uid per line, or the lines `simulate uid` prints (uid,
// operator ID, the ID then checked against the uid's hash); CSV quoting as `simulate uid`
// writes it; blank lines and lines starting with # are skipped. Errors name the line.
func ReadUIDs(r io.Reader) ([]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.LazyQuotes = true
	var out []string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, err
		}
		switch len(rec) {
		case 1:
		case 2:
			want := model.OperatorIDFromUID(rec[0])
			id, err := parseHexID(rec[1])
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			if id != want {
				return nil, fmt.Errorf("line %d: uid %s gives operator ID %v, not %v", line, excerpt.Quote(rec[0], 40), want, id)
			}
		default:
			return nil, fmt.Errorf("line %d: %d fields (want a uid, or uid,operator_id)", line, len(rec))
		}
		if rec[0] == "" {
			return nil, fmt.Errorf("line %d: empty uid", line)
		}
		out = append(out, rec[0])
	}
}
