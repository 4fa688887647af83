package model_test

import (
	"fmt"
	"testing"

	"github.com/restoresim/restoresim/model"
)

func TestOperatorIDFromUID(t *testing.T) {
	tests := []struct {
		uid  string
		want string
	}{
		// Checked on real _metadata files (FORMAT.md §6): kafka-enum1.metadata and
		// kafka-table-state-offsets.metadata.
		{"kafka-source-operator-uid", "cb16aa5adb311e8ac72482def19accbe"},
		{"kafka-source-uid", "a4122ae5704b2a344a4284a3b4b9ee29"},
	}
	for _, tt := range tests {
		if got := model.OperatorIDFromUID(tt.uid).String(); got != tt.want {
			t.Errorf("OperatorIDFromUID(%q) = %s, want %s", tt.uid, got, tt.want)
		}
	}
}

func ExampleOperatorIDFromUID() {
	fmt.Println(model.OperatorIDFromUID("kafka-source-operator-uid"))
	// Output: cb16aa5adb311e8ac72482def19accbe
}
