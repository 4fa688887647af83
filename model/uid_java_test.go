package model

import "testing"

// TestOperatorIDFromUIDJavaString: uids that are not plain UTF-8 hash as Java's
// String.getBytes(UTF_8) encodes them, as Flink's StreamGraphHasherV2 does (found by
// differential.TestUIDHashAgainstFlink: Flink refuses a job with the uids "\uD800" and "?" as a
// hash collision; the model used to hash the surrogate's bytes ED A0 80).
func TestOperatorIDFromUIDJavaString(t *testing.T) {
	for _, tt := range []struct{ uid, same string }{
		{"\xed\xa0\x80", "?"},                      // unpaired high surrogate
		{"a\xed\xbf\xbfb", "a?b"},                  // unpaired low surrogate
		{"\xed\xb0\x80\xed\xa0\x80", "??"},         // low then high: two unpaired
		{"\xed\xa0\xbd\xed\xb8\x80", "\U0001F600"}, // a pair kept as two 3-byte forms
		{"x\xffy", "x\uFFFDy"},                     // a byte that is not UTF-8
		{"\xed\xa0", "\uFFFD\uFFFD"},               // a truncated form
		{"kafka-source-uid", "kafka-source-uid"},
	} {
		if got, want := OperatorIDFromUID(tt.uid), OperatorIDFromUID(tt.same); got != want {
			t.Errorf("OperatorIDFromUID(%q) = %s, want %s (that of %q)", tt.uid, got, want, tt.same)
		}
	}
	if got := OperatorIDFromUID("kafka-source-uid").String(); got != "a4122ae5704b2a344a4284a3b4b9ee29" {
		t.Errorf("OperatorIDFromUID(kafka-source-uid) = %s", got)
	}
}
