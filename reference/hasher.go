package reference

import (
	"encoding/hex"
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// UIDGraph is a stream graph whose every node has a user-specified uid, given as Java's UTF-16
// code units (so that unpaired surrogates reach Flink as they are); Edges name node indexes.
type UIDGraph struct {
	UIDs  [][]uint16
	Edges [][2]int
}

// UIDAnswer is Flink's answer for one graph: each node's operator ID, or Flink's refusal
// (a collision of user-specified hashes).
type UIDAnswer struct {
	IDs     []model.OperatorID
	Refusal *Refusal
}

// UIDHashes runs StreamGraphHasherV2.traverseStreamGraphAndGenerateHashes over each graph: the
// operator ID Flink derives from each node's uid.
func (j *JVM) UIDHashes(graphs []UIDGraph) ([]UIDAnswer, error) {
	wire := make([]map[string]any, len(graphs))
	for i, g := range graphs {
		uids := make([][]int, len(g.UIDs))
		for k, u := range g.UIDs {
			uids[k] = make([]int, len(u))
			for n, c := range u {
				uids[k][n] = int(c)
			}
		}
		edges := make([][]int, len(g.Edges))
		for k, e := range g.Edges {
			edges[k] = []int{e[0], e[1]}
		}
		wire[i] = map[string]any{"uids": uids, "edges": edges}
	}
	var out struct {
		Graphs []struct {
			IDs   []*string `json:"ids"`
			Error *Refusal  `json:"error"`
		} `json:"graphs"`
	}
	if err := j.request(map[string]any{"op": "uid_hash", "graphs": wire}, &out); err != nil {
		return nil, err
	}
	if len(out.Graphs) != len(graphs) {
		return nil, fmt.Errorf("%w (Flink %s): %d answers to %d graphs", ErrJVM, j.Version, len(out.Graphs), len(graphs))
	}
	answers := make([]UIDAnswer, len(graphs))
	for i, g := range out.Graphs {
		if g.Error != nil {
			g.Error.Version = j.Version
			answers[i].Refusal = g.Error
			continue
		}
		if len(g.IDs) != len(graphs[i].UIDs) {
			return nil, fmt.Errorf("%w (Flink %s): %d IDs for %d nodes", ErrJVM, j.Version, len(g.IDs), len(graphs[i].UIDs))
		}
		for k, s := range g.IDs {
			var id model.OperatorID
			if s == nil {
				return nil, fmt.Errorf("%w (Flink %s): node %d of graph %d was not hashed", ErrJVM, j.Version, k, i)
			}
			b, err := hex.DecodeString(*s)
			if err != nil || len(b) != len(id) {
				return nil, fmt.Errorf("%w (Flink %s): bad operator ID %q", ErrJVM, j.Version, *s)
			}
			copy(id[:], b)
			answers[i].IDs = append(answers[i].IDs, id)
		}
	}
	return answers, nil
}
