package astral

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"
)

const (
	// TagBits is how many tags a record's mask holds.
	TagBits = 64
	// MaxTagName is the longest tag name, in bytes.
	MaxTagName = 64
	// tagNamesSectionMax bounds the tag-names section: every bit named,
	// each entry its bit, its length and the longest name.
	tagNamesSectionMax = TagBits * (2 + MaxTagName)
)

// tagNames are the names a host gives the tag bits (an editor's or a
// designer's view of them), saved with the index; the engine itself
// tests bits only.
type tagNames struct {
	mu    sync.RWMutex
	byBit [TagBits]string
}

// tagNameProblem says what is wrong with a tag name, "" if nothing ("" is
// a valid name: it clears a bit's).
func tagNameProblem(name string) string {
	if len(name) > MaxTagName {
		return fmt.Sprintf("tag name of %d bytes: at most %d", len(name), MaxTagName)
	}
	if !utf8.ValidString(name) {
		return fmt.Sprintf("tag name %q is not valid UTF-8", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Sprintf("tag name %q holds a control character", name)
		}
	}
	return ""
}

// SetTagName names tag bit bit (0 to 63), saved with the index; "" clears
// its name. A name is at most MaxTagName bytes of valid UTF-8 without
// control characters, and names one bit at a time: one already on another
// bit is ErrInvalidArgument (clear it there first).
func (x *Index) SetTagName(bit int, name string) error {
	if bit < 0 || bit >= TagBits {
		return errorf(ErrInvalidArgument, "tag bit %d: want 0 to %d", bit, TagBits-1)
	}
	if why := tagNameProblem(name); why != "" {
		return errorf(ErrInvalidArgument, "%s", why)
	}
	// A save writes the names its calls left: it holds writeMu.
	x.writeMu.Lock()
	defer x.writeMu.Unlock()
	x.names.mu.Lock()
	defer x.names.mu.Unlock()
	if name != "" {
		for b, n := range x.names.byBit {
			if n == name && b != bit {
				return errorf(ErrInvalidArgument, "tag name %q is already bit %d's", name, b)
			}
		}
	}
	x.names.byBit[bit] = name
	return nil
}

// TagName is the name of tag bit bit, "" when it has none (or bit is
// outside 0 to 63).
func (x *Index) TagName(bit int) string {
	if bit < 0 || bit >= TagBits {
		return ""
	}
	x.names.mu.RLock()
	defer x.names.mu.RUnlock()
	return x.names.byBit[bit]
}

// TagBit returns the bit named name, and false when no bit is ("" names
// none).
func (x *Index) TagBit(name string) (int, bool) {
	if name == "" {
		return 0, false
	}
	x.names.mu.RLock()
	defer x.names.mu.RUnlock()
	for b, n := range x.names.byBit {
		if n == name {
			return b, true
		}
	}
	return 0, false
}

// count is how many bits have names; hold mu.
func (t *tagNames) count() int {
	n := 0
	for _, name := range t.byBit {
		if name != "" {
			n++
		}
	}
	return n
}

// The tag-names section lists the named bits in ascending order, each as
// its bit (one byte), the name's length (one byte, 1 to MaxTagName) and
// the name's bytes, with nothing between or after them.

// encode lays the names out as the section; nil when none is set.
func (t *tagNames) encode() []byte {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var b []byte
	for bit, name := range t.byBit {
		if name != "" {
			b = append(b, byte(bit), byte(len(name)))
			b = append(b, name...)
		}
	}
	return b
}

// decode checks the section b and sets the names from it.
func (t *tagNames) decode(b []byte) error {
	var byBit [TagBits]string
	seen := map[string]int{}
	prev := -1
	for len(b) > 0 {
		if len(b) < 2 {
			return errorf(ErrCorrupt, "tag-names section: an entry cut short")
		}
		bit, n := int(b[0]), int(b[1])
		switch {
		case bit >= TagBits:
			return errorf(ErrCorrupt, "tag-names section: bit %d (at most %d)", bit, TagBits-1)
		case bit <= prev:
			return errorf(ErrCorrupt, "tag-names section: bit %d after bit %d, want ascending", bit, prev)
		case n == 0 || n > MaxTagName:
			return errorf(ErrCorrupt, "tag-names section: a name of %d bytes for bit %d, want 1 to %d", n, bit, MaxTagName)
		case len(b) < 2+n:
			return errorf(ErrCorrupt, "tag-names section: the name of bit %d is cut short", bit)
		}
		name := string(b[2 : 2+n])
		if why := tagNameProblem(name); why != "" {
			return errorf(ErrCorrupt, "tag-names section: bit %d: %s", bit, why)
		}
		if other, dup := seen[name]; dup {
			return errorf(ErrCorrupt, "tag-names section: name %q on bits %d and %d", name, other, bit)
		}
		seen[name] = bit
		byBit[bit], prev = name, bit
		b = b[2+n:]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byBit = byBit
	return nil
}
