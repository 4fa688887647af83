package metadata

// This file reads and writes the Java Object Serialization stream that holds
// CheckpointProperties at the end of version 4+ files (FORMAT.md §9). The reader is a structural
// parser of the grammar subset that stream uses (TC_OBJECT, TC_CLASSDESC, TC_STRING,
// TC_LONGSTRING, TC_ENUM, TC_REFERENCE, TC_NULL, TC_ENDBLOCKDATA); it never instantiates
// anything. The writer emits the exact bytes ObjectOutputStream produces for the three snapshot
// types Flink uses.

import (
	"encoding/binary"
	"fmt"
	"sync"
)

const (
	tcNull         = 0x70
	tcReference    = 0x71
	tcClassDesc    = 0x72
	tcObject       = 0x73
	tcString       = 0x74
	tcEndBlockData = 0x78
	tcLongString   = 0x7C
	tcEnum         = 0x7E
	baseHandle     = 0x7E0000

	scWriteMethod    = 0x01
	scSerializable   = 0x02
	scExternalizable = 0x04
	scEnum           = 0x10
)

// Java class names in the CheckpointProperties stream.
const (
	classCheckpointProperties = "org.apache.flink.runtime.checkpoint.CheckpointProperties"
	classSavepointType        = "org.apache.flink.runtime.checkpoint.SavepointType"
	classCheckpointType       = "org.apache.flink.runtime.checkpoint.CheckpointType"
	classFormatType           = "org.apache.flink.core.execution.SavepointFormatType"
	classPostAction           = "org.apache.flink.runtime.checkpoint.SavepointType$PostCheckpointAction"
	classSharing              = "org.apache.flink.runtime.checkpoint.SnapshotType$SharingFilesStrategy"
	classEnum                 = "java.lang.Enum"
)

type jClass struct {
	name   string
	suid   int64
	flags  byte
	fields []jField
	super  *jClass
}

type jField struct {
	code      byte   // B C D F I J S Z L [
	name      string // field name
	className string // type signature for L and [
}

type jObject struct {
	class  *jClass
	values map[string]any // by field name, over the whole class hierarchy
}

type jEnum struct {
	class *jClass
	name  string
}

type jsParser struct {
	b       []byte
	off     int
	handles []any
	depth   int
	max     int
	err     *FormatError
}

func (p *jsParser) fail(at int, field string, format string, args ...any) {
	if p.err == nil {
		p.err = &FormatError{Offset: int64(at), Field: "checkpoint_properties." + field,
			Err: fmt.Errorf("%w: %s", ErrJavaSerialization, fmt.Sprintf(format, args...))}
	}
}

func (p *jsParser) need(n int, field string) bool {
	if p.err != nil {
		return false
	}
	if n > len(p.b)-p.off {
		p.err = &FormatError{Offset: int64(p.off), Field: "checkpoint_properties." + field,
			Err: fmt.Errorf("%w: need %d bytes, %d left", ErrTruncated, n, len(p.b)-p.off)}
		return false
	}
	return true
}

func (p *jsParser) u8(field string) byte {
	if !p.need(1, field) {
		return 0
	}
	p.off++
	return p.b[p.off-1]
}

func (p *jsParser) u16(field string) uint16 {
	if !p.need(2, field) {
		return 0
	}
	p.off += 2
	return binary.BigEndian.Uint16(p.b[p.off-2:])
}

func (p *jsParser) u32(field string) uint32 {
	if !p.need(4, field) {
		return 0
	}
	p.off += 4
	return binary.BigEndian.Uint32(p.b[p.off-4:])
}

func (p *jsParser) u64(field string) uint64 {
	if !p.need(8, field) {
		return 0
	}
	p.off += 8
	return binary.BigEndian.Uint64(p.b[p.off-8:])
}

func (p *jsParser) utfN(n int, field string) string {
	at := p.off
	if !p.need(n, field) {
		return ""
	}
	s, ok := decodeModifiedUTF8(p.b[p.off : p.off+n])
	if !ok {
		p.fail(at, field, "malformed modified UTF-8")
		return ""
	}
	p.off += n
	return s
}

