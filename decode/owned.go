package decode

import "io"

// SetCloser makes Close close c too: for a File made by [NewFile] on a
// reader that the File should own (a temporary copy of standard input).
func (f *File) SetCloser(c io.Closer) { f.closer = c }
