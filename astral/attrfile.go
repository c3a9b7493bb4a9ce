package astral

import (
	"encoding/binary"
	"slices"

	"github.com/astral-engine/astral/internal/match"
)

// The payloads section, by ascending id so the same index saves to the
// same bytes: the number of payloads n (uint64), their ids (n uint64),
// their lengths (n uint32, each 1 to MaxPayload), zero padding to a
// multiple of 8 bytes, then the payloads one after another.

// payloadHead is the bytes before the payloads of n of them.
func payloadHead(n uint64) uint64 { return (8 + 12*n + 7) &^ 7 }

// payloadSectionMax bounds the section's length for count records.
func payloadSectionMax(count uint64) uint64 {
	return payloadHead(count) + count*MaxPayload
}

// encodePayloads lays the store's payloads out as the section; nil when
// there are none. Hold mu.
func (s *attrStore) encodePayloads() []byte {
	if len(s.payloads) == 0 {
		return nil
	}
	ids := make([]uint64, 0, len(s.payloads))
	for id := range s.payloads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	n := uint64(len(ids))
	head := payloadHead(n)
	b := make([]byte, head, head+uint64(s.payBytes))
	le := binary.LittleEndian
	le.PutUint64(b, n)
	for i, id := range ids {
		le.PutUint64(b[8+8*i:], id)
		le.PutUint32(b[8+8*n+4*uint64(i):], uint32(len(s.payloads[id])))
	}
	for _, id := range ids {
		b = append(b, s.payloads[id]...)
	}
	return b
}

// decodePayloads checks the section b and fills s's payloads from it,
// copied; has reports whether an id is stored.
func (s *attrStore) decodePayloads(b []byte, has func(uint64) bool) error {
	if len(b) == 0 {
		return nil
	}
	le := binary.LittleEndian
	if len(b) < 8 {
		return errorf(ErrCorrupt, "payloads section of %d bytes", len(b))
	}
	n := le.Uint64(b)
	if n == 0 || n > uint64(len(b))/12 {
		return errorf(ErrCorrupt, "absurd count: %d payloads in %d bytes", n, len(b))
	}
	head := payloadHead(n)
	if head > uint64(len(b)) {
		return errorf(ErrCorrupt, "%d payloads in %d bytes", n, len(b))
	}
	for _, c := range b[8+12*n : head] {
		if c != 0 {
			return errorf(ErrCorrupt, "payloads section padding is not zero")
		}
	}
	data := b[head:]
	total := uint64(0)
	for i := uint64(0); i < n; i++ {
		l := uint64(le.Uint32(b[8+8*n+4*i:]))
		if l == 0 || l > MaxPayload {
			return errorf(ErrCorrupt, "payload %d holds %d bytes: want 1 to %d", i, l, MaxPayload)
		}
		total += l
	}
	if total != uint64(len(data)) {
		return errorf(ErrCorrupt, "payload lengths add up to %d bytes, the section holds %d", total, len(data))
	}
	arena := slices.Clone(data)
	off := uint64(0)
	var prev uint64
	for i := uint64(0); i < n; i++ {
		id, l := le.Uint64(b[8+8*i:]), uint64(le.Uint32(b[8+8*n+4*i:]))
		if i > 0 && id <= prev {
			return errorf(ErrCorrupt, "payload ids not ascending at %d", id)
		}
		if !has(id) {
			return errorf(ErrCorrupt, "payload of id %d, which the index does not hold", id)
		}
		prev = id
		s.payloads[id] = arena[off : off+l : off+l]
		off += l
	}
	s.payBytes = int64(total)
	return nil
}

// rebuild fills the postings and tag counts from every stored record's
// attributes (each calls fn once per record).
func (s *attrStore) rebuild(each func(fn func(id uint64, a match.Attr))) {
	each(func(id uint64, a match.Attr) {
		s.countTags(a.Tags, 1)
		if a.Owner != 0 {
			s.ownerAt[id] = len(s.owners[a.Owner])
			s.owners[a.Owner] = append(s.owners[a.Owner], id)
		}
	})
	s.ready.Store(true)
}
