package metadata

import "testing"

// SmallBytes gives the external tests (package metadata_test) the synthetic small file.
func SmallBytes(t testing.TB) []byte { return smallBytes(t) }
