package astral

import (
	"os"
	"sync"
	"weak"

	"github.com/astral-engine/astral/astral/internal/file"
)

// Where the system refuses to replace a mapped file (Windows), SaveFile
// first moves every index that maps the target into memory of its own, as
// its first write would, so saving over a loaded file stays safe there.
// A variable so the tests take this path on any system.
var detachBeforeReplace = file.ReplaceBlockedByMapping

// mappedFiles lists the indexes OpenFile mapped while detachBeforeReplace
// holds; weak, so the list keeps no index alive.
var mappedFiles struct {
	sync.Mutex
	list []mappedFile
}

type mappedFile struct {
	m *mapping
	x weak.Pointer[Index]
}

// trackMapping records that x maps m.
func trackMapping(x *Index, m *mapping) {
	mappedFiles.Lock()
	defer mappedFiles.Unlock()
	mappedFiles.list = append(mappedFiles.list, mappedFile{m: m, x: weak.Make(x)})
}

// detachMappingsOf copies every index still mapping the file at path into
// its own memory, which unmaps the file, and drops them from the list
// with the entries of released mappings and collected indexes.
func detachMappingsOf(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // nothing there to replace
	}
	var hits []*Index
	mappedFiles.Lock()
	keep := mappedFiles.list[:0]
	for _, e := range mappedFiles.list {
		x := e.x.Value()
		if x == nil || e.m.Released() {
			continue
		}
		if e.m.SameFile(fi) {
			hits = append(hits, x) // unmapped below: no longer listed
			continue
		}
		keep = append(keep, e)
	}
	clear(mappedFiles.list[len(keep):])
	mappedFiles.list = keep
	mappedFiles.Unlock()
	// One index's lock at a time, none held by the caller: no lock order.
	for _, x := range hits {
		if err := x.dropMapping(); err != nil {
			return err
		}
	}
	return nil
}

// dropMapping copies a mapped index into its own memory and unmaps its file.
func (x *Index) dropMapping() error {
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	return x.ownMemory()
}
