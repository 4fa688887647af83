package reference

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// jsonDiff compares two JSON documents, ignoring "at" (the stack frame the shared answers carry),
// and names the first differing path.
func jsonDiff(want, got []byte) string {
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return "want: " + err.Error()
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return "got: " + err.Error()
	}
	return diff("", w, g)
}

func diff(path string, w, g any) string {
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %v", path, g)
		}
		for k := range wv {
			if k == "at" {
				continue
			}
			if d := diff(path+"."+k, wv[k], gv[k]); d != "" {
				return d
			}
		}
		for k := range gv {
			if _, ok := wv[k]; !ok && k != "at" {
				return fmt.Sprintf("%s.%s: unexpected", path, k)
			}
		}
		return ""
	case []any:
		gv, ok := g.([]any)
		if !ok || len(gv) != len(wv) {
			return fmt.Sprintf("%s: want %d elements, got %v", path, len(wv), g)
		}
		for i := range wv {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), wv[i], gv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(w, g) {
		return fmt.Sprintf("%s: want %v, got %v", path, w, g)
	}
	return ""
}
