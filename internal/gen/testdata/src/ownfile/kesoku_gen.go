package ownfile

// handWritten is the user's own code in a file with gen's name.
var handWritten = true
