package astral

import (
	"encoding/binary"
	"testing"

	container "github.com/astral-engine/astral/astral/internal/file"
)

// TestCorruptKnownSectionOptional: a section of a kind this reader knows
// and needs, marked optional, is refused (docs/FORMAT.md: only unknown
// kinds are skipped); metadata stays optional, and an unknown optional
// kind is still skipped.
func TestCorruptKnownSectionOptional(t *testing.T) {
	le := binary.LittleEndian
	for name, file := range smallFiles(t) {
		nsec := int(le.Uint32(file[20:]))
		table := container.HeaderLen
		if le.Uint32(file[8:]) >= container.SlotVersion {
			table += 32 // version 7's header extension
		}
		for i := range nsec {
			e := table + i*container.SectionEntryLen
			kind := container.Kind(le.Uint32(file[e:]))
			bad := forge(file, func(b []byte) { put32(b, e+4, le.Uint32(b[e+4:])|container.Optional) })
			if kind == container.KindMetadata {
				mustLoad(t, bad, name+": metadata optional")
				continue
			}
			t.Run(name+"/"+fileFormat.Name(kind), func(t *testing.T) { mustFail(t, bad, ErrCorrupt, "optional "+fileFormat.Name(kind)) })
		}
		// The metadata section renumbered as a kind no reader knows yet.
		last := table + (nsec-1)*container.SectionEntryLen
		mustLoad(t, forge(file, func(b []byte) { put32(b, last, 40) }), name+": unknown optional kind")
	}
}

// mustLoad loads b every way and wants success.
func mustLoad(t *testing.T, b []byte, why string) {
	t.Helper()
	for _, l := range loaders {
		if _, err := l.load(t, nil, b); err != nil {
			t.Fatalf("%s: %s: %v", l.name, why, err)
		}
	}
}
