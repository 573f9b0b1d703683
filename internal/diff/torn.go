package diff

// isTorn reports whether err says the current line is the torn last line
// of a file; message.IsTorn once main has the one JSON Lines reader.
func isTorn(error) bool { return false }
