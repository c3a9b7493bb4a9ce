package kernel

// ScanIDs scores, for each i, the record at base[ids[i]*stride:] (QueryLen
// components, zero-padded like Scan's records) against the laid-out query
// qp into out[i]. The scores are bit-identical to Scan's on the same
// records. Graph searches use it to score a node's whole neighbour list in
// one call; the asm forms prefetch the records ahead of the one they score,
// since neighbours sit at random places in base.
//
// Every record must lie inside base: ScanIDs panics, before reading any
// record, if one does not.
func (k *Kernel) ScanIDs(qp []float32, base []byte, stride int, ids []uint32, out []float32) {
	if len(ids) == 0 {
		return
	}
	if len(qp) < k.qlen || len(out) < len(ids) || stride < 1 {
		panic("kernel: ScanIDs buffers too short")
	}
	// The last record that fits must start at or before limit; uint64
	// arithmetic cannot overflow for a 32-bit id and an int stride.
	limit := len(base) - k.stride
	if limit < 0 {
		panic("kernel: ScanIDs id out of range")
	}
	var top uint32
	for _, id := range ids {
		top = max(top, id)
	}
	if uint64(top)*uint64(stride) > uint64(limit) {
		panic("kernel: ScanIDs id out of range")
	}
	out = out[:len(ids)]
	if k.gather != nil {
		k.gather(qp, k.dim, base, stride, ids, out)
		return
	}
	gatherScan(k, qp, base, stride, ids, out)
}

// gatherScan is the portable gather: one Scan of one record per id, so an
// implementation without a gather kernel (pure Go, NEON) still scores with
// its own dot kernel.
func gatherScan(k *Kernel, qp []float32, base []byte, stride int, ids []uint32, out []float32) {
	for i, id := range ids {
		off := int(id) * stride
		k.scan(qp, base[off:off+k.stride], out[i:i+1])
	}
}
