package metadata

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// OperatorNames gives an operator's name and uid as a format version 5+ file stores them
// (OperatorState.getOperatorName / getOperatorUid; "" = none).
type OperatorNames func(id model.OperatorID) (name, uid string)

// FromModelAs is FromModel for format version 4 to 7, the versions Flink 1.16 and later write
// (model.FlinkVersion.MetadataWriteVersion): from version 5 on each operator carries the name and
// uid names gives (nil: none). Version 6 prefixes each channel-state handle with its type byte
// and version 7 adds the (absent) reference checkpoint id; both follow from the version alone.
func FromModelAs(md model.CheckpointMetadata, version int32, names OperatorNames) (*File, error) {
	if version < WriteVersion || version > MaxVersion {
		return nil, fmt.Errorf("metadata: %w: format version %d (want %d to %d)", ErrNotWritable, version, WriteVersion, MaxVersion)
	}
	f, err := FromModel(md)
	if err != nil {
		return nil, err
	}
	f.Version = version
	if version >= 5 && names != nil {
		for i := range f.Operators {
			f.Operators[i].Name, f.Operators[i].UID = names(f.Operators[i].ID)
		}
	}
	return f, nil
}