func (p *jsParser) utf(field string) string { return p.utfN(int(p.u16(field)), field) }

func (p *jsParser) enter(field string) bool {
	if p.err != nil {
		return false
	}
	if p.depth >= p.max {
		p.err = &FormatError{Offset: int64(p.off), Field: "checkpoint_properties." + field,
			Err: fmt.Errorf("%w: more than %d levels", ErrTooDeep, p.max)}
		return false
	}
	p.depth++
	return true
}

func (p *jsParser) assign(v any) int {
	p.handles = append(p.handles, v)
	return len(p.handles) - 1
}

func (p *jsParser) reference(field string) any {
	at := p.off
	h := p.u32(field)
	if p.err != nil {
		return nil
	}
	i := int64(h) - baseHandle
	if i < 0 || i >= int64(len(p.handles)) || p.handles[i] == nil {
		p.fail(at, field, "reference %#x to an unknown handle", h)
		return nil
	}
	return p.handles[i]
}

// content reads one object (TC_OBJECT, TC_STRING, TC_LONGSTRING, TC_ENUM, TC_REFERENCE,
// TC_NULL).
func (p *jsParser) content(field string) any {
	if !p.enter(field) {
		return nil
	}
	defer func() { p.depth-- }()
	at := p.off
	tc := p.u8(field)
	if p.err != nil {
		return nil
	}
	switch tc {
	case tcNull:
		return nil
	case tcReference:
		v := p.reference(field)
		if _, isClass := v.(*jClass); isClass && p.err == nil {
			p.fail(at, field, "reference to a class descriptor where an object is expected")
			return nil
		}
		return v
	case tcString:
		s := p.utf(field)
		p.assign(s)
		return s
	case tcLongString:
		n := p.u64(field)
		if p.err == nil && n > uint64(len(p.b)-p.off) {
			p.fail(at, field, "long string of %d bytes, %d left", n, len(p.b)-p.off)
			return nil
		}
		s := p.utfN(int(n), field)
		p.assign(s)
		return s
	case tcEnum:
		c := p.classDesc(field + ".class")
		if p.err != nil {
			return nil
		}
		if c == nil {
			p.fail(at, field, "enum without a class")
			return nil
		}
		h := p.assign(nil)
		nat := p.off
		name, ok := p.content(field + ".name").(string)
		if p.err == nil && !ok {
			p.fail(nat, field+".name", "enum constant name is not a string")
		}
		e := &jEnum{class: c, name: name}
		p.handles[h] = e
		return e
	case tcObject:
		c := p.classDesc(field + ".class")
		if p.err != nil {
			return nil
		}
		if c == nil {
			p.fail(at, field, "object without a class")
			return nil
		}
		o := &jObject{class: c, values: map[string]any{}}
		p.assign(o)
		var chain []*jClass
		for k := c; k != nil; k = k.super {
			if len(chain) >= p.max {
				p.fail(at, field, "class hierarchy deeper than %d", p.max)
				return nil
			}
			chain = append(chain, k)
		}
		for i := len(chain) - 1; i >= 0 && p.err == nil; i-- {
			k := chain[i]
			if k.flags&(scWriteMethod|scExternalizable|scEnum) != 0 || k.flags&scSerializable == 0 {
				p.fail(at, field, "class %s has flags %#02x (only plain serializable classes are supported)", k.name, k.flags)
				return nil
			}
			for _, f := range k.fields {
				o.values[f.name] = p.value(f, field+"."+f.name)
			}
		}
		return o
	}
	p.fail(at, field, "type code %#02x is not supported here", tc)
	return nil
}

func (p *jsParser) value(f jField, field string) any {
	switch f.code {
	case 'Z':
		return p.u8(field) != 0
	case 'B':
		return int64(int8(p.u8(field)))
	case 'C', 'S':
		return int64(p.u16(field))
	case 'I', 'F':
		return int64(int32(p.u32(field)))
	case 'J', 'D':
		return int64(p.u64(field))
	}
	return p.content(field)
}

