//go:build unix

package eval

import "syscall"

// openNoBlock makes opening a FIFO return at once, should one be put in
// the place of a file between its check and its open.
const openNoBlock = syscall.O_NONBLOCK
