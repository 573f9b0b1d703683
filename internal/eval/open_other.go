//go:build !unix

package eval

// openNoBlock is 0 where there are no FIFOs to open.
const openNoBlock = 0