func (p *jsParser) classDesc(field string) *jClass {
	if !p.enter(field) {
		return nil
	}
	defer func() { p.depth-- }()
	at := p.off
	tc := p.u8(field)
	if p.err != nil {
		return nil
	}
	switch tc {
	case tcNull:
		return nil
	case tcReference:
		v := p.reference(field)
		c, ok := v.(*jClass)
		if p.err == nil && !ok {
			p.fail(at, field, "reference to a non-class where a class descriptor is expected")
		}
		return c
	case tcClassDesc:
	default:
		p.fail(at, field, "type code %#02x where a class descriptor is expected", tc)
		return nil
	}
	c := &jClass{}
	c.name = p.utf(field + ".name")
	c.suid = int64(p.u64(field + ".serialVersionUID"))
	p.assign(c)
	c.flags = p.u8(field + ".flags")
	nat := p.off
	n := int(int16(p.u16(field + ".fieldCount")))
	if p.err != nil {
		return nil
	}
	if n < 0 || n*3 > len(p.b)-p.off {
		p.fail(nat, field+".fieldCount", "%d fields, %d bytes left", n, len(p.b)-p.off)
		return nil
	}
	for i := 0; i < n && p.err == nil; i++ {
		fat := p.off
		var f jField
		f.code = p.u8(field + ".field.type")
		f.name = p.utf(field + ".field.name")
		switch f.code {
		case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z':
		case 'L', '[':
			s, ok := p.content(field + ".field.className").(string)
			if p.err == nil && !ok {
				p.fail(fat, field+".field.className", "field type is not a string")
			}
			f.className = s
		default:
			if p.err == nil {
				p.fail(fat, field+".field.type", "unknown field type code %#02x", f.code)
			}
		}
		c.fields = append(c.fields, f)
	}
	eat := p.off
	if e := p.u8(field + ".classAnnotation"); p.err == nil && e != tcEndBlockData {
		p.fail(eat, field+".classAnnotation", "class annotations are not supported (type code %#02x)", e)
	}
	c.super = p.classDesc(field + ".super")
	return c
}

// parseProperties parses the Java-serialized CheckpointProperties starting at b[off:] and
// returns the offset just after it.
func parseProperties(b []byte, off, maxDepth int) (*Properties, int, *FormatError) {
	p := &jsParser{b: b, off: off, max: maxDepth}
	at := p.off
	if m := p.u16("magic"); p.err == nil && m != 0xACED {
		p.fail(at, "magic", "stream magic %#04x, want 0xaced", m)
	}
	at = p.off
	if v := p.u16("version"); p.err == nil && v != 5 {
		p.fail(at, "version", "stream version %d, want 5", v)
	}
	at = p.off
	top := p.content("object")
	if p.err != nil {
		return nil, 0, p.err
	}
	if top == nil {
		// A serialized Java null: the State Processor API writes CheckpointMetadata without
		// properties (SavepointWriter, MergeOperatorStates) and MetadataV4Serializer writes
		// the null as is; Flink reads it back as null properties.
		return nil, p.off, nil
	}
	props, msg := interpretProperties(top)
	if msg != "" {
		p.fail(at, "object", "%s", msg)
		return nil, 0, p.err
	}
	return props, p.off, nil
}

