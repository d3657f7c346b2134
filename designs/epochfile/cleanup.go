package epochfile

// cleanup deletes the lock files of epochs below t.epoch - KeepEpochs that
// the listing l, which confirmed the term, showed: each If-Match the ETag
// listed, oldest first, while the term lasts. The file of the highest epoch
// is never deleted (only a leader of a higher epoch deletes a file), which
// is what lets confirm trust a listing; the margin keeps the files that a
// candidate holding an older listing may still read, so that it reads a
// file rather than a 404. A delete that fails is left for the next term.
func (n *safeNode) cleanup(t *term, l listing) {
	if n.cfg.KeepEpochs == 0 || t.epoch <= n.cfg.KeepEpochs {
		return
	}
	below := t.epoch - n.cfg.KeepEpochs
	for _, f := range l.files {
		if f.epoch >= below || t.Ctx.Err() != nil {
			return
		}
		_ = n.Delete(t.Ctx, f.key, f.etag)
	}
}