func interpretProperties(top any) (*Properties, string) {
	o, ok := top.(*jObject)
	if !ok || o.class.name != classCheckpointProperties {
		return nil, "the object is not a " + classCheckpointProperties
	}
	var pr Properties
	bools := []struct {
		name string
		dst  *bool
	}{
		{"discardCancelled", &pr.DiscardCancelled}, {"discardFailed", &pr.DiscardFailed},
		{"discardFinished", &pr.DiscardFinished}, {"discardSubsumed", &pr.DiscardSubsumed},
		{"discardSuspended", &pr.DiscardSuspended}, {"forced", &pr.Forced}, {"unclaimed", &pr.Unclaimed},
	}
	for _, b := range bools {
		v, ok := o.values[b.name].(bool)
		if !ok {
			return nil, "CheckpointProperties." + b.name + " is missing or not a boolean"
		}
		*b.dst = v
	}
	t, ok := o.values["checkpointType"].(*jObject)
	if !ok {
		return nil, "CheckpointProperties.checkpointType is missing or not an object"
	}
	enumName := func(field, class string) (string, string) {
		e, ok := t.values[field].(*jEnum)
		if !ok || e.class.name != class {
			return "", field + " is not a " + class
		}
		return e.name, ""
	}
	name, ok := t.values["name"].(string)
	if !ok {
		return nil, "the snapshot type's name is missing or not a string"
	}
	pr.TypeName = name
	var msg string
	switch t.class.name {
	case classSavepointType:
		pr.Savepoint = true
		if pr.Format, msg = enumName("formatType", classFormatType); msg != "" {
			return nil, msg
		}
		if pr.PostCheckpointAction, msg = enumName("postCheckpointAction", classPostAction); msg != "" {
			return nil, msg
		}
	case classCheckpointType:
		if pr.Sharing, msg = enumName("sharingFilesStrategy", classSharing); msg != "" {
			return nil, msg
		}
	default:
		return nil, "unknown snapshot type class " + t.class.name
	}
	return &pr, ""
}

// The class descriptors Flink 1.16–2.x write (serialVersionUIDs from FORMAT.md §9).
var (
	jcEnum  = &jClass{name: classEnum, flags: scSerializable | scEnum}
	jcProps = &jClass{name: classCheckpointProperties, suid: 2, flags: scSerializable, fields: []jField{
		{'Z', "discardCancelled", ""}, {'Z', "discardFailed", ""}, {'Z', "discardFinished", ""},
		{'Z', "discardSubsumed", ""}, {'Z', "discardSuspended", ""}, {'Z', "forced", ""},
		{'Z', "unclaimed", ""}, {'L', "checkpointType", "Lorg/apache/flink/runtime/checkpoint/SnapshotType;"},
	}}
	jcSavepointType = &jClass{name: classSavepointType, suid: -0x5f782cf75ba7eb48, flags: scSerializable, fields: []jField{
		{'L', "formatType", "Lorg/apache/flink/core/execution/SavepointFormatType;"},
		{'L', "name", "Ljava/lang/String;"},
		{'L', "postCheckpointAction", "Lorg/apache/flink/runtime/checkpoint/SavepointType$PostCheckpointAction;"},
	}}
	jcCheckpointType = &jClass{name: classCheckpointType, suid: -0x2921b0fcfa51e2c6, flags: scSerializable, fields: []jField{
		{'L', "name", "Ljava/lang/String;"},
		{'L', "sharingFilesStrategy", "Lorg/apache/flink/runtime/checkpoint/SnapshotType$SharingFilesStrategy;"},
	}}
	jcFormat     = &jClass{name: classFormatType, flags: scSerializable | scEnum, super: jcEnum}
	jcPostAction = &jClass{name: classPostAction, flags: scSerializable | scEnum, super: jcEnum}
	jcSharing    = &jClass{name: classSharing, flags: scSerializable | scEnum, super: jcEnum}
)

// nullProperties is what ObjectOutputStream writes for a null CheckpointProperties: stream
// magic, version 5, TC_NULL.
var nullProperties = []byte{0xAC, 0xED, 0x00, 0x05, tcNull}

// propertiesCache holds encodeProperties' bytes of the properties written so far, up to
// maxCachedProperties of them: every checkpoint of a job has the same few (read only).
var propertiesCache struct {
	sync.Mutex
	m map[Properties][]byte
}

const maxCachedProperties = 64

// cachedProperties is encodeProperties through propertiesCache.
func cachedProperties(p *Properties) []byte {
	if p == nil {
		return nullProperties
	}
	c := &propertiesCache
	c.Lock()
	defer c.Unlock()
	if b, ok := c.m[*p]; ok {
		return b
	}
	b := encodeProperties(p)
	if len(c.m) < maxCachedProperties {
		if c.m == nil {
			c.m = map[Properties][]byte{}
		}
		c.m[*p] = b
	}
	return b
}

// encodeProperties gives the ObjectOutputStream bytes of p; nil gives a serialized null.
func encodeProperties(p *Properties) []byte {
	if p == nil {
		return append([]byte(nil), nullProperties...)
	}
	var t *jObject
	if p.Savepoint {
		t = &jObject{class: jcSavepointType, values: map[string]any{
			"formatType":           &jEnum{jcFormat, p.Format},
			"name":                 p.TypeName,
			"postCheckpointAction": &jEnum{jcPostAction, p.PostCheckpointAction},
		}}
	} else {
		t = &jObject{class: jcCheckpointType, values: map[string]any{
			"name":                 p.TypeName,
			"sharingFilesStrategy": &jEnum{jcSharing, p.Sharing},
		}}
	}
	o := &jObject{class: jcProps, values: map[string]any{
		"discardCancelled": p.DiscardCancelled, "discardFailed": p.DiscardFailed,
		"discardFinished": p.DiscardFinished, "discardSubsumed": p.DiscardSubsumed,
		"discardSuspended": p.DiscardSuspended, "forced": p.Forced, "unclaimed": p.Unclaimed,
		"checkpointType": t,
	}}
	w := &jsWriter{handles: map[any]int{}}
	w.buf = append(w.buf, 0xAC, 0xED, 0, 5)
	w.object(o)
	return w.buf
}

// jsWriter emits objects as ObjectOutputStream does; strings are shared by content (Flink's are
// interned literals), enum constants by class and name.
type jsWriter struct {
	buf     []byte
	next    int
	handles map[any]int
}

type enumKey struct{ class, name string }

func (w *jsWriter) ref(key any) bool {
	if h, ok := w.handles[key]; ok {
		w.buf = append(w.buf, tcReference)
		w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(baseHandle+h))
		return true
	}
	return false
}

func (w *jsWriter) assign(key any) {
	w.handles[key] = w.next
	w.next++
}

func (w *jsWriter) utf(s string) {
	b := encodeModifiedUTF8(s)
	w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(len(b)))
	w.buf = append(w.buf, b...)
}

func (w *jsWriter) str(s string) {
	if w.ref(s) {
		return
	}
	w.buf = append(w.buf, tcString)
	w.assign(s)
	w.utf(s)
}

func (w *jsWriter) class(c *jClass) {
	if c == nil {
		w.buf = append(w.buf, tcNull)
		return
	}
	if w.ref(c) {
		return
	}
	w.buf = append(w.buf, tcClassDesc)
	w.utf(c.name)
	w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(c.suid))
	w.assign(c)
	w.buf = append(w.buf, c.flags)
	w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(len(c.fields)))
	for _, f := range c.fields {
		w.buf = append(w.buf, f.code)
		w.utf(f.name)
		if f.code == 'L' || f.code == '[' {
			w.str(f.className)
		}
	}
	w.buf = append(w.buf, tcEndBlockData)
	w.class(c.super)
}

func (w *jsWriter) object(v any) {
	switch v := v.(type) {
	case nil:
		w.buf = append(w.buf, tcNull)
	case string:
		w.str(v)
	case *jEnum:
		key := enumKey{v.class.name, v.name}
		if w.ref(key) {
			return
		}
		w.buf = append(w.buf, tcEnum)
		w.class(v.class)
		w.assign(key)
		w.str(v.name)
	case *jObject:
		w.buf = append(w.buf, tcObject)
		w.class(v.class)
		w.assign(v)
		var chain []*jClass
		for k := v.class; k != nil; k = k.super {
			chain = append(chain, k)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			for _, f := range chain[i].fields {
				if f.code == 'Z' {
					b, _ := v.values[f.name].(bool)
					w.buf = append(w.buf, boolByte(b))
					continue
				}
				w.object(v.values[f.name])
			}
		}
	}
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
